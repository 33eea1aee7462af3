// enqueue.cpp - dpk_enqueue_launch.
#include "ApiGuard.h"

#include "runtime/Launch.h"

#include <vector>

using namespace dpk;
using namespace dpk::capi;

namespace {

/// Storage for the runtime's form of one launch's arguments: on the stack for the usual counts,
/// on the heap beyond, so the per-launch translation allocates nothing in the common case.
class TranslatedArguments {
public:
  explicit TranslatedArguments(uint32_t count) {
    if (count > InlineCount) {
      heapArgs_.resize(count);
      heapViews_.resize(count);
    }
    args_ = count > InlineCount ? heapArgs_.data() : inlineArgs_;
    views_ = count > InlineCount ? heapViews_.data() : inlineViews_;
  }
  runtime::LaunchArg *args() { return args_; }
  runtime::ViewArg *views() { return views_; }

private:
  static constexpr uint32_t InlineCount = 16;
  // In unions so that nothing is initialized: every used entry is written by the translation.
  union {
    runtime::LaunchArg inlineArgs_[InlineCount];
  };
  union {
    runtime::ViewArg inlineViews_[InlineCount];
  };
  std::vector<runtime::LaunchArg> heapArgs_;
  std::vector<runtime::ViewArg> heapViews_;
  runtime::LaunchArg *args_;
  runtime::ViewArg *views_;
};

/// "kernel 'k': argument i <problem>". Out of line, with the index by value: a message lambda
/// capturing the loop index kept it in memory on every launch.
Error argumentError(const runtime::Kernel &kernel, uint32_t index, const std::string &problem) {
  return Error(DPK_ERROR_INVALID_ARGUMENT,
               "kernel '" + kernel.name() + "': argument " + std::to_string(index) + problem);
}

/// Translates the C API's arguments into `out` (room for `count`).
Error translateArguments(const runtime::Kernel &kernel, const dpk_arg_t *args, uint32_t count,
                         TranslatedArguments &out) {
  for (uint32_t i = 0; i < count; ++i) {
    const dpk_arg_t &arg = args[i];
    runtime::LaunchArg &translated = out.args()[i];
    translated.size = arg.size;
    translated.value = arg.value;
    translated.view = nullptr;
    // Read as a plain int: DPK_ARG_VIEW (100) lies outside dpk_arg_kind_t's enumerators.
    int kind = runtime::enumValue(arg.kind);
    if (kind == DPK_ARG_POINTER) {
      translated.kind = runtime::LaunchArgKind::Pointer;
      continue;
    }
    if (kind == DPK_ARG_SCALAR) {
      translated.kind = runtime::LaunchArgKind::Scalar;
      continue;
    }
    if (kind == DPK_ARG_LOCAL) {
      translated.kind = runtime::LaunchArgKind::Local;
      translated.value = nullptr;
      continue;
    }
    if (kind != static_cast<int>(DPK_ARG_VIEW))
      return argumentError(kernel, i, " has unknown kind " + std::to_string(kind));
    const auto *view = static_cast<const dpk_view_arg_t *>(arg.value);
    if (!view)
      return argumentError(kernel, i, " is a view with a null dpk_view_arg_t");
    runtime::ViewArg &viewArg = out.views()[i];
    viewArg.data = view->data;
    viewArg.ndim = view->ndim;
    for (int d = 0; d < 3; ++d) {
      viewArg.shape[d] = view->shape[d];
      viewArg.strides[d] = view->strides[d];
    }
    translated.kind = runtime::LaunchArgKind::View;
    translated.value = nullptr;
    translated.view = &viewArg;
  }
  return Error::success();
}

} // namespace

extern "C" {

dpk_status_t dpk_enqueue_launch(dpk_event_t *out_event, dpk_queue_t queue, dpk_kernel_t kernel,
                                const dpk_launch_config_t *range, uint32_t num_args,
                                const dpk_arg_t *args, uint32_t num_deps,
                                const dpk_event_t *deps) {
  return apiEntry("dpk_enqueue_launch", [&] {
    Expected<runtime::Queue *> resolvedQueue = toQueue(queue);
    if (!resolvedQueue)
      return resolvedQueue.takeError();
    Expected<runtime::Kernel *> resolvedKernel = toKernel(kernel);
    if (!resolvedKernel)
      return resolvedKernel.takeError();
    if (!range)
      return nullArgument("range");
    if (num_args > 0 && !args)
      return Error(DPK_ERROR_INVALID_ARGUMENT,
                   "args is NULL but num_args is " + std::to_string(num_args));
    Expected<std::vector<runtime::Event *>> events = toEvents(num_deps, deps, "deps");
    if (!events)
      return events.takeError();
    TranslatedArguments launchArgs(num_args);
    if (Error error = translateArguments(**resolvedKernel, args, num_args, launchArgs))
      return error;
    Expected<runtime::Ref<runtime::Event>> event =
        runtime::launchKernel(**resolvedQueue, **resolvedKernel, *range, launchArgs.args(),
                              num_args, *events, out_event != nullptr);
    if (!event)
      return event.takeError();
    if (out_event) {
      // Only events of profiling queues answer dpk_event_elapsed_ns (Event::elapsedNs).
      (*event)->setProfiled(((*resolvedQueue)->flags() & DPK_PL_QUEUE_PROFILING) != 0);
      *out_event = newHandle<dpk_event_t>(*event);
    }
    return Error::success();
  });
}

} // extern "C"

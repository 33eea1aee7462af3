// enqueue.cpp - dpk_enqueue_launch.
#include "ApiGuard.h"

#include "runtime/Launch.h"

#include <cstring>
#include <vector>

using namespace dpk;
using namespace dpk::capi;

namespace {

/// The kind of a caller's argument as a plain int. C callers may pass any value, and
/// DPK_ARG_VIEW (100) lies outside dpk_arg_kind_t's enumerators, so the field is never read as
/// the enum type (that would be undefined behaviour, which UBSan reports).
int rawKind(const dpk_arg_t &arg) {
  int kind;
  static_assert(sizeof(kind) == sizeof(arg.kind), "dpk_arg_kind_t is int-sized");
  std::memcpy(&kind, &arg.kind, sizeof(kind));
  return kind;
}

/// The C API's arguments as the runtime's LaunchArgs. The vector is per thread and reused, so
/// this per-launch translation allocates nothing once warm.
Expected<const std::vector<runtime::LaunchArg> *>
translateArguments(const runtime::Kernel &kernel, const dpk_arg_t *args, uint32_t count) {
  thread_local std::vector<runtime::LaunchArg> translated;
  translated.clear();
  translated.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    const dpk_arg_t &arg = args[i];
    auto where = [&] { return "kernel '" + kernel.name() + "': argument " + std::to_string(i); };
    runtime::LaunchArg out;
    out.size = arg.size;
    out.value = arg.value;
    int kind = rawKind(arg);
    if (kind == DPK_ARG_POINTER) {
      out.kind = runtime::LaunchArgKind::Pointer;
    } else if (kind == DPK_ARG_SCALAR) {
      out.kind = runtime::LaunchArgKind::Scalar;
    } else if (kind == DPK_ARG_LOCAL) {
      out.kind = runtime::LaunchArgKind::Local;
      out.value = nullptr;
    } else if (kind == static_cast<int>(DPK_ARG_VIEW)) {
      const auto *view = static_cast<const dpk_view_arg_t *>(arg.value);
      if (!view)
        return Error(DPK_ERROR_INVALID_ARGUMENT, where() + " is a view with a null dpk_view_arg_t");
      out.kind = runtime::LaunchArgKind::View;
      out.value = nullptr;
      out.view.data = view->data;
      out.view.ndim = view->ndim;
      for (int d = 0; d < 3; ++d) {
        out.view.shape[d] = view->shape[d];
        out.view.strides[d] = view->strides[d];
      }
    } else {
      return Error(DPK_ERROR_INVALID_ARGUMENT,
                   where() + " has unknown kind " + std::to_string(kind));
    }
    translated.push_back(out);
  }
  return &translated;
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
    Expected<const std::vector<runtime::LaunchArg> *> launchArgs =
        translateArguments(**resolvedKernel, args, num_args);
    if (!launchArgs)
      return launchArgs.takeError();
    Expected<runtime::Ref<runtime::Event>> event =
        runtime::launchKernel(**resolvedQueue, **resolvedKernel, *range, (*launchArgs)->data(),
                              num_args, *events, out_event != nullptr);
    if (!event)
      return event.takeError();
    if (out_event)
      *out_event = reinterpret_cast<dpk_event_t>(event->leak());
    return Error::success();
  });
}

} // extern "C"

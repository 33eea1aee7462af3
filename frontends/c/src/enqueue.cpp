// enqueue.cpp - dpk_enqueue_launch.
#include "ApiGuard.h"

#include "runtime/Launch.h"

using namespace dpk;
using namespace dpk::capi;

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
    Expected<runtime::Ref<runtime::Event>> event = runtime::launchKernel(
        **resolvedQueue, **resolvedKernel, *range, args, num_args, *events, out_event != nullptr);
    if (!event)
      return event.takeError();
    if (out_event)
      *out_event = reinterpret_cast<dpk_event_t>(event->leak());
    return Error::success();
  });
}

} // extern "C"

// enqueue.cpp - copies, fills and launches appended to a queue's immediate command list.
//
// Kernel ABI: SPIR-V kernels take dpk's arguments in order (see arguments.hpp); LOCAL arguments
// are Workgroup-storage pointer parameters sized at launch. dpk dimension d of an n-dimensional
// launch is Level Zero dimension n-1-d (see geometry.hpp).
//
// The core checked the handles, argument kinds and values, the range's shape and the fill
// pattern before these entries run (core/runtime/PluginValidation.cpp); what is checked here is
// what only the kernel, the device and the driver know.
#include "enqueue.hpp"

#include "arguments.hpp"
#include "geometry.hpp"
#include "kernel.hpp"
#include "queue.hpp"

#include <cstdint>

namespace dpk::level_zero {

dpk_status_t enqueueCopy(dpk_pl_event_t *outEvent, dpk_pl_queue_t handle, void *dst, const void *src, size_t bytes,
                         uint32_t numDeps, const dpk_pl_event_t *deps) {
  Queue &queue = *toQueue(handle);
  std::lock_guard<std::mutex> guard(queue.lock);
  Command command;
  RETURN_ON_FAILURE(prepareCommand(queue, numDeps, deps, CommandKind::Copy, bytes, {}, command));
  // A zero-byte copy still orders: it becomes a barrier that signals the event.
  ze_result_t rc = bytes ? zeCommandListAppendMemoryCopy(
                               queue.list, dst, src, bytes, command.event->native,
                               static_cast<uint32_t>(command.waits.size()), command.waits.data())
                         : zeCommandListAppendBarrier(queue.list, command.event->native,
                                                      static_cast<uint32_t>(command.waits.size()),
                                                      command.waits.data());
  if (rc != ZE_RESULT_SUCCESS)
    return checkZe(rc, bytes ? "zeCommandListAppendMemoryCopy" : "zeCommandListAppendBarrier",
                   command.event->describe());
  return commitCommand(queue, command, outEvent);
}

dpk_status_t enqueueFill(dpk_pl_event_t *outEvent, dpk_pl_queue_t handle, void *dst, const void *pattern, size_t patternSize,
                         size_t bytes, uint32_t numDeps, const dpk_pl_event_t *deps) {
  Queue &queue = *toQueue(handle);
  const Device &device = *queue.context->device;
  if (patternSize > device.maxFillPatternSize)
    return fail(DPK_ERROR_UNSUPPORTED, "enqueue_fill: " + device.label() +
                                           " fills patterns of at most " +
                                           std::to_string(device.maxFillPatternSize) + " bytes");
  std::lock_guard<std::mutex> guard(queue.lock);
  Command command;
  RETURN_ON_FAILURE(prepareCommand(queue, numDeps, deps, CommandKind::Fill, bytes, {}, command));
  // The pattern is copied at append time, so the caller's buffer may go away on return.
  ze_result_t rc = bytes ? zeCommandListAppendMemoryFill(
                               queue.list, dst, pattern, patternSize, bytes, command.event->native,
                               static_cast<uint32_t>(command.waits.size()), command.waits.data())
                         : zeCommandListAppendBarrier(queue.list, command.event->native,
                                                      static_cast<uint32_t>(command.waits.size()),
                                                      command.waits.data());
  if (rc != ZE_RESULT_SUCCESS)
    return checkZe(rc, bytes ? "zeCommandListAppendMemoryFill" : "zeCommandListAppendBarrier",
                   command.event->describe());
  return commitCommand(queue, command, outEvent);
}

dpk_status_t enqueueLaunch(dpk_pl_event_t *outEvent, dpk_pl_queue_t handle, dpk_pl_kernel_t kernelHandle,
                           const dpk_launch_config_t *config, uint32_t numArgs,
                           const dpk_kernel_arg_t *args, uint32_t numDeps,
                           const dpk_pl_event_t *deps) {
  Queue &queue = *toQueue(handle);
  Kernel &kernel = *toKernel(kernelHandle);
  const Device &device = *queue.context->device;
  auto where = [&] { return "kernel '" + kernel.name + "' on " + device.label(); };

  std::vector<ZeArgument> values;
  std::string why = marshalArguments(numArgs, args, kernel.numArgs, values);
  if (!why.empty())
    return fail(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch: " + where() + ": " + why);
  ApiRange range;
  why = toApiOrder(*config, range);
  if (!why.empty())
    return fail(DPK_ERROR_INVALID_RANGE, "enqueue_launch: " + where() + ": " + why);

  // Kernel state (arguments, group size) is captured by the append: hold the kernel from the
  // first set to the append, then the queue (always in this order).
  std::lock_guard<std::mutex> kernelGuard(kernel.lock);
  uint32_t group[3] = {range.local[0], range.local[1], range.local[2]};
  if (range.range)
    ZE_RETURN_ON_FAILURE(zeKernelSuggestGroupSize(kernel.native, range.global[0], range.global[1],
                                                  range.global[2], &group[0], &group[1], &group[2]),
                         "zeKernelSuggestGroupSize");
  uint32_t counts[3];
  why = groupCounts(range, group, device.limits, config->dims, counts);
  if (!why.empty())
    return fail(DPK_ERROR_INVALID_RANGE, "enqueue_launch: " + where() + ": " + why);
  ze_result_t rc = zeKernelSetGroupSize(kernel.native, group[0], group[1], group[2]);
  if (rc != ZE_RESULT_SUCCESS)
    return checkZe(rc, "zeKernelSetGroupSize", where());
  for (const ZeArgument &arg : values) {
    rc = zeKernelSetArgumentValue(kernel.native, arg.index, arg.size, arg.value);
    if (rc != ZE_RESULT_SUCCESS)
      return checkZe(rc, "zeKernelSetArgumentValue",
                     "argument " + std::to_string(arg.index) + " of " + where());
  }
  ze_group_count_t groups{counts[0], counts[1], counts[2]};
  std::lock_guard<std::mutex> queueGuard(queue.lock);
  Command command;
  RETURN_ON_FAILURE(
      prepareCommand(queue, numDeps, deps, CommandKind::Kernel, 0, kernel.name, command));
  rc = zeCommandListAppendLaunchKernel(queue.list, kernel.native, &groups, command.event->native,
                                       static_cast<uint32_t>(command.waits.size()),
                                       command.waits.data());
  if (rc != ZE_RESULT_SUCCESS) {
    dpk_status_t status = checkZe(rc, "zeCommandListAppendLaunchKernel", where());
    if (status == DPK_ERROR_GENERIC || status == DPK_ERROR_INVALID_ARGUMENT)
      status = fail(DPK_ERROR_LAUNCH, static_cast<int32_t>(rc), plugin::lastError(nullptr));
    return status;
  }
  return commitCommand(queue, command, outEvent);
}

// Level Zero has no BLAS (oneMKL sits above SYCL, not on the driver): callers run their own
// kernel.
dpk_status_t enqueueGemm(dpk_pl_event_t *, dpk_pl_queue_t, const dpk_gemm_desc_t *, uint32_t,
                         const dpk_pl_event_t *) {
  return fail(DPK_ERROR_UNSUPPORTED,
              "enqueue_gemm: the Level Zero backend has no vendor BLAS (use a kernel)");
}

} // namespace dpk::level_zero

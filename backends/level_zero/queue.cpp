// queue.cpp - queue entry points over immediate command lists.
#include "queue.hpp"

#include "NativeQueue.h"

#include <cstdint>

namespace dpk::level_zero {

dpk_status_t queueCreate(dpk_pl_queue_t *out, dpk_pl_context_t context, uint32_t flags) {
  auto queue = std::make_unique<Queue>();
  queue->context = toContext(context);
  queue->profiling = (flags & DPK_PL_QUEUE_PROFILING) != 0;
  const Device &device = *queue->context->device;
  ze_command_queue_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  desc.ordinal = device.computeOrdinal;
  desc.index = 0;
  desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  desc.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
  ZE_RETURN_ON_FAILURE(
      zeCommandListCreateImmediate(queue->context->native, device.native, &desc, &queue->list),
      "zeCommandListCreateImmediate");
  queue->context->retain();
  *out = reinterpret_cast<dpk_pl_queue_t>(queue.release());
  return DPK_SUCCESS;
}

dpk_status_t queueFinish(dpk_pl_queue_t handle) {
  Queue &queue = *toQueue(handle);
  std::shared_ptr<Event> last;
  {
    std::lock_guard<std::mutex> guard(queue.lock);
    last = queue.last;
  }
  if (!last)
    return DPK_SUCCESS;
  // Commands are chained, so the last one completing means all did.
  ze_result_t rc = zeEventHostSynchronize(last->native, UINT64_MAX);
  if (rc != ZE_RESULT_SUCCESS)
    return checkZe(rc, "zeEventHostSynchronize", last->describe() + " (the queue's last command)");
  std::lock_guard<std::mutex> guard(queue.lock);
  if (queue.last == last)
    queue.inFlight.clear();
  return DPK_SUCCESS;
}

dpk_status_t queueRelease(dpk_pl_queue_t handle) {
  Queue *queue = toQueue(handle);
  // A command list must not be destroyed while the device still executes from it.
  dpk_status_t status = DPK_SUCCESS;
  if (queue->last)
    status =
        checkZe(zeEventHostSynchronize(queue->last->native, UINT64_MAX), "zeEventHostSynchronize");
  ze_result_t rc = zeCommandListDestroy(queue->list);
  if (status == DPK_SUCCESS)
    status = checkZe(rc, "zeCommandListDestroy");
  Context *context = queue->context;
  delete queue; // drops the in-flight events after the list that used them
  releaseContextRef(context);
  return status;
}

// dpk orders the commands of an immediate list by events, which native commands do not join:
// a barrier before and after them puts them in line (DPK_NATIVE_ORDER_BARRIERS).
// Not offered: dpk chains a command list's commands by its own events, which a list made
// elsewhere would not carry.
dpk_status_t queueCreateFromNative(dpk_pl_queue_t *, dpk_pl_context_t, const dpk_native_queue_t *) {
  return plugin::fail(DPK_ERROR_UNSUPPORTED, "queue_create_from_native: the Level Zero backend "
                                             "does not adopt command lists made elsewhere");
}

dpk_status_t queueGetNative(dpk_native_queue_t *out, dpk_pl_queue_t handle) {
  Queue &queue = *toQueue(handle);
  dpk_native_queue_t handles = plugin::emptyNativeQueue(
      DPK_NATIVE_API_LEVEL_ZERO, DPK_NATIVE_MEMORY_POINTER, DPK_NATIVE_ORDER_BARRIERS);
  handles.platform = queue.context->device->driver;
  handles.device = queue.context->device->native;
  handles.context = queue.context->native;
  handles.queue = queue.list;
  return plugin::copyNativeQueue(handles, out);
}

} // namespace dpk::level_zero

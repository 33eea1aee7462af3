// queue.cpp - queue entry points.
#include "queue.hpp"

#include <memory>

namespace dpk::opencl {
namespace {

cl_command_queue createNativeQueue(dpk_pl_context_t context, cl_command_queue_properties properties,
                                   cl_int *status) {
  cl_device_id device = context->device->native;
  if (context->device->clVersion >= 200) {
    cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, properties, 0};
    return clCreateCommandQueueWithProperties(context->native, device, list, status);
  }
  return clCreateCommandQueue(context->native, device, properties, status);
}

} // namespace

dpk_status_t queueCreate(dpk_pl_queue_t *out, dpk_pl_context_t context, uint32_t flags) {
  cl_command_queue_properties properties = 0;
  if (flags & DPK_PL_QUEUE_OUT_OF_ORDER)
    properties |= CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
  if (flags & DPK_PL_QUEUE_PROFILING)
    properties |= CL_QUEUE_PROFILING_ENABLE;
  auto queue = std::make_unique<dpk_pl_queue_s>();
  queue->context = context;
  cl_int status = CL_SUCCESS;
  queue->native = createNativeQueue(context, properties, &status);
  // An in-order queue is a valid out-of-order one (it only orders more), so a device without
  // out-of-order queues still gets a queue.
  if (status == CL_INVALID_QUEUE_PROPERTIES && (flags & DPK_PL_QUEUE_OUT_OF_ORDER))
    queue->native = createNativeQueue(
        context,
        properties & ~cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE),
        &status);
  DPK_RETURN_ON_FAILURE(checkCl(status, context->device->clVersion >= 200
                                            ? "clCreateCommandQueueWithProperties"
                                            : "clCreateCommandQueue"));
  *out = queue.release();
  return DPK_SUCCESS;
}

dpk_status_t queueRelease(dpk_pl_queue_t queue) {
  delete queue;
  return DPK_SUCCESS;
}

dpk_status_t queueFinish(dpk_pl_queue_t queue) {
  return checkCl(clFinish(queue->native), "clFinish");
}

} // namespace dpk::opencl

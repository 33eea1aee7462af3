// queue.cpp - queue entry points.
#include "queue.hpp"

#include "NativeQueue.h"

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

namespace {

dpk_native_memory_t nativeMemory(MemoryStrategyKind kind) {
  switch (kind) {
  case MemoryStrategyKind::Usm: return DPK_NATIVE_MEMORY_CL_USM;
  case MemoryStrategyKind::SvmFine:
  case MemoryStrategyKind::SvmCoarse: return DPK_NATIVE_MEMORY_CL_SVM;
  case MemoryStrategyKind::Buffer: return DPK_NATIVE_MEMORY_CL_BUFFER;
  }
  return DPK_NATIVE_MEMORY_CL_BUFFER;
}

} // namespace

// Not offered: a cl_command_queue made elsewhere belongs to another cl_context than dpk's, and
// OpenCL objects (programs, buffers, SVM) do not cross contexts. Native code enqueues on dpk's
// queue instead (queue_get_native).
dpk_status_t queueCreateFromNative(dpk_pl_queue_t *, dpk_pl_context_t, const dpk_native_queue_t *) {
  return plugin::fail(DPK_ERROR_UNSUPPORTED,
                      "queue_create_from_native: OpenCL queues made elsewhere belong to another "
                      "cl_context than dpk's; enqueue native work on dpk's queue instead "
                      "(dpk_queue_get_native)");
}

// An in-order cl_command_queue receives every command of its dpk queue, so native commands
// enqueued on it are ordered with dpk's; an out-of-order one (a queue created with
// DPK_PL_QUEUE_OUT_OF_ORDER that the device granted) needs barriers around them.
dpk_status_t queueGetNative(dpk_native_queue_t *out, dpk_pl_queue_t queue) {
  cl_command_queue_properties properties = 0;
  DPK_RETURN_ON_FAILURE(checkCl(clGetCommandQueueInfo(queue->native, CL_QUEUE_PROPERTIES,
                                                      sizeof(properties), &properties, nullptr),
                                "clGetCommandQueueInfo"));
  dpk_pl_device_t device = queue->context->device;
  dpk_native_queue_t handles = plugin::emptyNativeQueue(
      DPK_NATIVE_API_OPENCL, nativeMemory(device->memory),
      (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) ? DPK_NATIVE_ORDER_BARRIERS
                                                            : DPK_NATIVE_ORDER_IN_ORDER);
  handles.platform = device->platform;
  handles.device = device->native;
  handles.context = queue->context->native;
  handles.queue = queue->native;
  return plugin::copyNativeQueue(handles, out);
}

} // namespace dpk::opencl

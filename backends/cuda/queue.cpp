// queue.cpp - queue entry points over CUDA streams.
#include "queue.hpp"

#include "NativeQueue.h"
#include "small_read.hpp"

#include <cstdint>

namespace dpk::cuda {

dpk_status_t queueCreate(dpk_pl_queue_t *out, dpk_pl_context_t context, uint32_t flags) {
  auto queue = std::make_unique<Queue>();
  queue->context = toContext(context);
  queue->profiling = (flags & DPK_PL_QUEUE_PROFILING) != 0;
  RETURN_ON_FAILURE(makeCurrent(queue->context->native));
  // Non-blocking: the stream must not serialize with the legacy default stream that other
  // libraries in the process may use.
  CUDA_RETURN_ON_FAILURE(cu.streamCreate(&queue->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  queue->context->retain();
  *out = reinterpret_cast<dpk_pl_queue_t>(queue.release());
  return DPK_SUCCESS;
}

dpk_status_t queueRelease(dpk_pl_queue_t handle) {
  Queue *queue = toQueue(handle);
  // cuStreamDestroy returns at once; the driver frees the stream after its work completes.
  dpk_status_t status = makeCurrent(queue->context->native);
  if (status == DPK_SUCCESS) {
    if (queue->ownsStream)
      status = checkCu(cu.streamDestroy(queue->stream), "cuStreamDestroy");
    // A small read returns after its stream's synchronize, so no kernel writes the block now.
    releaseSmallReadStaging(*queue);
  }
  releaseContextRef(queue->context);
  delete queue;
  return status;
}

dpk_status_t queueFinish(dpk_pl_queue_t handle) {
  Queue &queue = *toQueue(handle);
  RETURN_ON_FAILURE(makeCurrent(queue.context->native));
  queue.noteSynchronized(); // before the call: what is submitted during it sets it again
  CUresult rc = cu.streamSynchronize(queue.stream);
  if (rc == CUDA_SUCCESS)
    return DPK_SUCCESS;
  std::string context = "on " + queue.context->device->label();
  if (auto kernel = queue.latestKernel())
    context += ", after kernel '" + *kernel + "' (the last kernel launched on this queue)";
  return checkCu(rc, "cuStreamSynchronize", context);
}

// One stream per dpk queue, whatever its flags: native work on it is in order with dpk's.
dpk_status_t queueGetNative(dpk_native_queue_t *out, dpk_pl_queue_t handle) {
  Queue &queue = *toQueue(handle);
  dpk_native_queue_t handles = plugin::emptyNativeQueue(
      DPK_NATIVE_API_CUDA, DPK_NATIVE_MEMORY_POINTER, DPK_NATIVE_ORDER_IN_ORDER);
  handles.device = reinterpret_cast<void *>(static_cast<intptr_t>(queue.context->device->native));
  handles.context = queue.context->native;
  handles.queue = queue.stream;
  return plugin::copyNativeQueue(handles, out);
}

// A stream of another library (CuPy, PyTorch, Numba, the application): dpk's commands go to it,
// so they are ordered with that library's work on it. The stream must belong to this device's
// primary context (what the CUDA runtime, and so CuPy and PyTorch, use), else dpk's modules and
// memory would not be valid on it. Borrowed: queueRelease leaves it alone.
dpk_status_t queueCreateFromNative(dpk_pl_queue_t *out, dpk_pl_context_t contextHandle,
                                   const dpk_native_queue_t *native) {
  Context *context = toContext(contextHandle);
  if (native->api != DPK_NATIVE_API_CUDA)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT,
                        "queue_create_from_native: the CUDA plugin takes CUDA streams "
                        "(DPK_NATIVE_API_CUDA), not API " + std::to_string(native->api));
  RETURN_ON_FAILURE(makeCurrent(context->native));
  CUstream stream = static_cast<CUstream>(native->queue);
  CUcontext owner = nullptr;
  CUDA_RETURN_ON_FAILURE(cu.streamGetCtx(stream, &owner), "cuStreamGetCtx");
  if (owner != context->native)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT,
                        "queue_create_from_native: the stream belongs to another CUDA context "
                        "than " + context->device->label() + "'s primary context (a stream of "
                        "another device, or of a context made with cuCtxCreate)");
  auto queue = std::make_unique<Queue>();
  queue->context = context;
  queue->stream = stream;
  queue->ownsStream = false;
  context->retain();
  *out = reinterpret_cast<dpk_pl_queue_t>(queue.release());
  return DPK_SUCCESS;
}

} // namespace dpk::cuda

// FakeStreams.cpp - streams and events. The fake runs nothing asynchronously, so every stream is
// idle and every recorded event complete; a test injects a failure to see how the plugin reports
// one (an asynchronous fault surfaces at cuStreamSynchronize or cuEventSynchronize), or has
// cuStreamQuery report streams busy (fakeCudaSetStreamsBusy) to take the plugin's paths for work
// still running.
#include "FakeState.h"

using namespace fake_cuda;

namespace {
std::atomic<bool> streamsBusy{false};
} // namespace

FAKE_CUDA_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned) {
  if (!currentContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  *stream = new CUstream_st{currentContext()};
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  if (!stream)
    return CUDA_ERROR_INVALID_HANDLE;
  delete stream;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuStreamSynchronize(CUstream) {
  if (int rc = injectedFailure("cuStreamSynchronize"))
    return rc;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuStreamQuery(CUstream) {
  if (int rc = injectedFailure("cuStreamQuery"))
    return rc;
  return streamsBusy.load(std::memory_order_relaxed) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT void fakeCudaSetStreamsBusy(int busy) {
  streamsBusy.store(busy != 0, std::memory_order_relaxed);
}

FAKE_CUDA_EXPORT CUresult cuStreamGetCtx(CUstream stream, CUcontext *context) {
  if (!stream)
    return CUDA_ERROR_INVALID_HANDLE;
  *context = stream->context;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuStreamWaitEvent(CUstream, CUevent event, unsigned) {
  return event ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

FAKE_CUDA_EXPORT CUresult cuEventCreate(CUevent *event, unsigned flags) {
  if (!currentContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  *event = new CUevent_st{flags, false};
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuEventDestroy_v2(CUevent event) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  delete event;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuEventRecord(CUevent event, CUstream) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  event->recorded = true;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuEventSynchronize(CUevent event) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  if (int rc = injectedFailure("cuEventSynchronize"))
    return rc;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuEventQuery(CUevent event) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  if (int rc = injectedFailure("cuEventQuery"))
    return rc;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuEventElapsedTime_v2(float *milliseconds, CUevent start, CUevent end) {
  if (!start || !end || (start->flags & CU_EVENT_DISABLE_TIMING) ||
      (end->flags & CU_EVENT_DISABLE_TIMING))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!start->recorded || !end->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  *milliseconds = 0.001f; // one microsecond: every fake command takes that long
  return CUDA_SUCCESS;
}

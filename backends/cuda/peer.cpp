// peer.cpp - peer access between the contexts of two GPUs, enabled when a copy needs it.
#include "peer.hpp"

#include <cstdint>

namespace dpk::cuda {

namespace {

/// The device memory's context and device, or false for host memory and unknown pointers.
bool owningContext(const void *ptr, CUcontext &context, int &ordinal) {
  CUdeviceptr address = devicePointer(ptr);
  if (cu.pointerGetAttribute(&context, CU_POINTER_ATTRIBUTE_CONTEXT, address) != CUDA_SUCCESS ||
      context == nullptr)
    return false;
  return cu.pointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address) ==
         CUDA_SUCCESS;
}

void enableFor(Context &context, const void *ptr) {
  CUcontext other = nullptr;
  int ordinal = -1;
  if (!owningContext(ptr, other, ordinal) || other == context.native)
    return;
  {
    std::lock_guard<std::mutex> guard(context.lock);
    if (!context.peersTried.insert(other).second)
      return; // enabled before, or found impossible before
  }
  int canAccess = 0;
  if (cu.deviceCanAccessPeer(&canAccess, context.device->native, ordinal) != CUDA_SUCCESS ||
      !canAccess)
    return;
  // ALREADY_ENABLED: someone else sharing the primary context (CuPy, PyTorch) did it.
  CUresult result = cu.ctxEnablePeerAccess(other, 0);
  (void)result; // CUDA_SUCCESS, CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED or a refusal: all copy
}

} // namespace

void enablePeerAccessFor(Context &context, const void *dst, const void *src) {
  enableFor(context, dst);
  enableFor(context, src);
}

} // namespace dpk::cuda

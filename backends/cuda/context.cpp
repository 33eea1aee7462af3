// context.cpp - context entry points over the device's primary context.
#include "context.hpp"

#include "memory.hpp"
#include "small_read.hpp"

#include <memory>

namespace dpk::cuda {

namespace {
constexpr size_t MaxSpareEvents = 1024;
} // namespace

dpk_status_t Context::takeEvent(CUevent &out) {
  {
    std::lock_guard<std::mutex> guard(lock);
    if (!spareEvents.empty()) {
      out = spareEvents.back();
      spareEvents.pop_back();
      return DPK_SUCCESS;
    }
  }
  return checkCu(cu.eventCreate(&out, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
}

void Context::recycleEvent(CUevent event) {
  {
    std::lock_guard<std::mutex> guard(lock);
    if (spareEvents.size() < MaxSpareEvents) {
      spareEvents.push_back(event);
      return;
    }
  }
  if (makeCurrent(native) == DPK_SUCCESS)
    cu.eventDestroy(event);
}

void releaseContextRef(Context *context) {
  if (!context->releaseRef())
    return;
  if (makeCurrent(context->native) == DPK_SUCCESS) {
    for (CUevent event : context->spareEvents)
      cu.eventDestroy(event);
    releaseSmallReadKernel(*context);
    std::string whyNot;
    if (const CublasApi *blas = context->blas ? loadCublas(whyNot) : nullptr)
      blas->destroy(context->blas);
    // The core frees what it allocated; anything left is freed here rather than leaked.
    for (auto &entry : context->allocations)
      freeAllocation(entry.second);
  }
  cu.devicePrimaryCtxRelease(context->device->native);
  delete context;
}

dpk_status_t contextCreate(dpk_pl_context_t *out, dpk_pl_device_t device) {
  auto context = std::make_unique<Context>();
  context->device = toDevice(device);
  CUDA_RETURN_ON_FAILURE(cu.devicePrimaryCtxRetain(&context->native, context->device->native),
                         "cuDevicePrimaryCtxRetain");
  *out = reinterpret_cast<dpk_pl_context_t>(context.release());
  return DPK_SUCCESS;
}

dpk_status_t contextRelease(dpk_pl_context_t context) {
  releaseContextRef(toContext(context));
  return DPK_SUCCESS;
}

} // namespace dpk::cuda

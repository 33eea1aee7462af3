// common.cpp - CUresult mapping and description.
#include "common.hpp"

namespace dpk::cuda {

dpk_status_t mapCudaResult(CUresult result) {
  switch (result) {
  case CUDA_SUCCESS:
    return DPK_SUCCESS;
  case CUDA_ERROR_INVALID_VALUE:
    return DPK_ERROR_INVALID_ARGUMENT;
  case CUDA_ERROR_OUT_OF_MEMORY:
    return DPK_ERROR_OUT_OF_DEVICE_MEMORY;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE:
    return DPK_ERROR_NO_DEVICE;
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    return DPK_ERROR_COMPILE;
  case CUDA_ERROR_INVALID_CONTEXT:
  case CUDA_ERROR_INVALID_HANDLE:
    return DPK_ERROR_INVALID_HANDLE;
  case CUDA_ERROR_NOT_FOUND:
    return DPK_ERROR_NOT_FOUND;
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return DPK_ERROR_LAUNCH;
  // Faults raised while a kernel runs: they surface at the next synchronization and leave the
  // context unusable.
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
    return DPK_ERROR_DEVICE;
  case CUDA_ERROR_NOT_SUPPORTED:
    return DPK_ERROR_UNSUPPORTED;
  }
  return DPK_ERROR_GENERIC;
}

std::string describeCudaResult(CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (cu.getErrorName)
    cu.getErrorName(result, &name);
  if (cu.getErrorString)
    cu.getErrorString(result, &text);
  std::string out = name ? name : "CUDA error";
  out += " (" + std::to_string(result) + ")";
  if (text)
    out += std::string(": ") + text;
  return out;
}

dpk_status_t checkCu(CUresult result, const char *call, const std::string &context) {
  if (result == CUDA_SUCCESS)
    return DPK_SUCCESS;
  std::string message = std::string(call) + ": " + describeCudaResult(result);
  if (!context.empty())
    message += ": " + context;
  return fail(mapCudaResult(result), result, std::move(message));
}

dpk_status_t setCurrent(CUcontext context) {
  return checkCu(cu.ctxSetCurrent(context), "cuCtxSetCurrent");
}

} // namespace dpk::cuda

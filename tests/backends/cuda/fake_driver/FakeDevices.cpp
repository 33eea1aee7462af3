// FakeDevices.cpp - initialization, error names, the one device, its attributes and its primary
// context.
#include "FakeState.h"

#include <cstring>

using namespace fake_cuda;

namespace {

struct ErrorText {
  CUresult code;
  const char *name;
  const char *text;
};

// The codes the plugin reacts to (driver_api.hpp), with the driver's own names.
constexpr ErrorText Errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
};

const ErrorText *findError(CUresult code) {
  for (const ErrorText &error : Errors)
    if (error.code == code)
      return &error;
  return nullptr;
}

/// H100 SXM5 80GB values, as the real driver reports them; 0 for attributes dpk never reads.
int attributeValue(int attribute) {
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return MaxThreadsPerBlock;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return DefaultSharedPerBlock;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
  case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return 0x19;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 50 * 1024 * 1024;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
  case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return OptinSharedPerBlock;
  }
  return 0;
}

bool validDevice(CUdevice device) { return device >= 0 && device < DeviceCount; }

} // namespace

FAKE_CUDA_EXPORT CUresult cuInit(unsigned flags) {
  if (int rc = injectedFailure("cuInit"))
    return rc;
  return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_CUDA_EXPORT CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = DriverVersion;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  const ErrorText *found = findError(error);
  *name = found ? found->name : nullptr;
  return found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_CUDA_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  const ErrorText *found = findError(error);
  *text = found ? found->text : nullptr;
  return found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_CUDA_EXPORT CUresult cuDeviceGetCount(int *count) {
  if (int rc = injectedFailure("cuDeviceGetCount"))
    return rc;
  *count = DeviceCount;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!validDevice(ordinal))
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  if (!validDevice(device))
    return CUDA_ERROR_INVALID_DEVICE;
  if (!name || length <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::strncpy(name, DeviceName, static_cast<size_t>(length) - 1);
  name[length - 1] = '\0';
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
  if (!validDevice(device))
    return CUDA_ERROR_INVALID_DEVICE;
  *value = attributeValue(attribute);
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  if (!validDevice(device))
    return CUDA_ERROR_INVALID_DEVICE;
  *bytes = TotalMemory;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  if (!validDevice(device))
    return CUDA_ERROR_INVALID_DEVICE;
  *context = primaryContext();
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  return validDevice(device) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

FAKE_CUDA_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  currentContext() = context;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = currentContext();
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuDeviceCanAccessPeer(int *canAccess, CUdevice device, CUdevice peer) {
  if (!validDevice(device) || !validDevice(peer))
    return CUDA_ERROR_INVALID_DEVICE;
  *canAccess = 0; // one device: no peers
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext, unsigned) {
  return CUDA_ERROR_INVALID_DEVICE;
}

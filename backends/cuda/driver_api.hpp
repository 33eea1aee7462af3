// driver_api.hpp - the slice of the CUDA driver API this plugin uses, loaded at run time.
//
// The plugin has no link-time dependency on the CUDA toolkit: the types, constants and function
// signatures below are written from NVIDIA's documented driver API, and the functions are
// resolved with dlsym from libcuda.so.1 by loadDriver(). Symbols whose ABI changed carry the
// versioned name the toolkit headers map them to (cuMemAlloc_v2, cuStreamDestroy_v2, ...).
#ifndef DPK_BACKENDS_CUDA_DRIVER_API_HPP
#define DPK_BACKENDS_CUDA_DRIVER_API_HPP

#include <cstddef>
#include <string>

namespace dpk::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;

// CUresult values the plugin reacts to (the full list is only needed for names, which come from
// cuGetErrorName).
enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
  CUDA_ERROR_INVALID_PC = 718,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_SUPPORTED = 801,
};

// CUdevice_attribute values.
enum : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
  CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

// CUpointer_attribute values.
enum : int {
  CU_POINTER_ATTRIBUTE_CONTEXT = 1,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
};

// CUmemorytype values (CU_POINTER_ATTRIBUTE_MEMORY_TYPE).
enum : unsigned {
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
};

// CUfunction_attribute values.
enum : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

// CUjit_option values.
enum : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_LOG_VERBOSE = 12,
};

// Flags.
enum : unsigned {
  CU_STREAM_NON_BLOCKING = 0x1,
  CU_EVENT_DEFAULT = 0x0,
  CU_EVENT_DISABLE_TIMING = 0x2,
  CU_MEMHOSTALLOC_PORTABLE = 0x1,
  CU_MEMHOSTALLOC_DEVICEMAP = 0x2,
  CU_MEM_ATTACH_GLOBAL = 0x1,
};

// X(member, symbol, return type, parameter list): every required driver entry point.
#define DPK_CUDA_DRIVER_FUNCTIONS(X)                                                               \
  X(init, "cuInit", CUresult, (unsigned flags))                                                    \
  X(driverGetVersion, "cuDriverGetVersion", CUresult, (int *version))                              \
  X(getErrorName, "cuGetErrorName", CUresult, (CUresult error, const char **name))                 \
  X(getErrorString, "cuGetErrorString", CUresult, (CUresult error, const char **text))             \
  X(deviceGetCount, "cuDeviceGetCount", CUresult, (int *count))                                    \
  X(deviceGet, "cuDeviceGet", CUresult, (CUdevice * device, int ordinal))                          \
  X(deviceGetName, "cuDeviceGetName", CUresult, (char *name, int length, CUdevice device))         \
  X(deviceGetAttribute, "cuDeviceGetAttribute", CUresult,                                          \
    (int *value, int attribute, CUdevice device))                                                  \
  X(deviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t * bytes, CUdevice device))            \
  X(devicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult,                                  \
    (CUcontext * context, CUdevice device))                                                        \
  X(devicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult, (CUdevice device))          \
  X(ctxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext context))                               \
  X(ctxGetCurrent, "cuCtxGetCurrent", CUresult, (CUcontext * context))                             \
  X(memGetInfo, "cuMemGetInfo_v2", CUresult, (size_t * freeBytes, size_t * totalBytes))            \
  X(memAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr * ptr, size_t bytes))                        \
  X(memAllocManaged, "cuMemAllocManaged", CUresult,                                                \
    (CUdeviceptr * ptr, size_t bytes, unsigned flags))                                             \
  X(memHostAlloc, "cuMemHostAlloc", CUresult, (void **ptr, size_t bytes, unsigned flags))          \
  X(memFree, "cuMemFree_v2", CUresult, (CUdeviceptr ptr))                                          \
  X(memFreeHost, "cuMemFreeHost", CUresult, (void *ptr))                                           \
  X(pointerGetAttribute, "cuPointerGetAttribute", CUresult,                                        \
    (void *data, int attribute, CUdeviceptr ptr))                                                  \
  X(deviceCanAccessPeer, "cuDeviceCanAccessPeer", CUresult,                                        \
    (int *canAccess, CUdevice device, CUdevice peer))                                              \
  X(ctxEnablePeerAccess, "cuCtxEnablePeerAccess", CUresult, (CUcontext peer, unsigned flags))      \
  X(memcpyAsync, "cuMemcpyAsync", CUresult,                                                        \
    (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))                             \
  X(memsetD8Async, "cuMemsetD8Async", CUresult,                                                    \
    (CUdeviceptr dst, unsigned char value, size_t count, CUstream stream))                         \
  X(memsetD16Async, "cuMemsetD16Async", CUresult,                                                  \
    (CUdeviceptr dst, unsigned short value, size_t count, CUstream stream))                        \
  X(memsetD32Async, "cuMemsetD32Async", CUresult,                                                  \
    (CUdeviceptr dst, unsigned value, size_t count, CUstream stream))                              \
  X(streamCreate, "cuStreamCreate", CUresult, (CUstream * stream, unsigned flags))                 \
  X(streamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream stream))                              \
  X(streamSynchronize, "cuStreamSynchronize", CUresult, (CUstream stream))                         \
  X(streamQuery, "cuStreamQuery", CUresult, (CUstream stream))                                     \
  X(streamGetCtx, "cuStreamGetCtx", CUresult, (CUstream stream, CUcontext * context))              \
  X(streamWaitEvent, "cuStreamWaitEvent", CUresult,                                                \
    (CUstream stream, CUevent event, unsigned flags))                                              \
  X(eventCreate, "cuEventCreate", CUresult, (CUevent * event, unsigned flags))                     \
  X(eventDestroy, "cuEventDestroy_v2", CUresult, (CUevent event))                                  \
  X(eventRecord, "cuEventRecord", CUresult, (CUevent event, CUstream stream))                      \
  X(eventSynchronize, "cuEventSynchronize", CUresult, (CUevent event))                             \
  X(eventQuery, "cuEventQuery", CUresult, (CUevent event))                                         \
  X(moduleLoadDataEx, "cuModuleLoadDataEx", CUresult,                                              \
    (CUmodule * module, const void *image, unsigned numOptions, int *options, void **values))      \
  X(moduleUnload, "cuModuleUnload", CUresult, (CUmodule module))                                   \
  X(moduleGetFunction, "cuModuleGetFunction", CUresult,                                            \
    (CUfunction * function, CUmodule module, const char *name))                                    \
  X(funcGetAttribute, "cuFuncGetAttribute", CUresult,                                              \
    (int *value, int attribute, CUfunction function))                                              \
  X(funcSetAttribute, "cuFuncSetAttribute", CUresult,                                              \
    (CUfunction function, int attribute, int value))                                               \
  X(launchKernel, "cuLaunchKernel", CUresult,                                                      \
    (CUfunction function, unsigned gridX, unsigned gridY, unsigned gridZ, unsigned blockX,         \
     unsigned blockY, unsigned blockZ, unsigned sharedBytes, CUstream stream, void **params,       \
     void **extra))

/// The resolved driver entry points. Optional ones are null when the driver lacks them.
struct DriverApi {
#define DPK_CUDA_DECLARE_MEMBER(member, symbol, ret, params) ret(*member) params = nullptr;
  DPK_CUDA_DRIVER_FUNCTIONS(DPK_CUDA_DECLARE_MEMBER)
#undef DPK_CUDA_DECLARE_MEMBER
  // cuEventElapsedTime_v2 (CUDA 12.8+) or the original symbol.
  CUresult (*eventElapsedTime)(float *milliseconds, CUevent start, CUevent end) = nullptr;
  // CUDA 12.4+: lets kernel_create learn each parameter's size, so a launch with the wrong
  // argument list is refused instead of reading garbage.
  CUresult (*funcGetParamInfo)(CUfunction function, size_t index, size_t *offset,
                               size_t *size) = nullptr;
};

/// The process-wide table; valid after loadDriver() succeeded.
extern DriverApi cu;

/// dlopens `library` (libcuda.so.1 unless DPK_CUDA_LIBRARY names another) and resolves every
/// required symbol. Returns "" on success, else why not (shown as the no-device reason).
std::string loadDriver();

} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_DRIVER_API_HPP

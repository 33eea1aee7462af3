// device.hpp - one OpenCL device as dpk sees it, with the memory strategy chosen for it.
#ifndef DPK_BACKENDS_OPENCL_DEVICE_HPP
#define DPK_BACKENDS_OPENCL_DEVICE_HPP

#include "common.hpp"
#include "entries.hpp"

#include <string>

namespace dpk::opencl {

/// How dpk's pointer-addressed memory is made from what the device offers (best first).
enum class MemoryStrategyKind {
  Usm,       // cl_intel_unified_shared_memory: device, shared and host allocations
  SvmFine,   // fine-grained buffer SVM: every kind, host-dereferenceable
  SvmCoarse, // coarse-grained SVM: device allocations only (never mapped on the host)
  Buffer     // cl_mem buffers behind addresses reserved with mmap: device allocations only
};

const char *memoryStrategyName(MemoryStrategyKind kind);

/// The cl_intel_unified_shared_memory entry points of one platform.
struct UsmFunctions {
  clHostMemAllocINTEL_fn hostMemAlloc = nullptr;
  clDeviceMemAllocINTEL_fn deviceMemAlloc = nullptr;
  clSharedMemAllocINTEL_fn sharedMemAlloc = nullptr;
  clMemBlockingFreeINTEL_fn memBlockingFree = nullptr;
  clSetKernelArgMemPointerINTEL_fn setKernelArgMemPointer = nullptr;
  clEnqueueMemcpyINTEL_fn enqueueMemcpy = nullptr;
  clEnqueueMemFillINTEL_fn enqueueMemFill = nullptr;
};

} // namespace dpk::opencl

struct dpk_pl_device_s {
  cl_platform_id platform = nullptr;
  cl_device_id native = nullptr;
  unsigned clVersion = 0; // major * 100 + minor of CL_DEVICE_VERSION
  dpk::opencl::MemoryStrategyKind memory = dpk::opencl::MemoryStrategyKind::Buffer;
  std::string memoryNote; // why the strategy was chosen when it is not the device's best
  uint32_t usmAspects = 0;
  dpk::opencl::UsmFunctions usm;
  size_t baseAddressAlignment = 1; // CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes
  uint64_t maxAllocSize = 0;
  dpk_device_props_t props{}; // filled once at enumeration
};

namespace dpk::opencl {

/// Forgets every device (plugin shutdown).
void releaseDevices();

} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_DEVICE_HPP

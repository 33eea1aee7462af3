// memory.cpp - mem_alloc and mem_free.
//
// With unified addressing (every 64-bit platform CUDA supports) device, managed and pinned host
// pointers share one address space, so a dpk pointer is the CUdeviceptr itself and copies need
// no direction.
#include "memory.hpp"

#include <cstdint>

namespace dpk::cuda {
namespace {

// What the driver guarantees without asking: cuMemAlloc and cuMemAllocManaged align to 256 bytes,
// cuMemHostAlloc to a page.
constexpr size_t DeviceAlignment = 256;
constexpr size_t HostAlignment = 4096;

const char *kindName(dpk_mem_kind_t kind) {
  switch (kind) {
  case DPK_MEM_DEVICE:
    return "device";
  case DPK_MEM_SHARED:
    return "shared";
  case DPK_MEM_HOST:
    return "host";
  }
  return "unknown";
}

CUresult allocate(dpk_mem_kind_t kind, size_t bytes, void **base) {
  CUdeviceptr ptr = 0;
  CUresult rc = CUDA_ERROR_INVALID_VALUE;
  switch (kind) {
  case DPK_MEM_DEVICE:
    rc = cu.memAlloc(&ptr, bytes);
    break;
  case DPK_MEM_SHARED:
    rc = cu.memAllocManaged(&ptr, bytes, CU_MEM_ATTACH_GLOBAL);
    break;
  case DPK_MEM_HOST:
    // PORTABLE: usable from every context; DEVICEMAP: addressable by kernels.
    return cu.memHostAlloc(base, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  }
  *base = reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
  return rc;
}

} // namespace

CUresult freeAllocation(const Allocation &allocation) {
  if (allocation.kind == DPK_MEM_HOST)
    return cu.memFreeHost(allocation.base);
  return cu.memFree(devicePointer(allocation.base));
}

dpk_status_t memAlloc(void **out, dpk_pl_context_t handle, dpk_mem_kind_t kind, size_t size, size_t alignment) {
  Context &context = *toContext(handle);
  const Device &device = *context.device;
  if (kind == DPK_MEM_SHARED && !device.managedMemory)
    return fail(DPK_ERROR_UNSUPPORTED, device.label() + " cannot allocate managed memory");
  // Oversubscribed managed memory makes the driver page against the whole device, which can
  // stall the GPU for everyone; dpk refuses it like a device allocation that does not fit.
  if (kind == DPK_MEM_SHARED && size > device.totalMemory)
    return fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY,
                "mem_alloc: " + std::to_string(size) + " bytes of shared memory exceed the " +
                    std::to_string(device.totalMemory) + " bytes of " + device.label());
  size_t natural = kind == DPK_MEM_HOST ? HostAlignment : DeviceAlignment;
  size_t padding = alignment > natural ? alignment : 0;
  if (size + padding < size)
    return fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY, "mem_alloc: size overflows");
  RETURN_ON_FAILURE(makeCurrent(context.native));
  void *base = nullptr;
  CUresult rc = allocate(kind, size + padding, &base);
  if (rc != CUDA_SUCCESS) {
    const char *call = kind == DPK_MEM_DEVICE   ? "cuMemAlloc"
                       : kind == DPK_MEM_SHARED ? "cuMemAllocManaged"
                                                : "cuMemHostAlloc";
    dpk_status_t status = checkCu(rc, call,
                                  std::to_string(size) + " bytes of " + kindName(kind) +
                                      " memory on " + device.label());
    // Pinned host memory that does not fit is host memory, not device memory.
    if (kind == DPK_MEM_HOST && status == DPK_ERROR_OUT_OF_DEVICE_MEMORY)
      return fail(DPK_ERROR_OUT_OF_HOST_MEMORY, rc, plugin::lastError(nullptr));
    return status;
  }
  uintptr_t address = reinterpret_cast<uintptr_t>(base);
  if (padding)
    address = (address + alignment - 1) & ~(static_cast<uintptr_t>(alignment) - 1);
  void *ptr = reinterpret_cast<void *>(address);
  try {
    std::lock_guard<std::mutex> guard(context.lock);
    context.allocations.emplace(ptr, Allocation{kind, base, size});
  } catch (...) {
    freeAllocation(Allocation{kind, base, size});
    throw;
  }
  *out = ptr;
  return DPK_SUCCESS;
}

dpk_status_t memFree(dpk_pl_context_t handle, void *ptr) {
  if (!ptr)
    return DPK_SUCCESS;
  Context &context = *toContext(handle);
  Allocation allocation;
  {
    std::lock_guard<std::mutex> guard(context.lock);
    auto it = context.allocations.find(ptr);
    if (it == context.allocations.end())
      return fail(DPK_ERROR_INVALID_ARGUMENT,
                  "mem_free: pointer was not allocated in this context");
    allocation = it->second;
    context.allocations.erase(it);
  }
  RETURN_ON_FAILURE(makeCurrent(context.native));
  CUDA_RETURN_ON_FAILURE(freeAllocation(allocation),
                         allocation.kind == DPK_MEM_HOST ? "cuMemFreeHost" : "cuMemFree");
  return DPK_SUCCESS;
}

} // namespace dpk::cuda

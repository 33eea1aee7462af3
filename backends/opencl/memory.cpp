// memory.cpp - allocation entry points and pointer translation for each memory strategy.
#include "memory.hpp"

#include "context.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

namespace dpk::opencl {
namespace {

std::string hexAddress(const void *ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", ptr);
  return text;
}

const char *kindName(dpk_mem_kind_t kind) {
  switch (kind) {
  case DPK_MEM_DEVICE: return "device";
  case DPK_MEM_SHARED: return "shared";
  case DPK_MEM_HOST: return "host";
  }
  return "unknown";
}

uint32_t aspectOf(dpk_mem_kind_t kind) {
  switch (kind) {
  case DPK_MEM_DEVICE: return DPK_ASPECT_USM_DEVICE;
  case DPK_MEM_SHARED: return DPK_ASPECT_USM_SHARED;
  case DPK_MEM_HOST: return DPK_ASPECT_USM_HOST;
  }
  return 0;
}

dpk_status_t allocUsm(dpk_pl_context_s &context, dpk_mem_kind_t kind, size_t size, size_t alignment,
                      void **out) {
  const UsmFunctions &usm = context.device->usm;
  cl_device_id device = context.device->native;
  auto align = static_cast<cl_uint>(alignment);
  cl_int status = CL_SUCCESS;
  void *ptr = nullptr;
  const char *call = "";
  switch (kind) {
  case DPK_MEM_DEVICE:
    call = "clDeviceMemAllocINTEL";
    ptr = usm.deviceMemAlloc(context.native, device, nullptr, size, align, &status);
    break;
  case DPK_MEM_SHARED:
    call = "clSharedMemAllocINTEL";
    ptr = usm.sharedMemAlloc(context.native, device, nullptr, size, align, &status);
    break;
  case DPK_MEM_HOST:
    call = "clHostMemAllocINTEL";
    ptr = usm.hostMemAlloc(context.native, nullptr, size, align, &status);
    break;
  }
  DPK_RETURN_ON_FAILURE(checkCl(status, call));
  if (!ptr)
    return fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY, std::string(call) + " returned NULL");
  *out = ptr;
  return DPK_SUCCESS;
}

dpk_status_t allocSvm(dpk_pl_context_s &context, bool fineGrain, size_t size, size_t alignment,
                      void **out) {
  cl_svm_mem_flags flags = CL_MEM_READ_WRITE | (fineGrain ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0);
  void *ptr = clSVMAlloc(context.native, flags, size, static_cast<cl_uint>(alignment));
  if (!ptr) // clSVMAlloc reports no reason
    return fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY,
                "clSVMAlloc returned NULL for " + std::to_string(size) + " bytes");
  *out = ptr;
  return DPK_SUCCESS;
}

/// A buffer, named by an address from a PROT_NONE reservation of the same size: the address can
/// never be a host pointer, and the kernel recycles it when the reservation is unmapped.
dpk_status_t allocBuffer(dpk_pl_context_s &context, size_t size, size_t alignment,
                         Allocation &allocation, void **out) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t reservationSize = size + (alignment > page ? alignment : 0);
  void *reservation =
      mmap(nullptr, reservationSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reservation == MAP_FAILED)
    return fail(DPK_ERROR_OUT_OF_HOST_MEMORY,
                "mmap: cannot reserve " + std::to_string(reservationSize) + " bytes of addresses");
  cl_int status = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context.native, CL_MEM_READ_WRITE, size, nullptr, &status);
  if (status != CL_SUCCESS) {
    munmap(reservation, reservationSize);
    return checkCl(status, "clCreateBuffer");
  }
  uintptr_t address = reinterpret_cast<uintptr_t>(reservation);
  if (alignment > page)
    address = (address + alignment - 1) & ~(uintptr_t(alignment) - 1);
  allocation.buffer = buffer;
  allocation.reservation = reservation;
  allocation.reservationSize = reservationSize;
  *out = reinterpret_cast<void *>(address);
  return DPK_SUCCESS;
}

} // namespace

Location locate(dpk_pl_context_s &context, const void *ptr) {
  auto address = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(context.mutex);
  auto next = context.allocations.upper_bound(address);
  if (next == context.allocations.begin())
    return {};
  auto found = std::prev(next);
  if (address >= found->first + found->second.size)
    return {};
  size_t offset = address - found->first;
  return {true, found->second.buffer, offset, found->second.size - offset};
}

void releaseAllocation(dpk_pl_context_s &context, uintptr_t address, Allocation &allocation) {
  void *ptr = reinterpret_cast<void *>(address);
  switch (context.device->memory) {
  case MemoryStrategyKind::Usm:
    // Blocking: the allocation may still be in use by commands the caller already waited for
    // only through events of another queue.
    context.device->usm.memBlockingFree(context.native, ptr);
    return;
  case MemoryStrategyKind::SvmFine:
  case MemoryStrategyKind::SvmCoarse: clSVMFree(context.native, ptr); return;
  case MemoryStrategyKind::Buffer:
    clReleaseMemObject(allocation.buffer);
    munmap(allocation.reservation, allocation.reservationSize);
    return;
  }
}

dpk_status_t setPointerArgument(dpk_pl_context_s &context, cl_kernel kernel, cl_uint index,
                                const void *ptr, cl_mem *subBuffer) {
  switch (context.device->memory) {
  case MemoryStrategyKind::Usm:
    return checkCl(context.device->usm.setKernelArgMemPointer(kernel, index, ptr),
                   "clSetKernelArgMemPointerINTEL");
  case MemoryStrategyKind::SvmFine:
  case MemoryStrategyKind::SvmCoarse:
    return checkCl(clSetKernelArgSVMPointer(kernel, index, ptr), "clSetKernelArgSVMPointer");
  case MemoryStrategyKind::Buffer: break;
  }
  if (!ptr)
    return checkCl(clSetKernelArg(kernel, index, sizeof(cl_mem), nullptr), "clSetKernelArg");
  Location where = locate(context, ptr);
  if (!where.inAllocation)
    return fail(DPK_ERROR_INVALID_ARGUMENT,
                "argument " + std::to_string(index) + ": " + hexAddress(ptr) +
                    " is not an allocation of this OpenCL context (the buffer memory strategy "
                    "cannot pass host pointers to kernels)");
  if (where.offset == 0)
    return checkCl(clSetKernelArg(kernel, index, sizeof(cl_mem), &where.buffer), "clSetKernelArg");
  size_t alignment = context.device->baseAddressAlignment;
  if (where.offset % alignment != 0)
    return fail(DPK_ERROR_UNSUPPORTED,
                "argument " + std::to_string(index) + ": pointer is " +
                    std::to_string(where.offset) +
                    " bytes into its allocation; the buffer memory strategy passes such a pointer "
                    "as a sub-buffer, whose offset must be a multiple of "
                    "CL_DEVICE_MEM_BASE_ADDR_ALIGN (" +
                    std::to_string(alignment) + " bytes) on this device");
  cl_buffer_region region = {where.offset, where.available};
  cl_int status = CL_SUCCESS;
  cl_mem sub = clCreateSubBuffer(where.buffer, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                 &region, &status);
  DPK_RETURN_ON_FAILURE(checkCl(status, "clCreateSubBuffer"));
  *subBuffer = sub;
  return checkCl(clSetKernelArg(kernel, index, sizeof(cl_mem), &sub), "clSetKernelArg");
}

dpk_status_t memAlloc(void **out, dpk_pl_context_s *context, dpk_mem_kind_t kind, size_t size, size_t alignment) {
  dpk_pl_device_t device = context->device;
  if (!(device->usmAspects & aspectOf(kind)))
    return fail(DPK_ERROR_UNSUPPORTED,
                std::string("mem_alloc: ") + kindName(kind) +
                    " allocations are not available with the OpenCL memory strategy '" +
                    memoryStrategyName(device->memory) + "' of " + device->props.name);
  if (device->maxAllocSize && size > device->maxAllocSize)
    return fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY,
                "mem_alloc: " + std::to_string(size) +
                    " bytes exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE (" +
                    std::to_string(device->maxAllocSize) + ")");
  Allocation allocation;
  allocation.size = size;
  allocation.kind = kind;
  void *ptr = nullptr;
  switch (device->memory) {
  case MemoryStrategyKind::Usm:
    DPK_RETURN_ON_FAILURE(allocUsm(*context, kind, size, alignment, &ptr));
    break;
  case MemoryStrategyKind::SvmFine:
  case MemoryStrategyKind::SvmCoarse:
    DPK_RETURN_ON_FAILURE(
        allocSvm(*context, device->memory == MemoryStrategyKind::SvmFine, size, alignment, &ptr));
    break;
  case MemoryStrategyKind::Buffer:
    DPK_RETURN_ON_FAILURE(allocBuffer(*context, size, alignment, allocation, &ptr));
    break;
  }
  uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  try {
    std::lock_guard<std::mutex> lock(context->mutex);
    context->allocations.emplace(address, allocation);
  } catch (...) {
    releaseAllocation(*context, address, allocation);
    throw;
  }
  *out = ptr;
  return DPK_SUCCESS;
}

dpk_status_t memFree(dpk_pl_context_s *context, void *ptr) {
  if (!ptr)
    return DPK_SUCCESS;
  Allocation allocation;
  {
    std::lock_guard<std::mutex> lock(context->mutex);
    auto found = context->allocations.find(reinterpret_cast<uintptr_t>(ptr));
    if (found == context->allocations.end())
      return fail(DPK_ERROR_INVALID_ARGUMENT,
                  "mem_free: " + hexAddress(ptr) + " is not an allocation of this context");
    allocation = found->second;
    context->allocations.erase(found);
  }
  releaseAllocation(*context, reinterpret_cast<uintptr_t>(ptr), allocation);
  return DPK_SUCCESS;
}

} // namespace dpk::opencl

// memory.cpp - host allocations. Every kind is plain host memory, so device, shared and host
// allocations are all directly addressable by the CPU and by kernels.
#include "device.hpp"
#include "memory.hpp"

#include "PluginSupport.h"

#include <cstdlib>
#include <string>

namespace plugin = dpk::plugin;

namespace dpk::host {

dpk_status_t memAlloc(dpk_pl_context_t context, dpk_mem_kind_t kind, size_t size, size_t alignment,
                      void **out) {
  if (!context || !out)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "mem_alloc: null argument");
  if (kind != DPK_MEM_DEVICE && kind != DPK_MEM_SHARED && kind != DPK_MEM_HOST)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "mem_alloc: unknown memory kind " + std::to_string(kind));
  if (size == 0)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "mem_alloc: size is 0");
  // 64 bytes: a cache line and a full AVX-512 vector, so kernels never split vector accesses.
  size_t align = alignment > 64 ? alignment : 64;
  if ((align & (align - 1)) != 0)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "mem_alloc: alignment " + std::to_string(alignment) + " is not a power of two");
  size_t rounded = (size + align - 1) / align * align;
  void *ptr = std::aligned_alloc(align, rounded);
  if (!ptr)
    return plugin::fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY, "mem_alloc: cannot allocate " + std::to_string(size) + " bytes of host memory");
  *out = ptr;
  return DPK_SUCCESS;
}

dpk_status_t memFree(dpk_pl_context_t context, void *ptr) {
  if (!context)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "mem_free: null context");
  std::free(ptr);
  return DPK_SUCCESS;
}

} // namespace dpk::host

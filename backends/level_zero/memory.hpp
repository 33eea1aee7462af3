// memory.hpp - USM allocations: zeMemAllocDevice, zeMemAllocShared, zeMemAllocHost.
#ifndef DPK_BACKENDS_LEVEL_ZERO_MEMORY_HPP
#define DPK_BACKENDS_LEVEL_ZERO_MEMORY_HPP

#include "context.hpp"

namespace dpk::level_zero {

dpk_status_t memAlloc(dpk_pl_context_t context, dpk_mem_kind_t kind, size_t size, size_t alignment,
                      void **out);
dpk_status_t memFree(dpk_pl_context_t context, void *ptr);

} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_MEMORY_HPP

// memory.hpp - USM-style allocations: device memory, managed (shared) memory, pinned host memory.
#ifndef DPK_BACKENDS_CUDA_MEMORY_HPP
#define DPK_BACKENDS_CUDA_MEMORY_HPP

#include "context.hpp"

namespace dpk::cuda {

/// Frees one allocation with the call matching its kind (the context must be current).
CUresult freeAllocation(const Allocation &allocation);

dpk_status_t memAlloc(dpk_pl_context_t context, dpk_mem_kind_t kind, size_t size, size_t alignment,
                      void **out);
dpk_status_t memFree(dpk_pl_context_t context, void *ptr);

} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_MEMORY_HPP

// memory.hpp - USM-style allocations: device memory, managed (shared) memory, pinned host memory.
#ifndef DPK_BACKENDS_CUDA_MEMORY_HPP
#define DPK_BACKENDS_CUDA_MEMORY_HPP

#include "context.hpp"
#include "entries.hpp"

namespace dpk::cuda {

/// Frees one allocation with the call matching its kind (the context must be current).
CUresult freeAllocation(const Allocation &allocation);


} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_MEMORY_HPP

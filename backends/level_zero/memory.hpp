// memory.hpp - USM allocations: zeMemAllocDevice, zeMemAllocShared, zeMemAllocHost.
#ifndef DPK_BACKENDS_LEVEL_ZERO_MEMORY_HPP
#define DPK_BACKENDS_LEVEL_ZERO_MEMORY_HPP

#include "context.hpp"
#include "entries.hpp"

namespace dpk::level_zero {


} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_MEMORY_HPP

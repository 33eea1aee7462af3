// geometry.hpp - turns a dpk launch configuration into a CUDA grid and block.
//
// Pure functions (no driver calls) so that tests can check them on any machine.
// Index mapping (docs/architecture.md): dpk dimension d of an n-dimensional launch is CUDA dimension
// n-1-d, so dpk's last, fastest-varying dimension is CUDA x and consecutive work-items of a warp
// touch consecutive elements.
#ifndef DPK_BACKENDS_CUDA_GEOMETRY_HPP
#define DPK_BACKENDS_CUDA_GEOMETRY_HPP

#include "dpk/dpk_types.h"

#include <cstdint>
#include <string>

namespace dpk::cuda {

/// Limits of one kernel on one device, in CUDA order (x, y, z).
struct BlockLimits {
  uint64_t maxThreads = 0; // per block, for this kernel
  uint64_t maxBlock[3] = {0, 0, 0};
  uint64_t maxGrid[3] = {0, 0, 0};
};

/// Grid and block in CUDA order (x, y, z).
struct Geometry {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
};

/// Threads per block a Range launch aims for: a multiple of the warp size that leaves room for
/// several blocks per SM.
constexpr uint64_t RangeBlockThreads = 256;

/// The largest divisor of `value` that is at most `limit` (1 when limit is 0).
uint64_t largestDivisorAtMost(uint64_t value, uint64_t limit);

/// Computes the launch of a well-formed configuration (1-3 dimensions, no empty one, local sizes
/// all zero or all dividing: the core checks that before the plugin sees it). A Range launch
/// (local_size all zero) picks a block whose sides divide the global sizes exactly, filling
/// CUDA x first, so the generated code never sees a partial block. Returns "" on success, else
/// which device or kernel limit the launch exceeds (the caller reports DPK_ERROR_INVALID_RANGE).
std::string computeGeometry(const dpk_launch_config_t &config, const BlockLimits &limits,
                            Geometry &out);

} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_GEOMETRY_HPP

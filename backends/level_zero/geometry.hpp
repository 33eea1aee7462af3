// geometry.hpp - dpk launch configurations in Level Zero's terms: pure functions, so they are
// tested on machines without a Level Zero driver.
//
// Index mapping (docs/architecture.md): dpk dimension d of an n-dimensional launch is Level Zero
// dimension n-1-d, so dpk's last, fastest-varying dimension is group dimension x.
#ifndef DPK_BACKENDS_LEVEL_ZERO_GEOMETRY_HPP
#define DPK_BACKENDS_LEVEL_ZERO_GEOMETRY_HPP

#include "dpk/dpk_types.h"

#include <cstdint>
#include <string>

namespace dpk::level_zero {

/// A launch in Level Zero order (x, y, z); unused dimensions are 1.
struct ApiRange {
  uint32_t global[3] = {1, 1, 1};
  uint32_t local[3] = {1, 1, 1}; // all 1 and `range` set for a Range launch
  bool range = false;
};

/// Device limits in Level Zero order (ze_device_compute_properties_t).
struct GroupLimits {
  uint64_t maxTotal = 0;
  uint64_t maxSize[3] = {0, 0, 0};
  uint64_t maxCount[3] = {0, 0, 0};
};

/// Reverses the dimensions of a well-formed configuration (the core checks its shape) and checks
/// that it fits the API's 32-bit sizes. Returns "" or why not.
std::string toApiOrder(const dpk_launch_config_t &config, ApiRange &out);

/// Checks a group size (chosen by the caller or by zeKernelSuggestGroupSize, whose answer the
/// core never saw) against the range and the device, and computes the group counts. Returns ""
/// or why the launch cannot run.
std::string groupCounts(const ApiRange &range, const uint32_t group[3], const GroupLimits &limits,
                        uint32_t dims, uint32_t counts[3]);

} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_GEOMETRY_HPP

// geometry.cpp - dimension reversal and group counts for Level Zero launches.
#include "geometry.hpp"

#include <cassert>

namespace dpk::level_zero {

std::string toApiOrder(const dpk_launch_config_t &config, ApiRange &out) {
  assert(config.dims >= 1 && config.dims <= 3 && "the core checks the range's shape");
  const uint32_t dims = config.dims;
  bool range = true;
  ApiRange r;
  for (uint32_t d = 0; d < dims; ++d) {
    uint32_t i = dims - 1 - d;
    assert(config.global_size[d] != 0 && "the core checks the range's shape");
    // zeKernelSuggestGroupSize and ze_group_count_t take 32-bit sizes.
    if (config.global_size[d] > UINT32_MAX)
      return "global size " + std::to_string(config.global_size[d]) + " of dimension " +
             std::to_string(d) + " exceeds 2^32-1";
    if (config.local_size[d] > UINT32_MAX)
      return "local size of dimension " + std::to_string(d) + " exceeds 2^32-1";
    r.global[i] = static_cast<uint32_t>(config.global_size[d]);
    r.local[i] = config.local_size[d] ? static_cast<uint32_t>(config.local_size[d]) : 1;
    range = range && config.local_size[d] == 0;
  }
  r.range = range;
  out = r;
  return {};
}

std::string groupCounts(const ApiRange &range, const uint32_t group[3], const GroupLimits &limits,
                        uint32_t dims, uint32_t counts[3]) {
  uint64_t total = 1;
  for (int i = 0; i < 3; ++i) {
    uint32_t d = i < static_cast<int>(dims) ? dims - 1 - i : 0;
    if (group[i] == 0)
      return "group size is 0 in dimension " + std::to_string(d);
    if (range.global[i] % group[i] != 0)
      return "local size " + std::to_string(group[i]) + " does not divide global size " +
             std::to_string(range.global[i]) + " in dimension " + std::to_string(d);
    if (group[i] > limits.maxSize[i])
      return "local size " + std::to_string(group[i]) + " in dimension " + std::to_string(d) +
             " exceeds the device's limit of " + std::to_string(limits.maxSize[i]);
    total *= group[i];
    counts[i] = range.global[i] / group[i];
    if (counts[i] > limits.maxCount[i])
      return std::to_string(counts[i]) + " work-groups in dimension " + std::to_string(d) +
             " exceed the device's limit of " + std::to_string(limits.maxCount[i]);
  }
  if (total > limits.maxTotal)
    return "work-group of " + std::to_string(total) + " work-items exceeds the device's limit of " +
           std::to_string(limits.maxTotal) + " work-items per work-group";
  return {};
}

} // namespace dpk::level_zero

// LaunchRange.cpp - the well-formedness rules of launch ranges.
#include "runtime/LaunchRange.h"

namespace dpk::runtime {

bool isRangeLaunch(const dpk_launch_config_t &config) {
  for (uint32_t d = 0; d < config.dims && d < 3; ++d) {
    if (config.local_size[d] != 0)
      return false;
  }
  return true;
}

bool isEmptyRange(const dpk_launch_config_t &config) {
  if (config.dims < 1 || config.dims > 3)
    return false;
  for (uint32_t d = 0; d < config.dims; ++d) {
    if (config.global_size[d] == 0)
      return true;
  }
  return false;
}

bool isWellFormedRange(const dpk_launch_config_t &config, bool allowEmpty) {
  if (config.dims < 1 || config.dims > 3)
    return false;
  uint64_t items = 1;
  bool range = true;
  for (uint32_t d = 0; d < config.dims; ++d) {
    uint64_t global = config.global_size[d];
    if ((global == 0 && !allowEmpty) || __builtin_mul_overflow(items, global, &items))
      return false;
    range = range && config.local_size[d] == 0;
  }
  if (range)
    return true;
  for (uint32_t d = 0; d < config.dims; ++d) {
    uint64_t local = config.local_size[d];
    if (local == 0 || config.global_size[d] % local != 0)
      return false;
  }
  return true;
}

std::string launchRangeProblem(const dpk_launch_config_t &config, bool allowEmpty) {
  // This runs on every launch (twice: at the launch and at the plugin boundary), so the common
  // case is one cheap predicate and the message is built only on failure.
  if (isWellFormedRange(config, allowEmpty))
    return {};
  if (config.dims < 1 || config.dims > 3)
    return "dims is " + std::to_string(config.dims) + ", must be 1, 2 or 3";
  uint64_t items = 1;
  for (uint32_t d = 0; d < config.dims; ++d) {
    uint64_t global = config.global_size[d];
    if (global == 0 && !allowEmpty)
      return "global size of dimension " + std::to_string(d) + " is 0";
    if (__builtin_mul_overflow(items, global, &items))
      return "the global size has more than 2^64 work-items (dimension " + std::to_string(d) +
             " is " + std::to_string(global) + ")";
  }
  if (isRangeLaunch(config))
    return {};
  for (uint32_t d = 0; d < config.dims; ++d) {
    uint64_t local = config.local_size[d];
    uint64_t global = config.global_size[d];
    if (local == 0)
      return "local size of dimension " + std::to_string(d) +
             " is 0 while others are set: give every local size (NdRange) or none (Range)";
    if (global % local != 0)
      return "local size " + std::to_string(local) + " does not divide global size " +
             std::to_string(global) + " in dimension " + std::to_string(d);
  }
  return {};
}

} // namespace dpk::runtime

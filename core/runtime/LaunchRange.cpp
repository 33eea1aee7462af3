// LaunchRange.cpp - the well-formedness rules of launch ranges, the shapes the core picks and
// the device limits.
#include "runtime/LaunchRange.h"

#include <algorithm>

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
    if ((global == 0 && !allowEmpty) || __builtin_mul_overflow(items, global, &items) ||
        items > kMaxRangeItems)
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
    if (__builtin_mul_overflow(items, global, &items) || items > kMaxRangeItems)
      return "the global size has more than 2^63 - 1 work-items (dimension " +
             std::to_string(d) + " is " + std::to_string(global) +
             "): kernels number work-items with signed 64-bit ids";
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

namespace dpk::runtime {
namespace {

uint64_t floorPowerOfTwo(uint64_t value) {
  return value == 0 ? 0 : uint64_t(1) << (63 - __builtin_clzll(value));
}

uint64_t ceilPowerOfTwo(uint64_t value) {
  return value <= 1 ? 1 : uint64_t(1) << (64 - __builtin_clzll(value - 1));
}

/// The largest divisor of `value` that is at most `limit` (>= 1).
uint64_t largestDivisorAtMost(uint64_t value, uint64_t limit) {
  if (limit >= value)
    return value;
  for (uint64_t d = limit; d > 1; --d) {
    if (value % d == 0)
      return d;
  }
  return 1;
}

std::string sizesText(const uint64_t *sizes, uint32_t dims) {
  std::string text;
  for (uint32_t d = 0; d < dims; ++d)
    text += (d ? "x" : "") + std::to_string(sizes[d]);
  return text;
}

uint64_t ceilDiv(uint64_t value, uint64_t divisor) { return value / divisor + (value % divisor != 0); }

} // namespace

uint64_t groupItemsFor(uint64_t privateBytes, const dpk_device_props_t &props) {
  if (props.type != DPK_DEVICE_TYPE_CPU || privateBytes == 0)
    return 0;
  return std::max<uint64_t>(1, kCpuPrivateBytesPerGroup / privateBytes);
}

void pickRangeLocal(const dpk_launch_config_t &config, const dpk_device_props_t &props,
                    bool padded, uint64_t local[3], uint64_t maxGroupItems) {
  const uint32_t dims = config.dims;
  uint64_t budget = props.type == DPK_DEVICE_TYPE_CPU ? kRangeGroupItemsCpu : kRangeGroupItems;
  if (props.max_work_group_size != 0 && props.max_work_group_size < budget)
    budget = props.max_work_group_size;
  if (maxGroupItems != 0 && maxGroupItems < budget)
    budget = maxGroupItems;
  if (padded)
    budget = floorPowerOfTwo(budget);
  local[0] = local[1] = local[2] = 1;
  for (uint32_t i = 0; i < dims; ++i) {
    uint32_t d = dims - 1 - i; // the last dimension first
    // max_work_item_sizes lists a 3-D launch; an n-D launch uses its last n entries.
    uint64_t cap = budget;
    uint64_t itemLimit = props.max_work_item_sizes[3 - dims + d];
    if (itemLimit != 0 && itemLimit < cap)
      cap = padded ? floorPowerOfTwo(itemLimit) : itemLimit;
    uint64_t global = config.global_size[d];
    uint64_t side = 1;
    if (!padded)
      side = largestDivisorAtMost(global, cap);
    else if (d == 0)
      side = cap; // dimension 0 takes what is left, whatever its size: one shape for all 1-D
    else
      side = std::min(cap, ceilPowerOfTwo(global));
    local[d] = side;
    budget /= side;
  }
}

std::string deviceRangeProblem(const dpk_launch_config_t &deviceConfig, uint64_t requestedItems,
                               const dpk_device_props_t &props) {
  const uint32_t dims = deviceConfig.dims;
  const uint64_t *global = deviceConfig.global_size;
  const uint64_t *local = deviceConfig.local_size;
  auto range = [&] {
    std::string text = "range " + sizesText(global, dims);
    if (!isRangeLaunch(deviceConfig))
      text += " in work-groups of " + sizesText(local, dims);
    return text;
  };
  uint64_t items = 1; // what the device runs: more than requested when a Range was padded
  bool overflow = false;
  for (uint32_t d = 0; d < dims; ++d)
    overflow = overflow || __builtin_mul_overflow(items, global[d], &items);
  if (overflow || items > kMaxRangeItems)
    return range() + " has more than 2^63 - 1 work-items";
  if (props.type == DPK_DEVICE_TYPE_CPU && requestedItems > kMaxCpuRangeItems)
    return "the range has " + std::to_string(requestedItems) +
           " work-items; a launch on a CPU device runs at most 2^44 (" +
           std::to_string(kMaxCpuRangeItems) +
           "): split the work into several launches, or loop inside the kernel";
  if (props.max_total_items != 0 && items > props.max_total_items)
    return range() + " has " + std::to_string(items) + " work-items; the device runs at most " +
           std::to_string(props.max_total_items) + " in one launch";

  if (isRangeLaunch(deviceConfig)) {
    // The backend picks the shape: refuse only what even its largest work-groups exceed.
    uint64_t fewestGroups = 1;
    for (uint32_t d = 0; d < dims; ++d) {
      uint64_t widest = props.max_work_item_sizes[3 - dims + d];
      uint64_t groups = widest ? ceilDiv(global[d], widest) : 1;
      uint64_t limit = props.max_num_groups[3 - dims + d];
      if (limit != 0 && groups > limit)
        return range() + " needs at least " + std::to_string(groups) +
               " work-groups in dimension " + std::to_string(d) + " (at most " +
               std::to_string(widest) + " work-items each); the device runs at most " +
               std::to_string(limit) + " in that dimension";
    }
    if (props.max_work_group_size != 0)
      fewestGroups = ceilDiv(items, props.max_work_group_size);
    if (props.max_total_groups != 0 && fewestGroups > props.max_total_groups)
      return range() + " needs at least " + std::to_string(fewestGroups) +
             " work-groups (at most " + std::to_string(props.max_work_group_size) +
             " work-items each); the device runs at most " +
             std::to_string(props.max_total_groups) + " in one launch";
    return {};
  }

  uint64_t groupItems = 1;
  uint64_t groups = 1;
  for (uint32_t d = 0; d < dims; ++d) {
    groupItems *= local[d];
    uint64_t limit = props.max_work_item_sizes[3 - dims + d];
    if (limit != 0 && local[d] > limit)
      return "local size " + std::to_string(local[d]) + " in dimension " + std::to_string(d) +
             " exceeds the device's maximum of " + std::to_string(limit);
    uint64_t groupsHere = global[d] / local[d];
    groups *= groupsHere; // at most `items`: no overflow
    uint64_t groupLimit = props.max_num_groups[3 - dims + d];
    if (groupLimit != 0 && groupsHere > groupLimit)
      return range() + " has " + std::to_string(groupsHere) + " work-groups in dimension " +
             std::to_string(d) + "; the device runs at most " + std::to_string(groupLimit) +
             " in that dimension";
  }
  if (props.max_work_group_size != 0 && groupItems > props.max_work_group_size)
    return "a work-group of " + std::to_string(groupItems) + " work-items (" +
           sizesText(local, dims) + ") exceeds the device's maximum work-group size of " +
           std::to_string(props.max_work_group_size);
  if (props.max_total_groups != 0 && groups > props.max_total_groups)
    return range() + " has " + std::to_string(groups) +
           " work-groups; the device runs at most " + std::to_string(props.max_total_groups) +
           " in one launch";
  return {};
}

} // namespace dpk::runtime

// LaunchRange.h - the rules every launch range obeys, written once: the launch path
// (validateRange, which names the kernel) and the plugin boundary (PluginValidation) apply them;
// the work-group shapes the core picks for Range launches, and the device limits every range is
// checked against before a plugin sees it (docs/reliability.md, "Launch ranges").
#ifndef DPK_CORE_RUNTIME_LAUNCHRANGE_H
#define DPK_CORE_RUNTIME_LAUNCHRANGE_H

#include "dpk/dpk_types.h"
#include "dpk/plugin.h"

#include <cstdint>
#include <string>

namespace dpk::runtime {

/// The most work-items one launch may have on any device: kernels see ids and sizes as signed
/// 64-bit integers. Devices may allow fewer (dpk_device_props_t's launch limits).
constexpr uint64_t kMaxRangeItems = uint64_t(INT64_MAX);

/// True when no local size is set: the backend picks the work-group shape.
bool isRangeLaunch(const dpk_launch_config_t &config);

/// True when dims is 1-3 and some global size is 0: the launch has no work-items. A launch
/// accepts such a range (as SYCL and kapi do) and does nothing; no plugin ever sees one.
bool isEmptyRange(const dpk_launch_config_t &config);

/// Whether the range is well formed (the rules below), without building a message.
/// `allowEmpty`: a global size of 0 is allowed (launches); plugins are never given one.
bool isWellFormedRange(const dpk_launch_config_t &config, bool allowEmpty = false);

/// What is wrong with a range, or "" when it is well formed: 1-3 dims, every global size > 0
/// (or >= 0 with `allowEmpty`), local sizes all zero (Range) or all set and dividing the global
/// size, and no more than kMaxRangeItems work-items in all. Device limits are checked
/// separately, against the device's properties (deviceRangeProblem).
std::string launchRangeProblem(const dpk_launch_config_t &config, bool allowEmpty = false);

/// Work-items per work-group the core aims for when it picks the shape of a Range launch
/// (devices that compile SPIR-V or OpenCL C): 1024 on CPUs, where a work-group is a loop one
/// thread runs and its fixed cost matters (PoCL and Intel's runtime, 1M items: 1024 is 20-25%
/// faster than 256, and within 10% of 4096), 256 elsewhere (GPUs: a few warps per group).
constexpr uint64_t kRangeGroupItemsCpu = 1024;
constexpr uint64_t kRangeGroupItems = 256;

/// The most work-items one launch may have on a CPU device (the host, OpenCL CPUs): at about a
/// work-item per nanosecond per core, 2^44 is minutes to hours of work; more is almost surely a
/// size gone wrong, and would keep the process busy for days. Split such work into launches.
constexpr uint64_t kMaxCpuRangeItems = uint64_t(1) << 44;

/// The work-group shape the core gives a Range launch (`config` has no local size; dims 1-3,
/// no global size 0) on a device with `props`: at most kRangeGroupItems(Cpu) work-items and within
/// the device's work-group and work-item limits, filling dpk's last (fastest) dimension first.
/// `padded`: every side is a power of two, dimension 0 taking what the others leave, so that a
/// handful of shapes serve every global size (the range then runs in pieces rounded up to the
/// shape, whose builds hide the padding: compiler/RangeGuard.h). Otherwise each side divides its
/// global size (the largest divisor within the budget), for kernels that cannot run in pieces.
/// `maxGroupItems` (0: none) caps the work-group further (groupItemsFor).
void pickRangeLocal(const dpk_launch_config_t &config, const dpk_device_props_t &props,
                    bool padded, uint64_t local[3], uint64_t maxGroupItems = 0);

/// Private memory the work-items of one work-group may hold together on a CPU device: OpenCL CPU
/// runtimes keep it on a worker thread's stack.
constexpr uint64_t kCpuPrivateBytesPerGroup = uint64_t(512) << 10;

/// The cap on work-group size for a kernel with `privateBytes` of private memory per work-item
/// on a device with `props` (0: none).
uint64_t groupItemsFor(uint64_t privateBytes, const dpk_device_props_t &props);

/// `value` rounded up to a multiple of `step` (> 0); `value` <= kMaxRangeItems, so no overflow.
inline uint64_t roundUp(uint64_t value, uint64_t step) {
  return (value + step - 1) / step * step;
}

/// Which limit of the device `props` the launch exceeds, or "" when none. `deviceConfig` is the
/// well-formed range as the plugin gets it: local sizes set (an NdRange, or a shape the core
/// picked), or all zero when the backend picks the shape, in which case only what no shape
/// could avoid is refused. `requestedItems` is the number of work-items the caller asked for
/// (fewer than deviceConfig's when a Range was rounded up). The message names the range and the
/// limit; the caller names the kernel and the device.
std::string deviceRangeProblem(const dpk_launch_config_t &deviceConfig, uint64_t requestedItems,
                               const dpk_device_props_t &props);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_LAUNCHRANGE_H

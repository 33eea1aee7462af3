// LaunchRange.h - the rules every launch range obeys, written once: the launch path
// (validateRange, which names the kernel) and the plugin boundary (PluginValidation) apply them.
#ifndef DPK_CORE_RUNTIME_LAUNCHRANGE_H
#define DPK_CORE_RUNTIME_LAUNCHRANGE_H

#include "dpk/dpk_types.h"

#include <string>

namespace dpk::runtime {

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
/// size, and no more than 2^64 work-items in all. Device limits are checked separately, against
/// the device's properties.
std::string launchRangeProblem(const dpk_launch_config_t &config, bool allowEmpty = false);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_LAUNCHRANGE_H

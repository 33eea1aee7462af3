// PluginValidation.h - the plugin boundary's argument checks, written once for every backend.
//
// The core calls a plugin only through a ValidatedDispatch: one member function per row of
// dpk/plugin_entries.def, named like the table's field, which checks the arguments (null handles,
// null out-parameters, launch ranges, argument kinds, fill patterns, flags) and calls the plugin
// only when they pass. So backends speak only their vendor API, every backend answers a bad
// argument with the same status, and the checks have one home, as in Unified Runtime's
// validation layer. A rejected call returns its status without reaching the plugin and leaves
// its message in lastValidationFailure(), which Plugin::check reports.
//
// Status conventions: a NULL handle is DPK_ERROR_INVALID_HANDLE; a NULL out-parameter or data
// pointer, an unknown enumerator or flag, a bad size is DPK_ERROR_INVALID_ARGUMENT; a malformed
// launch range is DPK_ERROR_INVALID_RANGE.
#ifndef DPK_CORE_RUNTIME_PLUGINVALIDATION_H
#define DPK_CORE_RUNTIME_PLUGINVALIDATION_H

#include "dpk/plugin.h"

namespace dpk::runtime {

class ValidatedDispatch {
public:
  ValidatedDispatch() = default;
  explicit ValidatedDispatch(const dpk_plugin_dispatch_t &raw) : raw_(raw) {}

  /// The plugin's own table (for the loader's checks and for tests of the raw plugin).
  const dpk_plugin_dispatch_t &raw() const { return raw_; }

#define DPK_PLUGIN_ENTRY(kind, return_type, field, Name, parameters, arguments)                \
  return_type field parameters const;
#include "dpk/plugin_entries.def"
#undef DPK_PLUGIN_ENTRY

  /// enqueue_launch without its checks, for launches with a plan (LaunchPlan.h) only. A plan
  /// exists because a launch with the same configuration and argument kinds and sizes passed
  /// these checks and reached the plugin; what may differ per call, the planned launch checks
  /// itself (argument values are not null, dependencies are plugin events of its device).
  dpk_status_t enqueueLaunchPlanned(dpk_pl_event_t *out, dpk_pl_queue_t queue,
                                    dpk_pl_kernel_t kernel, const dpk_launch_config_t *config,
                                    uint32_t numArgs, const dpk_kernel_arg_t *args,
                                    uint32_t numDeps, const dpk_pl_event_t *deps) const;

private:
  dpk_plugin_dispatch_t raw_{};
};

/// The message of this thread's most recent validated call when the checks rejected it, or
/// nullptr when that call passed them (the plugin's last_error then has the story).
const char *lastValidationFailure();

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_PLUGINVALIDATION_H

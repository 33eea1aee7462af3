// RuntimePolicy.h - the runtime's one seam to core/policy: the policy in effect, plugin and
// device decisions, fallback decisions and diagnostics records.
//
// Everything the runtime asks of the policy goes through here, so the rest of core/runtime
// reads as plain scheduling code.
#ifndef DPK_CORE_RUNTIME_RUNTIMEPOLICY_H
#define DPK_CORE_RUNTIME_RUNTIMEPOLICY_H

#include "diagnostics/Diagnostics.h"
#include "policy/FallbackDecision.h"
#include "policy/Policy.h"
#include "support/Error.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpk::runtime {

/// Loads the policy (file + environment) and configures diagnostics. Called once at runtime
/// start; a failure is the runtime's init error.
Expected<policy::Policy> loadRuntimePolicy();

/// Lets device filters name a backend that only a plugin file declares (test or third-party
/// plugins), so "!fault:*" parses before the plugin is loaded.
void registerPluginBackend(const std::string &backend);

/// The reason the policy forbids loading `backend`, or nullopt when it may be loaded.
std::optional<std::string> policyRejectsBackend(const policy::Policy &policy,
                                                const std::string &backend);

/// Parses a filter string (DPK_ERROR_PARSE pointing at the bad character).
Expected<policy::FilterList> parseDeviceFilter(std::string_view text);

/// Ranks devices under a filter: eligible best first, then rejected, each with its reason.
policy::DeviceRanking rankDevicesBy(const policy::FilterList &filter,
                                    const std::vector<policy::DeviceIdentity> &devices);

/// The selector of a kernel (global selector or the first matching override) and its rule.
policy::SelectorChoice kernelSelector(const policy::Policy &policy, std::string_view kernel);

/// The failure class of a status, or nullopt for the caller's own mistakes.
std::optional<policy::FailureClass> failureClassOf(dpk_status_t status);

/// The policy's decision for a failure of `kernel` on `device`.
policy::FallbackDecision decideFallback(const policy::Policy &policy, std::string_view kernel,
                                        std::string_view device, policy::FailureClass failure,
                                        std::string_view cause);
void reportFallbackRun(const policy::FallbackDecision &decision, std::string_view hostDevice);

/// Diagnostics: true when `level` records are produced; emit one record.
bool diagnosticsEnabled(int level);
void emitDiagnostic(int level, std::string_view event, const diag::Fields &fields);
void setDiagnosticsCallback(diag::Callback callback, void *payload);
/// Level 4 stage dump (no-op below level 4).
void dumpCompileStage(std::string_view kernel, std::string_view stage, std::string_view extension,
                      std::string_view bytes);
/// The folder level-4 dumps go to, "" below level 4.
std::string stageDumpDirectory();

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_RUNTIMEPOLICY_H

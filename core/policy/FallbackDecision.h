// Fallback.h - what to do when a kernel cannot run on its selected device: run it on the host
// (with or without a warning) or fail with a typed error. The decision is pure; reporting it
// (diagnostics record, once-per-key warning) is a separate step so callers can decide first and
// report after the host run succeeded.
#ifndef DPK_CORE_POLICY_FALLBACK_H
#define DPK_CORE_POLICY_FALLBACK_H

#include "policy/Policy.h"
#include "support/Error.h"

#include <optional>
#include <string>
#include <string_view>

namespace dpk::policy {

/// The failure class of a status coming back from a plugin or the compiler, or nullopt for
/// statuses that are the caller's own mistake (invalid argument, invalid range...) and must never
/// fall back: NO_DEVICE, PLUGIN_LOAD/ABI_MISMATCH, COMPILE, LAUNCH/DEVICE, OUT_OF_DEVICE_MEMORY.
std::optional<FailureClass> classifyStatus(dpk_status_t status);
/// The status a denied failure is reported with (NoDevice -> DPK_ERROR_NO_DEVICE, ...).
dpk_status_t statusFor(FailureClass failure);

enum class FallbackAction {
  Fail,     // return `error` to the caller
  RunOnHost // run the kernel on the host backend instead
};

struct FallbackDecision {
  FallbackAction action = FallbackAction::Fail;
  FallbackMode mode = FallbackMode::Deny; // the mode that applied (Deny when not covered)
  FailureClass failure = FailureClass::NoDevice;
  std::string kernel;
  std::string device; // the device that failed, "opencl:cpu:0" ("" when there was none)
  std::string cause;  // the underlying message (build log, plugin error)
  std::string rule;   // the policy rule that decided: origin of the fallback settings
  /// Warn: the warning text, shown once per (kernel, device, failure). Otherwise empty.
  std::string warning;
  /// Fail: the typed error naming kernel, device and cause. Success otherwise.
  Error error;
};

/// Decides for one failure. `device` is the failed device's canonical filter string; a failure
/// on the host device itself never falls back (there is nowhere else to go).
FallbackDecision decide(const Policy &policy, std::string_view kernel, std::string_view device,
                        FailureClass failure, std::string_view cause);

/// Reports a RunOnHost decision once the kernel ran on `hostDevice`: under Warn, the first time
/// for its (kernel, device, failure) a level-0 "fallback" record with the warning (shown at every
/// diagnostics level); otherwise a level-1 "fallback" record. Does nothing for Fail decisions.
void reportFallback(const FallbackDecision &decision, std::string_view hostDevice);

} // namespace dpk::policy

#endif // DPK_CORE_POLICY_FALLBACK_H

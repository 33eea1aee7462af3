// Fallback.cpp - fallback decisions (pure) and their reporting (diagnostics, warn once).
#include "policy/FallbackDecision.h"

#include "diagnostics/Diagnostics.h"

#include <algorithm>

namespace dpk::policy {
namespace {

/// How a failure reads in a sentence: "compile failure", "out of device memory".
const char *failureDescription(FailureClass failure) {
  switch (failure) {
  case FailureClass::NoDevice:
    return "no matching device";
  case FailureClass::PluginLoad:
    return "plugin load failure";
  case FailureClass::Compile:
    return "compile failure";
  case FailureClass::Launch:
    return "launch failure";
  case FailureClass::OutOfMemory:
    return "out of device memory";
  }
  return "failure";
}

bool isHostDevice(std::string_view device) {
  return device == "host" || device.substr(0, 5) == "host:";
}

} // namespace

std::optional<FailureClass> classifyStatus(dpk_status_t status) {
  switch (status) {
  case DPK_ERROR_NO_DEVICE:
    return FailureClass::NoDevice;
  case DPK_ERROR_PLUGIN_LOAD:
  case DPK_ERROR_ABI_MISMATCH:
    return FailureClass::PluginLoad;
  case DPK_ERROR_COMPILE:
    return FailureClass::Compile;
  case DPK_ERROR_LAUNCH:
  case DPK_ERROR_DEVICE:
    return FailureClass::Launch;
  case DPK_ERROR_OUT_OF_DEVICE_MEMORY:
    return FailureClass::OutOfMemory;
  case DPK_SUCCESS:
  case DPK_ERROR_GENERIC:
  case DPK_ERROR_INVALID_ARGUMENT:
  case DPK_ERROR_INVALID_RANGE:
  case DPK_ERROR_NOT_FOUND:
  case DPK_ERROR_UNSUPPORTED:
  case DPK_ERROR_OUT_OF_HOST_MEMORY:
  case DPK_ERROR_POLICY:
  case DPK_ERROR_PARSE:
  case DPK_ERROR_VERIFY:
  case DPK_ERROR_PLACEMENT:
  case DPK_ERROR_INVALID_HANDLE:
  case DPK_ERROR_OUT_OF_BOUNDS:
  case DPK_ERROR_LINK: // the user's link inputs are wrong for that device: say so, not fall back
    return std::nullopt;
  }
  return std::nullopt;
}

dpk_status_t statusFor(FailureClass failure) {
  switch (failure) {
  case FailureClass::NoDevice:
    return DPK_ERROR_NO_DEVICE;
  case FailureClass::PluginLoad:
    return DPK_ERROR_PLUGIN_LOAD;
  case FailureClass::Compile:
    return DPK_ERROR_COMPILE;
  case FailureClass::Launch:
    return DPK_ERROR_LAUNCH;
  case FailureClass::OutOfMemory:
    return DPK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  return DPK_ERROR_GENERIC;
}

FallbackDecision decide(const Policy &policy, std::string_view kernel, std::string_view device,
                        FailureClass failure, std::string_view cause) {
  FallbackDecision decision;
  decision.failure = failure;
  decision.kernel = std::string(kernel);
  decision.device = std::string(device);
  decision.cause = std::string(cause);

  const FallbackSettings &settings = fallbackSettingsFor(policy, kernel);
  bool covered = (settings.covers & failureBit(failure)) != 0;
  decision.mode = covered ? settings.mode : FallbackMode::Deny;
  std::string origin = settings.origin.empty() ? policy.source : settings.origin;
  decision.rule = std::string("fallback.mode ") + fallbackModeName(settings.mode) + " from " + origin;
  if (!covered)
    decision.rule = std::string("fallback.on from ") + origin + " does not list " +
                    failureClassName(failure);

  std::string where = device.empty() ? std::string("any device") : std::string(device);
  std::string what = std::string(failureDescription(failure)) +
                     (cause.empty() ? "" : ": " + std::string(cause));

  // Reasons the host cannot take over even though the mode would allow it.
  std::string blocked;
  if (isHostDevice(device))
    blocked = "the failing device is the host itself";
  else if (std::find(policy.plugins.disabled.begin(), policy.plugins.disabled.end(), "host") !=
           policy.plugins.disabled.end())
    blocked = "plugins.disabled lists host";

  if (decision.mode != FallbackMode::Deny && blocked.empty()) {
    decision.action = FallbackAction::RunOnHost;
    if (decision.mode == FallbackMode::Warn)
      decision.warning = "kernel '" + decision.kernel + "' could not run on " + where + " (" +
                         what + "); running it on the host instead (" + decision.rule + ")";
    return decision;
  }

  decision.action = FallbackAction::Fail;
  std::string message = "kernel '" + decision.kernel + "' cannot run on " + where + ": " + what;
  if (!blocked.empty())
    message += " (no fallback: " + blocked + ")";
  else
    message += " (no fallback to the host: " + decision.rule +
               "; set DPK_FALLBACK=warn or fallback.mode: warn to allow it)";
  decision.error = Error(statusFor(failure), std::move(message));
  return decision;
}

void reportFallback(const FallbackDecision &decision, std::string_view hostDevice) {
  if (decision.action != FallbackAction::RunOnHost)
    return;
  diag::Fields fields{{"kernel", decision.kernel},
                      {"from", decision.device.empty() ? std::string("none") : decision.device},
                      {"to", hostDevice},
                      {"reason", failureClassName(decision.failure)},
                      {"mode", fallbackModeName(decision.mode)},
                      {"cause", decision.cause},
                      {"rule", decision.rule}};
  if (decision.mode == FallbackMode::Warn &&
      diag::firstTime("fallback\x1f" + decision.kernel + "\x1f" + decision.device + "\x1f" +
                      failureClassName(decision.failure))) {
    fields.push_back({"message", decision.warning});
    diag::emit(0, "fallback", fields);
    return;
  }
  diag::emit(1, "fallback", fields);
}

} // namespace dpk::policy

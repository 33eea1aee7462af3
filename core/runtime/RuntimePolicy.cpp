// RuntimePolicy.cpp - the runtime's calls into core/policy (or permissive stand-ins when the
// build has no dpk_policy yet, see the header).
#include "runtime/RuntimePolicy.h"

namespace dpk::runtime {

#if DPK_RUNTIME_HAS_POLICY

Expected<policy::Policy> loadRuntimePolicy() {
  Expected<policy::Policy> loaded = policy::loadPolicy();
  if (!loaded)
    return loaded.takeError();
  if (Error error = diag::configure(loaded->diagnostics))
    return error;
  return loaded;
}

void registerPluginBackend(const std::string &backend) { policy::registerBackendName(backend); }

std::optional<std::string> policyRejectsBackend(const policy::Policy &policy,
                                                const std::string &backend) {
  if (policy::backendAllowed(policy, backend))
    return std::nullopt;
  for (const std::string &disabled : policy.plugins.disabled) {
    if (disabled == backend)
      return "disabled by the policy's plugins.disabled (" + policy.source + ")";
  }
  std::string rule = policy.selectorOrigin.empty() ? policy.source : policy.selectorOrigin;
  return "no device of backend '" + backend + "' can match the selector '" +
         policy.selector.str() + "' (" + rule + ")";
}

Expected<policy::FilterList> parseDeviceFilter(std::string_view text) {
  return policy::parseFilter(text);
}

policy::DeviceRanking rankDevicesBy(const policy::FilterList &filter,
                                    const std::vector<policy::DeviceIdentity> &devices) {
  return policy::rankDevices(filter, devices);
}

policy::SelectorChoice kernelSelector(const policy::Policy &policy, std::string_view kernel) {
  return policy::selectorFor(policy, kernel);
}

std::optional<policy::FailureClass> failureClassOf(dpk_status_t status) {
  return policy::classifyStatus(status);
}

policy::FallbackDecision decideFallback(const policy::Policy &policy, std::string_view kernel,
                                        std::string_view device, policy::FailureClass failure,
                                        std::string_view cause) {
  return policy::decide(policy, kernel, device, failure, cause);
}

void reportFallbackRun(const policy::FallbackDecision &decision, std::string_view hostDevice) {
  policy::reportFallback(decision, hostDevice);
}

bool diagnosticsEnabled(int level) { return diag::enabled(level); }

void emitDiagnostic(int level, std::string_view event, const diag::Fields &fields) {
  diag::emit(level, event, fields);
}

void setDiagnosticsCallback(dpk_diagnostics_callback_t callback, void *payload) {
  diag::setCallback(callback, payload);
}

void dumpCompileStage(std::string_view kernel, std::string_view stage, std::string_view extension,
                      std::string_view bytes) {
  if (!diag::enabled(4))
    return;
  (void)diag::dumpStage(kernel, stage, extension, bytes);
}

std::string stageDumpDirectory() {
  if (!diag::enabled(4))
    return {};
  return diag::settings().dumpDir;
}

#else // no dpk_policy in this build: permissive stand-ins

Expected<policy::Policy> loadRuntimePolicy() {
  policy::Policy defaults;
  defaults.source = "built-in stand-in (dpk_policy not built)";
  defaults.fallback.mode = policy::FallbackMode::Deny;
  return defaults;
}

void registerPluginBackend(const std::string &) {}

std::optional<std::string> policyRejectsBackend(const policy::Policy &, const std::string &) {
  return std::nullopt;
}

Expected<policy::FilterList> parseDeviceFilter(std::string_view text) {
  // Without the policy library only the empty filter and exact canonical strings are known.
  policy::FilterList list;
  if (text.empty())
    return list;
  policy::DeviceTerm term;
  term.backend = std::string(text.substr(0, text.find(':')));
  list.terms.push_back(term);
  return list;
}

policy::DeviceRanking rankDevicesBy(const policy::FilterList &filter,
                                    const std::vector<policy::DeviceIdentity> &devices) {
  policy::DeviceRanking ranking;
  for (size_t i = 0; i < devices.size(); ++i) {
    bool match = filter.terms.empty() || devices[i].backend == *filter.terms[0].backend;
    policy::DeviceVerdict verdict{i, match, match ? 0 : -1, match ? "matches" : "no match"};
    (match ? ranking.eligible : ranking.rejected).push_back(verdict);
  }
  return ranking;
}

policy::SelectorChoice kernelSelector(const policy::Policy &policy, std::string_view) {
  return {policy.selector, "global selector"};
}

std::optional<policy::FailureClass> failureClassOf(dpk_status_t) { return std::nullopt; }

policy::FallbackDecision decideFallback(const policy::Policy &, std::string_view kernel,
                                        std::string_view device, policy::FailureClass failure,
                                        std::string_view cause) {
  policy::FallbackDecision decision;
  decision.failure = failure;
  decision.kernel = std::string(kernel);
  decision.device = std::string(device);
  decision.cause = std::string(cause);
  decision.error = Error(DPK_ERROR_GENERIC, "kernel '" + decision.kernel + "' failed on " +
                                                decision.device + ": " + decision.cause);
  return decision;
}

void reportFallbackRun(const policy::FallbackDecision &, std::string_view) {}
bool diagnosticsEnabled(int) { return false; }
void emitDiagnostic(int, std::string_view, const diag::Fields &) {}
void setDiagnosticsCallback(dpk_diagnostics_callback_t, void *) {}
void dumpCompileStage(std::string_view, std::string_view, std::string_view, std::string_view) {}
std::string stageDumpDirectory() { return {}; }

#endif

} // namespace dpk::runtime

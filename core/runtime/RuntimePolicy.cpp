// RuntimePolicy.cpp - the runtime's calls into core/policy and core/diagnostics.
#include "runtime/RuntimePolicy.h"

namespace dpk::runtime {

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

void setDiagnosticsCallback(diag::Callback callback, void *payload) {
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
} // namespace dpk::runtime

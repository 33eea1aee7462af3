// init_policy.cpp - what the Python frontend needs from the runtime's policy and diagnostics:
// the placement setting (what a launch with arrays of different devices does), the devices a
// filter matches (the core's filter parser, for dpk.has_device), the fallback decision for a
// launch that cannot start on its device (no such device, staging out of memory), and a way to
// emit the frontend's own records (migration copies) into the same diagnostics stream.
//
// These use the core's C++ API (Registry, emitDiagnostic) rather than the C API: the C API has
// no notion of "arrays of several devices in one launch", which only the frontend can see.
#include "handles.h"

#include "runtime/Registry.h"
#include "runtime/RuntimePolicy.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <vector>

namespace dpk::py {

namespace {

const runtime::Registry &runtimePolicyRegistry() {
  // The policy is read once, when the runtime starts; a bad policy is the init error.
  if (Error error = runtime::Registry::ensure())
    throw StatusError(error.status(), error.message());
  return runtime::Registry::get();
}

const policy::Policy &runtimePolicy() { return runtimePolicyRegistry().policy(); }

/// A Python value as a diagnostics field (str, bool, int, float; anything else as its str()).
diag::FieldValue fieldValue(nb::handle value) {
  if (nb::isinstance<nb::bool_>(value))
    return diag::FieldValue(nb::cast<bool>(value));
  if (nb::isinstance<nb::int_>(value))
    return diag::FieldValue(nb::cast<long long>(value));
  if (nb::isinstance<nb::float_>(value))
    return diag::FieldValue(nb::cast<double>(value));
  return diag::FieldValue(nb::cast<std::string>(nb::str(value)));
}

} // namespace

void checkFilterText(const std::string &filter) {
  // A C string ends at the first NUL: "host\0garbage" would silently select the host.
  size_t nul = filter.find('\0');
  if (nul != std::string::npos)
    throw StatusError(DPK_ERROR_PARSE, "malformed device filter at column " +
                                           std::to_string(nul + 1) +
                                           ": a filter cannot contain a NUL character");
}

void initPolicy(nb::module_ &m) {
  m.def(
      "matching_devices",
      [](const std::string &filter) {
        checkFilterText(filter);
        const runtime::Registry &registry = runtimePolicyRegistry();
        Expected<policy::FilterList> parsed = runtime::parseDeviceFilter(filter);
        if (!parsed)
          throw StatusError(parsed.error().status(), parsed.error().message());
        const std::vector<runtime::Device *> &devices = registry.devices();
        std::vector<policy::DeviceIdentity> identities;
        for (const runtime::Device *device : devices)
          identities.push_back(
              {device->backend(), device->props().type, device->indexInGroup()});
        std::vector<size_t> indices;
        for (const policy::DeviceVerdict &verdict :
             runtime::rankDevicesBy(*parsed, identities).eligible)
          indices.push_back(verdict.device);
        return indices;
      },
      "filter"_a,
      "Indices (into get_device's order) of the devices the policy allows that match a "
      "filter, best first; no fallback. ParseError for a malformed filter.");
  m.def(
      "fallback_device",
      [](const std::string &kernel, const std::string &device, int status,
         const std::string &cause) {
        const runtime::Registry &registry = runtimePolicyRegistry();
        runtime::Device *host = registry.hostDevice();
        std::optional<policy::FailureClass> failure =
            runtime::failureClassOf(static_cast<dpk_status_t>(status));
        if (!failure)
          throw StatusError(static_cast<dpk_status_t>(status), cause);
        policy::FallbackDecision decision =
            runtime::decideFallback(registry.policy(), kernel, device, *failure, cause);
        if (decision.action != policy::FallbackAction::RunOnHost)
          throw StatusError(decision.error.status(), decision.error.message());
        if (!host)
          throw StatusError(static_cast<dpk_status_t>(status),
                            cause + " (no host device to fall back to)");
        runtime::reportFallbackRun(decision, host->filterString());
        return new Device(reinterpret_cast<dpk_device_t>(host));
      },
      "kernel"_a, "device"_a, "status"_a, "cause"_a, nb::rv_policy::take_ownership,
      "The host device when the policy's fallback covers a failure (a dpk status) of `kernel` "
      "on `device` ('' for none), after the warning or record it asks for; otherwise raises "
      "the typed error naming kernel, device and cause.");
  m.def(
      "placement_policy",
      []() {
        const policy::PlacementSettings &placement = runtimePolicy().placement;
        return nb::make_tuple(std::string(policy::mixedDevicesName(placement.mixedDevices)),
                              placement.origin);
      },
      "The policy's placement.mixed_devices value ('error' or 'migrate') and where it was set "
      "(file:line:column, DPK_MIXED_DEVICES, ...).");
  m.def(
      "array_policy",
      []() {
        const policy::ArraySettings &arrays = runtimePolicy().arrays;
        return nb::make_tuple(arrays.fusion, arrays.fusionOrigin);
      },
      "The policy's arrays.fusion value (a bool) and where it was set (file:line:column, "
      "DPK_FUSION, ...).");
  m.def(
      "diagnostics_enabled", [](int level) { return runtime::diagnosticsEnabled(level); },
      "level"_a, "True when the runtime produces diagnostics records of this level.");
  m.def(
      "emit_diagnostic",
      [](int level, const std::string &event, nb::dict fields) {
        diag::Fields out;
        for (auto [key, value] : fields)
          out.push_back({nb::cast<std::string>(key), fieldValue(value)});
        runtime::emitDiagnostic(level, event, out);
      },
      "level"_a, "event"_a, "fields"_a,
      "Emits one diagnostics record (as the runtime's own: same sink, format and listeners).");
}

} // namespace dpk::py

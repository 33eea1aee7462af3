// init_policy.cpp - what the Python frontend needs from the runtime's policy and diagnostics:
// the placement setting (what a launch with arrays of different devices does) and a way to emit
// the frontend's own records (migration copies) into the same diagnostics stream.
//
// These use the core's C++ API (Registry, emitDiagnostic) rather than the C API: the C API has
// no notion of "arrays of several devices in one launch", which only the frontend can see.
#include "common.h"

#include "runtime/Registry.h"
#include "runtime/RuntimePolicy.h"

#include <nanobind/stl/string.h>

namespace dpk::py {

namespace {

const policy::Policy &runtimePolicy() {
  // The policy is read once, when the runtime starts; a bad policy is the init error.
  if (Error error = runtime::Registry::ensure())
    throw StatusError(error.status(), error.message());
  return runtime::Registry::get().policy();
}

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

void initPolicy(nb::module_ &m) {
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

// DeviceFilter.h - dpctl-style device filter strings: parsing, matching one device, ranking.
//
// Grammar (docs/policy.md has the user-facing version):
//
//   filter := term (',' term)*          alternatives in preference order
//   term   := ['!'] part [':' part [':' part]]
//   part   := backend | device_type | index | '*'
//
// A term names up to three parts, always in the order backend, device type, index; any part may be
// left out, so "opencl" is a backend, "cpu" a device type, "2" an index, "gpu:1" a type and an
// index. '*' matches anything in its position. A term starting with '!' excludes every device it
// matches, whatever the other terms say. Spaces around terms and parts are ignored; names are
// case-insensitive. The empty string is the empty list, which places no restriction.
//
// Device types are cpu, gpu and accelerator. Backends are host, opencl, level_zero, cuda, names
// added with registerBackendName, and any other name of letters, digits and '_' starting with a
// letter (the backend of a third-party or test plugin, which is not known before the plugins are
// found) - except a name within two edits of a known backend or device type: "opecl" or "gpuu" is
// a typo and an error ("did you mean 'opencl'?"), never a filter that silently matches nothing.
#ifndef DPK_CORE_POLICY_DEVICEFILTER_H
#define DPK_CORE_POLICY_DEVICEFILTER_H

#include "dpk/dpk_types.h"
#include "support/Error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpk::policy {

/// One term of a filter. An unset part (nullopt) is a wildcard.
struct DeviceTerm {
  bool exclude = false;               // the term started with '!'
  std::optional<std::string> backend; // lower case: "opencl", "level_zero", "cuda", "host"
  std::optional<dpk_device_type_t> type;
  std::optional<uint32_t> index; // index of the device within its (backend, type) group
  size_t column = 0;             // 0-based offset of the term's first character in the text

  /// Canonical text: "!opencl:*", "cuda:gpu", "*:cpu:0"; "*" for the all-wildcard term.
  std::string str() const;
};

/// A parsed filter: positive terms in preference order, interleaved with exclusions as written.
struct FilterList {
  std::vector<DeviceTerm> terms;

  bool empty() const { return terms.empty(); }
  /// True when some term is not an exclusion.
  bool hasPositiveTerms() const;
  /// Canonical text of the whole list, terms joined by ','. "" for the empty list.
  std::string str() const;
};

/// Parses a filter string. Malformed text gives DPK_ERROR_PARSE whose message names the problem,
/// the 1-based column, and repeats the text with a caret under the bad character:
///
///   malformed device filter at column 8: unknown backend or device type 'opecl' (did you
///   mean 'opencl'?) (backends: ...; device types: cpu, gpu, accelerator)
///     opencl,opecl:gpu
///            ^
Expected<FilterList> parseFilter(std::string_view text);

/// Adds a backend name the parser accepts (a plugin whose backend is not built in, e.g. the test
/// plugin "null"). Thread-safe; names are lower-cased.
void registerBackendName(std::string_view name);
/// Removes a name added with registerBackendName (built-in names stay).
void unregisterBackendName(std::string_view name);
/// The built-in and registered backend names, sorted.
std::vector<std::string> knownBackendNames();
/// True when `name` is shaped like a backend name: [a-z][a-z0-9_]*.
bool isBackendName(std::string_view name);

/// Name used in filters for a device type: "cpu", "gpu", "accelerator".
const char *deviceTypeName(dpk_device_type_t type);

/// What a filter can see of a device.
struct DeviceIdentity {
  std::string backend;    // "opencl"
  dpk_device_type_t type; // DPK_DEVICE_TYPE_CPU
  uint32_t index = 0;     // index among the devices of the same backend and type
  /// "opencl:cpu:0", the canonical filter string of this device.
  std::string str() const;
};

/// True when every part the term names equals the device's part. Ignores `exclude`: the caller
/// decides what a match means.
bool matches(const DeviceTerm &term, const DeviceIdentity &device);

/// The verdict on one device.
struct DeviceVerdict {
  size_t device = 0;     // index into the identities given to rankDevices
  bool eligible = false;
  int term = -1;         // the term that decided (matched positive or excluding term); -1: none
  std::string reason;    // "matches 'opencl:cpu' (alternative 2 of 3)", "excluded by '!opencl:*'"
};

/// Result of rankDevices: eligible devices best first, then the rejected ones in input order.
struct DeviceRanking {
  std::vector<DeviceVerdict> eligible;
  std::vector<DeviceVerdict> rejected;
};

/// Orders devices by the filter. A device is eligible when it matches a positive term and no
/// exclusion; it ranks by the first positive term it matches, ties kept in input order. A filter
/// with only exclusions (or none at all) keeps every device that is not excluded, in input order.
DeviceRanking rankDevices(const FilterList &filter, const std::vector<DeviceIdentity> &devices);

/// True when some device of `backend` could be eligible under `filter`, whatever its type and
/// index: used to decide, before dlopen, whether a plugin is worth loading. Conservative: answers
/// false only when no device of that backend can ever be eligible.
bool backendMayMatch(const FilterList &filter, std::string_view backend);

} // namespace dpk::policy

#endif // DPK_CORE_POLICY_DEVICEFILTER_H

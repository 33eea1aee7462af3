// Policy.h - the device-selection policy: what the YAML file and the environment say, and the
// questions the runtime asks of it (may this backend be loaded, which selector does this kernel
// use, may this failure fall back to the host).
//
// The file format is documented in docs/policy.md and config/policy-schema.md; the built-in
// default is config/default-policy.yaml, embedded at build time.
#ifndef DPK_CORE_POLICY_POLICY_H
#define DPK_CORE_POLICY_POLICY_H

#include "diagnostics/DiagnosticsSettings.h"
#include "policy/DeviceFilter.h"
#include "support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpk::policy {

/// The schema version this build reads (the `version:` key).
constexpr int PolicySchemaVersion = 1;

/// Why a kernel could not run on its selected device. The YAML names are in brackets.
enum class FailureClass {
  NoDevice,    // [no_device] no device matches the selector, or its plugin has no devices
  PluginLoad,  // [plugin_load] the selected backend's plugin failed to load or initialize
  Compile,     // [compile] compilation or program build for the device failed
  Launch,      // [launch] the device refused to launch the kernel, or it failed while running
  OutOfMemory  // [out_of_memory] the device ran out of memory for the kernel's data
};
constexpr unsigned NumFailureClasses = 5;

/// YAML/diagnostics name of a failure class ("no_device", "compile", ...).
const char *failureClassName(FailureClass failure);
/// The inverse of failureClassName.
std::optional<FailureClass> parseFailureClass(std::string_view name);
/// A set of failure classes, as a bit mask over FailureClass.
using FailureSet = uint32_t;
constexpr FailureSet failureBit(FailureClass failure) { return 1u << static_cast<unsigned>(failure); }
constexpr FailureSet AllFailures = (1u << NumFailureClasses) - 1;

/// What happens when a covered failure occurs.
enum class FallbackMode {
  Deny,  // [deny] the caller gets a typed error naming kernel, device and cause
  Warn,  // [warn] run on the host; one warning per (kernel, device, reason)
  Allow  // [allow] run on the host silently (diagnostics level 1 still records it)
};
const char *fallbackModeName(FallbackMode mode);

struct FallbackSettings {
  FallbackMode mode = FallbackMode::Warn;
  FailureSet covers = AllFailures; // failures outside this set are always errors
  std::string origin;              // where it was set: "file.yaml:12:3", "DPK_FALLBACK", ...
};

/// The diagnostics sink's settings are the sink's own type; the policy only carries them.
using DiagnosticsFormat = diag::Format;
using DiagnosticsSettings = diag::Settings;

enum class CacheMode { ReadWrite, ReadOnly, Off };
const char *cacheModeName(CacheMode mode);

struct CacheSettings {
  std::string dir; // empty: $XDG_CACHE_HOME/dpk, else ~/.cache/dpk (the cache decides)
  CacheMode mode = CacheMode::ReadWrite;
};

/// What a launch does when its device arrays live on different devices (the Python frontend
/// asks; the C API's launches take one queue and never mix devices).
enum class MixedDevices {
  Error,  // [error] the launch fails with a placement error naming the devices
  Migrate // [migrate] copy the arrays to one device, run there, copy the results back
};
const char *mixedDevicesName(MixedDevices value);
std::optional<MixedDevices> parseMixedDevices(std::string_view name);

struct PlacementSettings {
  MixedDevices mixedDevices = MixedDevices::Error;
  std::string origin; // where it was set: "file.yaml:30:18", "built-in default:47:18",
                      // "DPK_MIXED_DEVICES"
};

/// The array layer's settings (the `arrays:` key; the Python frontend asks through
/// dpk._core.array_policy).
struct ArraySettings {
  /// Automatic fusion of elementwise operations (docs/arrays.md, "Automatic fusion").
  bool fusion = true;
  std::string fusionOrigin; // "file.yaml:52:11", "built-in default:...", "DPK_FUSION"
};

struct PluginSettings {
  std::vector<std::string> searchPaths; // folders searched after DPK_PLUGIN_PATH, before the
                                        // folder of libdpk.so
  std::vector<std::string> disabled;    // backend names never loaded ("cuda")
};

/// A per-kernel rule: the first rule whose glob matches the kernel's name applies.
struct KernelOverride {
  std::string pattern;                      // shell glob over the kernel name: "matmul*", "*_f64"
  std::optional<FilterList> selector;       // replaces the global selector for these kernels
  std::optional<FallbackSettings> fallback; // replaces the global fallback for these kernels
  std::string origin;                       // "file.yaml:20:5"
};

struct Policy {
  int schemaVersion = PolicySchemaVersion;
  std::string source; // the file read, or "built-in default"

  /// Preference order (positive terms) and exclusions ('!' terms, including devices.exclude).
  FilterList selector;
  std::string selectorOrigin;
  /// True when DPK_DEVICE_SELECTOR set the selector: it then also wins over kernel overrides.
  bool selectorFromEnvironment = false;

  FallbackSettings fallback;
  bool fallbackFromEnvironment = false; // DPK_FALLBACK also wins over kernel overrides

  std::vector<KernelOverride> kernels;
  DiagnosticsSettings diagnostics;
  PluginSettings plugins;
  CacheSettings cache;
  PlacementSettings placement;
  /// Bounds-check mode for IR programs created without an explicit choice (the `boundscheck:`
  /// key, DPK_BOUNDSCHECK); docs/reliability.md, "Bounds-check mode".
  bool boundsCheck = false;
  std::string boundsCheckOrigin; // "file.yaml:40:14", "built-in default:...", "DPK_BOUNDSCHECK"
  ArraySettings arrays;

  /// Environment variables that changed a setting, in the order applied ("DPK_FALLBACK=deny").
  std::vector<std::string> environmentOverrides;
};

/// The text of config/default-policy.yaml as built into the library.
std::string_view builtinPolicyText();
/// The built-in default policy (parsed once; cannot fail in a correct build).
const Policy &builtinPolicy();

/// The largest policy text dpk reads: 1 MiB (a policy is a few hundred bytes). A larger file is
/// refused from its size, before it is read or parsed.
constexpr size_t MaxPolicyFileSize = size_t(1) << 20;

/// Parses policy YAML: exactly one YAML document of at most MaxPolicyFileSize bytes. Keys left
/// out keep the built-in default's value. Errors are DPK_ERROR_POLICY with
/// "fileName:line:column: " and, for unknown keys and bad values, the allowed keys or values.
Expected<Policy> parsePolicy(std::string_view yamlText, std::string_view fileName);

/// Reads and parses a policy file: DPK_ERROR_NOT_FOUND when it does not exist or cannot be
/// opened, DPK_ERROR_POLICY when it is not a regular file (a FIFO, a device, a directory: it is
/// opened non-blocking and checked with fstat, so nothing blocks) or is larger than
/// MaxPolicyFileSize.
Expected<Policy> loadPolicyFile(const std::string &path);

/// Where the policy would be read from: DPK_CONFIG if set (the file must exist), else
/// $XDG_CONFIG_HOME/dpk/policy.yaml (or ~/.config/dpk/policy.yaml) if it exists, else "" for the
/// built-in default.
std::string policySearchResult();

/// Applies DPK_DEVICE_SELECTOR, DPK_FALLBACK, DPK_DIAGNOSTICS, DPK_DIAGNOSTICS_FILE,
/// DPK_DUMP_DIR, DPK_CACHE_DIR, DPK_CACHE_MODE and DPK_MIXED_DEVICES, DPK_BOUNDSCHECK and DPK_FUSION from the process
/// environment. Empty variables count as unset. A bad value is DPK_ERROR_POLICY
/// (DPK_ERROR_PARSE for a bad selector) naming the variable.
Error applyEnvironment(Policy &policy);

/// The whole search: file (see policySearchResult) or built-in default, then the environment.
Expected<Policy> loadPolicy();

/// May the plugin of `backend` be dlopened? False when it is in plugins.disabled, or when no
/// device of it can be eligible under the global selector nor under any kernel override's
/// selector. The host backend is also allowed whenever some fallback rule can send work to it.
bool backendAllowed(const Policy &policy, std::string_view backend);

/// backendAllowed with the reason, for diagnostics ("policy.decision", "plugin.skip") and
/// dpk-ls --explain: "disabled by plugins.disabled in p.yaml", "no device of backend 'opencl'
/// can match the selector '!opencl' (DPK_DEVICE_SELECTOR)", "may match 'cuda:gpu' (...)",
/// "needed as the fallback target (fallback.mode warn from p.yaml:4:3)".
struct BackendDecision {
  bool allowed = false;
  std::string reason;
};
BackendDecision decideBackend(const Policy &policy, std::string_view backend);

/// The selector that applies to a kernel, with the global exclusions folded in, and the rule
/// that chose it ("DPK_DEVICE_SELECTOR", "kernels[0] 'matmul*' at f.yaml:9:5", ...).
struct SelectorChoice {
  FilterList filter;
  std::string rule;
};
SelectorChoice selectorFor(const Policy &policy, std::string_view kernelName);

/// The fallback rule that applies to a kernel (override or global) and its origin.
const FallbackSettings &fallbackSettingsFor(const Policy &policy, std::string_view kernelName);
/// The mode for one failure of one kernel: Deny when the failure is not covered.
FallbackMode fallbackFor(const Policy &policy, std::string_view kernelName, FailureClass failure);

/// Shell-style glob ('*', '?', '[abc]', '[a-z]', '[!a-z]') over a whole name. Time is at most
/// proportional to the product of the two lengths, whatever the pattern.
bool globMatch(std::string_view pattern, std::string_view name);
/// Checks a kernel name glob: every '[' has a closing ']', no character class is empty, and no
/// range runs backwards ("[z-a]"). Errors are DPK_ERROR_POLICY "malformed glob at column N:
/// <why>" (N counts from 1).
Error checkGlob(std::string_view pattern);

} // namespace dpk::policy

#endif // DPK_CORE_POLICY_POLICY_H

// Policy.cpp - the policy search order, environment overrides, and the questions the runtime
// asks of a policy (backendAllowed, selectorFor, fallbackFor). The YAML reader is PolicyYaml.cpp.
#include "policy/Policy.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace dpk::policy {

const char *failureClassName(FailureClass failure) {
  switch (failure) {
  case FailureClass::NoDevice:
    return "no_device";
  case FailureClass::PluginLoad:
    return "plugin_load";
  case FailureClass::Compile:
    return "compile";
  case FailureClass::Launch:
    return "launch";
  case FailureClass::OutOfMemory:
    return "out_of_memory";
  }
  return "unknown";
}

std::optional<FailureClass> parseFailureClass(std::string_view name) {
  for (unsigned i = 0; i < NumFailureClasses; ++i)
    if (name == failureClassName(static_cast<FailureClass>(i)))
      return static_cast<FailureClass>(i);
  return std::nullopt;
}

const char *fallbackModeName(FallbackMode mode) {
  switch (mode) {
  case FallbackMode::Deny:
    return "deny";
  case FallbackMode::Warn:
    return "warn";
  case FallbackMode::Allow:
    return "allow";
  }
  return "unknown";
}

const char *cacheModeName(CacheMode mode) {
  switch (mode) {
  case CacheMode::ReadWrite:
    return "read_write";
  case CacheMode::ReadOnly:
    return "read_only";
  case CacheMode::Off:
    return "off";
  }
  return "unknown";
}

const char *mixedDevicesName(MixedDevices value) {
  switch (value) {
  case MixedDevices::Error:
    return "error";
  case MixedDevices::Migrate:
    return "migrate";
  }
  return "unknown";
}

std::optional<MixedDevices> parseMixedDevices(std::string_view name) {
  for (MixedDevices value : {MixedDevices::Error, MixedDevices::Migrate})
    if (name == mixedDevicesName(value))
      return value;
  return std::nullopt;
}

namespace {

/// The variable's value, or "" when unset; empty variables count as unset.
std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

const char *fileKindName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a special file";
}

bool isRegularFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string trim(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos)
    return "";
  size_t end = text.find_last_not_of(" \t");
  return std::string(text.substr(begin, end - begin + 1));
}

Error badEnvironment(const char *name, const std::string &value, const std::string &what) {
  return Error(DPK_ERROR_POLICY, std::string(name) + "='" + value + "': " + what);
}

/// A boolean variable (DPK_BOUNDSCHECK, DPK_FUSION): 1, 0, true, false, and on, off where
/// `onOff`. Sets `flag` and `origin` and records the override; unset leaves them.
Error applySwitchVariable(Policy &policy, const char *name, bool onOff, bool &flag,
                          std::string &origin) {
  std::string value = environment(name);
  if (value.empty())
    return Error::success();
  if (value == "1" || value == "true" || (onOff && value == "on"))
    flag = true;
  else if (value == "0" || value == "false" || (onOff && value == "off"))
    flag = false;
  else
    return badEnvironment(name, value,
                          onOff ? "bad value; allowed values: 1, 0, true, false, on, off"
                                : "bad value; allowed values: 1, 0, true, false");
  origin = name;
  policy.environmentOverrides.push_back(std::string(name) + "=" + value);
  return Error::success();
}

/// DPK_FALLBACK: MODE[:CLASS[,CLASS...]], e.g. "warn", "deny", "allow:compile,launch".
Error parseFallbackVariable(const std::string &value, FallbackSettings &out) {
  const std::string syntax =
      "expected MODE[:FAILURE,...] with MODE one of deny, warn, allow and FAILURE one of "
      "no_device, plugin_load, compile, launch, out_of_memory, all";
  size_t colon = value.find(':');
  std::string mode = trim(value.substr(0, colon));
  FallbackSettings settings;
  if (mode == "deny")
    settings.mode = FallbackMode::Deny;
  else if (mode == "warn")
    settings.mode = FallbackMode::Warn;
  else if (mode == "allow")
    settings.mode = FallbackMode::Allow;
  else
    return badEnvironment("DPK_FALLBACK", value, "bad mode '" + mode + "'; " + syntax);
  settings.covers = AllFailures;
  if (colon != std::string::npos) {
    settings.covers = 0;
    std::stringstream list(value.substr(colon + 1));
    std::string item;
    while (std::getline(list, item, ',')) {
      item = trim(item);
      if (item == "all") {
        settings.covers = AllFailures;
        continue;
      }
      std::optional<FailureClass> failure = parseFailureClass(item);
      if (!failure)
        return badEnvironment("DPK_FALLBACK", value, "bad failure '" + item + "'; " + syntax);
      settings.covers |= failureBit(*failure);
    }
  }
  settings.origin = "DPK_FALLBACK";
  out = settings;
  return Error::success();
}

/// DPK_DIAGNOSTICS: LEVEL[,FORMAT], e.g. "2", "3,json".
Error parseDiagnosticsVariable(const std::string &value, DiagnosticsSettings &out) {
  const std::string syntax = "expected LEVEL[,FORMAT] with LEVEL 0-4 and FORMAT text or json";
  size_t comma = value.find(',');
  std::string level = trim(value.substr(0, comma));
  if (level.size() != 1 || level[0] < '0' || level[0] > '4')
    return badEnvironment("DPK_DIAGNOSTICS", value, "bad level '" + level + "'; " + syntax);
  DiagnosticsFormat format = out.format;
  if (comma != std::string::npos) {
    std::string name = trim(value.substr(comma + 1));
    if (name == "text")
      format = DiagnosticsFormat::Text;
    else if (name == "json")
      format = DiagnosticsFormat::Json;
    else
      return badEnvironment("DPK_DIAGNOSTICS", value, "bad format '" + name + "'; " + syntax);
  }
  out.level = level[0] - '0';
  out.format = format;
  return Error::success();
}

} // namespace

namespace {

/// The text of a policy file; the errors of loadPolicyFile() about the file itself.
Expected<std::string> readPolicyText(const std::string &path) {
  // Non-blocking, so that a FIFO (or a device) named by DPK_CONFIG cannot hang the open; what
  // was opened is then checked with fstat, so a file swapped in between is checked too.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return Error(DPK_ERROR_NOT_FOUND, "cannot read policy file '" + path + "'");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0)
    return Error(DPK_ERROR_NOT_FOUND, "cannot read policy file '" + path + "'");
  if (!S_ISREG(info.st_mode))
    return Error(DPK_ERROR_POLICY, "policy file '" + path + "' is " + fileKindName(info.st_mode) +
                                       ", not a regular file");
  if (static_cast<uint64_t>(info.st_size) > MaxPolicyFileSize)
    return Error(DPK_ERROR_POLICY, "policy file '" + path + "' has " +
                                       std::to_string(info.st_size) +
                                       " bytes; policy files are limited to " +
                                       std::to_string(MaxPolicyFileSize) + " bytes");
  // Read at most one byte past the limit: a file that grows meanwhile is still refused.
  std::string text;
  char chunk[65536];
  for (;;) {
    ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (got < 0)
      return Error(DPK_ERROR_NOT_FOUND, "cannot read policy file '" + path + "': " +
                                            std::strerror(errno));
    if (got == 0)
      break;
    text.append(chunk, static_cast<size_t>(got));
    if (text.size() > MaxPolicyFileSize)
      return Error(DPK_ERROR_POLICY, "policy file '" + path + "' has more than " +
                                         std::to_string(MaxPolicyFileSize) +
                                         " bytes; policy files are limited to that");
  }
  return text;
}

} // namespace

Expected<Policy> loadPolicyFile(const std::string &path) {
  Expected<std::string> text = readPolicyText(path);
  if (!text)
    return text.takeError();
  return parsePolicy(*text, path);
}

std::string policySearchResult() {
  std::string explicitFile = environment("DPK_CONFIG");
  if (!explicitFile.empty())
    return explicitFile;
  std::string configHome = environment("XDG_CONFIG_HOME");
  if (configHome.empty()) {
    std::string home = environment("HOME");
    if (home.empty())
      return "";
    configHome = home + "/.config";
  }
  std::string userFile = configHome + "/dpk/policy.yaml";
  return isRegularFile(userFile) ? userFile : "";
}

Error applyEnvironment(Policy &policy) {
  if (std::string value = environment("DPK_DEVICE_SELECTOR"); !value.empty()) {
    Expected<FilterList> filter = parseFilter(value);
    if (!filter)
      return Error(DPK_ERROR_PARSE, "DPK_DEVICE_SELECTOR: " + filter.error().message());
    policy.selector = std::move(*filter);
    policy.selectorOrigin = "DPK_DEVICE_SELECTOR";
    policy.selectorFromEnvironment = true;
    policy.environmentOverrides.push_back("DPK_DEVICE_SELECTOR=" + value);
  }
  if (std::string value = environment("DPK_FALLBACK"); !value.empty()) {
    if (Error error = parseFallbackVariable(value, policy.fallback))
      return error;
    policy.fallbackFromEnvironment = true;
    policy.environmentOverrides.push_back("DPK_FALLBACK=" + value);
  }
  if (std::string value = environment("DPK_DIAGNOSTICS"); !value.empty()) {
    if (Error error = parseDiagnosticsVariable(value, policy.diagnostics))
      return error;
    policy.environmentOverrides.push_back("DPK_DIAGNOSTICS=" + value);
  }
  if (std::string value = environment("DPK_DIAGNOSTICS_FILE"); !value.empty()) {
    policy.diagnostics.file = value;
    policy.environmentOverrides.push_back("DPK_DIAGNOSTICS_FILE=" + value);
  }
  if (std::string value = environment("DPK_DUMP_DIR"); !value.empty()) {
    policy.diagnostics.dumpDir = value;
    policy.environmentOverrides.push_back("DPK_DUMP_DIR=" + value);
  }
  if (std::string value = environment("DPK_CACHE_DIR"); !value.empty()) {
    policy.cache.dir = value;
    policy.environmentOverrides.push_back("DPK_CACHE_DIR=" + value);
  }
  if (std::string value = environment("DPK_CACHE_MODE"); !value.empty()) {
    if (value == "read_write")
      policy.cache.mode = CacheMode::ReadWrite;
    else if (value == "read_only")
      policy.cache.mode = CacheMode::ReadOnly;
    else if (value == "off")
      policy.cache.mode = CacheMode::Off;
    else
      return badEnvironment("DPK_CACHE_MODE", value,
                            "bad mode; allowed values: read_write, read_only, off");
    policy.environmentOverrides.push_back("DPK_CACHE_MODE=" + value);
  }
  if (std::string value = environment("DPK_MIXED_DEVICES"); !value.empty()) {
    std::optional<MixedDevices> mixed = parseMixedDevices(value);
    if (!mixed)
      return badEnvironment("DPK_MIXED_DEVICES", value,
                            "bad value; allowed values: error, migrate");
    policy.placement.mixedDevices = *mixed;
    policy.placement.origin = "DPK_MIXED_DEVICES";
    policy.environmentOverrides.push_back("DPK_MIXED_DEVICES=" + value);
  }
  if (Error error = applySwitchVariable(policy, "DPK_BOUNDSCHECK", false, policy.boundsCheck,
                                        policy.boundsCheckOrigin))
    return error;
  return applySwitchVariable(policy, "DPK_FUSION", true, policy.arrays.fusion,
                             policy.arrays.fusionOrigin);
}

Expected<Policy> loadPolicy() {
  std::string path = policySearchResult();
  Policy policy = builtinPolicy();
  if (!path.empty()) {
    Expected<std::string> text = readPolicyText(path);
    if (!text) {
      // DPK_CONFIG naming a missing (or special, or huge) file is a policy error: the user
      // asked for that file.
      std::string origin = environment("DPK_CONFIG").empty() ? "" : " (DPK_CONFIG)";
      return Error(DPK_ERROR_POLICY, text.error().message() + origin);
    }
    Expected<Policy> loaded = parsePolicy(*text, path);
    if (!loaded)
      return loaded.takeError();
    policy = std::move(*loaded);
  }
  if (Error error = applyEnvironment(policy))
    return error;
  return policy;
}

namespace {

/// `selector` with the global exclusions of `policy` appended.
FilterList withGlobalExclusions(const Policy &policy, const FilterList &selector) {
  FilterList combined = selector;
  for (const DeviceTerm &term : policy.selector.terms)
    if (term.exclude)
      combined.terms.push_back(term);
  return combined;
}

bool fallbackReachesHost(const FallbackSettings &fallback) {
  return fallback.mode != FallbackMode::Deny && fallback.covers != 0;
}

} // namespace

BackendDecision decideBackend(const Policy &policy, std::string_view backend) {
  std::string name(backend);
  for (const std::string &disabled : policy.plugins.disabled)
    if (disabled == backend)
      return {false, "disabled by plugins.disabled in " + policy.source};
  std::string origin = policy.selectorOrigin.empty() ? policy.source : policy.selectorOrigin;
  if (backendMayMatch(policy.selector, backend))
    return {true, "may match the selector '" + policy.selector.str() + "' (" + origin + ")"};
  // Kernel rules may select other devices, unless DPK_DEVICE_SELECTOR overrides them all.
  if (!policy.selectorFromEnvironment) {
    for (size_t i = 0; i < policy.kernels.size(); ++i) {
      const KernelOverride &rule = policy.kernels[i];
      if (rule.selector && backendMayMatch(withGlobalExclusions(policy, *rule.selector), backend))
        return {true, "may match kernels[" + std::to_string(i) + "] '" + rule.pattern +
                          "' devices '" + rule.selector->str() + "' (" + rule.origin + ")"};
    }
  }
  std::string rejected = "no device of backend '" + name + "' can match the selector '" +
                         policy.selector.str() + "' (" + origin + ")";
  if (backend != "host")
    return {false, rejected};
  // The host is the fallback target even when the selector does not place kernels there.
  auto fallbackReason = [](const FallbackSettings &fallback) {
    return std::string("needed as the fallback target (fallback.mode ") +
           fallbackModeName(fallback.mode) + " from " + fallback.origin + ")";
  };
  if (fallbackReachesHost(policy.fallback))
    return {true, fallbackReason(policy.fallback)};
  if (!policy.fallbackFromEnvironment) {
    for (const KernelOverride &rule : policy.kernels)
      if (rule.fallback && fallbackReachesHost(*rule.fallback))
        return {true, fallbackReason(*rule.fallback)};
  }
  return {false, rejected + " and no fallback rule sends work to the host"};
}

bool backendAllowed(const Policy &policy, std::string_view backend) {
  return decideBackend(policy, backend).allowed;
}

SelectorChoice selectorFor(const Policy &policy, std::string_view kernelName) {
  if (policy.selectorFromEnvironment)
    return {policy.selector, "DPK_DEVICE_SELECTOR='" + policy.selector.str() + "'"};
  for (size_t i = 0; i < policy.kernels.size(); ++i) {
    const KernelOverride &rule = policy.kernels[i];
    if (!rule.selector || !globMatch(rule.pattern, kernelName))
      continue;
    return {withGlobalExclusions(policy, *rule.selector),
            "kernels[" + std::to_string(i) + "] '" + rule.pattern + "' at " + rule.origin};
  }
  std::string rule = "devices.prefer '" + policy.selector.str() + "'";
  if (!policy.selectorOrigin.empty())
    rule += " (" + policy.selectorOrigin + ")";
  else
    rule += " (" + policy.source + ")";
  return {policy.selector, rule};
}

const FallbackSettings &fallbackSettingsFor(const Policy &policy, std::string_view kernelName) {
  if (policy.fallbackFromEnvironment)
    return policy.fallback;
  for (const KernelOverride &rule : policy.kernels)
    if (rule.fallback && globMatch(rule.pattern, kernelName))
      return *rule.fallback;
  return policy.fallback;
}

FallbackMode fallbackFor(const Policy &policy, std::string_view kernelName, FailureClass failure) {
  const FallbackSettings &settings = fallbackSettingsFor(policy, kernelName);
  if ((settings.covers & failureBit(failure)) == 0)
    return FallbackMode::Deny;
  return settings.mode;
}

namespace {

/// Whether `pattern[p]` (not '*') matches `c`; `next` receives the position after it. A '['
/// without a closing ']' is a literal '[' (checkGlob rejects it in policy files).
bool matchOne(std::string_view pattern, size_t p, char c, size_t &next) {
  char first = pattern[p];
  next = p + 1;
  if (first == '?')
    return true;
  if (first == '[') {
    size_t close = pattern.find(']', p + 1);
    if (close != std::string_view::npos) {
      std::string_view set = pattern.substr(p + 1, close - p - 1);
      bool negate = !set.empty() && set[0] == '!';
      if (negate)
        set.remove_prefix(1);
      bool found = false;
      for (size_t i = 0; i < set.size(); ++i) {
        if (i + 2 < set.size() && set[i + 1] == '-') {
          found |= c >= set[i] && c <= set[i + 2];
          i += 2;
          continue;
        }
        found |= c == set[i];
      }
      next = close + 1;
      return found != negate;
    }
  }
  return first == c;
}

} // namespace

bool globMatch(std::string_view pattern, std::string_view name) {
  // Each element but '*' matches exactly one character, so the classic greedy match with one
  // backtrack point (the last '*') is exact: on a mismatch, let that '*' take one more
  // character. At most |name| backtracks of at most |pattern| steps each.
  size_t p = 0, n = 0;
  size_t starPattern = std::string_view::npos, starName = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      starPattern = ++p;
      starName = n;
      continue;
    }
    size_t next = 0;
    if (p < pattern.size() && matchOne(pattern, p, name[n], next)) {
      p = next;
      ++n;
      continue;
    }
    if (starPattern == std::string_view::npos)
      return false;
    p = starPattern;
    n = ++starName;
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

Error checkGlob(std::string_view pattern) {
  auto malformed = [&](size_t at, const std::string &why) {
    return Error(DPK_ERROR_POLICY,
                 "malformed glob at column " + std::to_string(at + 1) + ": " + why);
  };
  for (size_t p = 0; p < pattern.size(); ++p) {
    if (pattern[p] != '[')
      continue;
    size_t close = pattern.find(']', p + 1);
    if (close == std::string_view::npos)
      return malformed(p, "'[' without a closing ']'");
    size_t start = p + 1;
    if (start < close && pattern[start] == '!')
      ++start;
    if (start == close)
      return malformed(p, "empty character class '" + std::string(pattern.substr(p, close - p + 1)) +
                              "'");
    for (size_t i = start; i < close; ++i) {
      if (i + 2 < close && pattern[i + 1] == '-') {
        if (pattern[i] > pattern[i + 2])
          return malformed(i, "range '" + std::string(pattern.substr(i, 3)) +
                                  "' runs backwards (write '" + std::string(1, pattern[i + 2]) +
                                  "-" + std::string(1, pattern[i]) + "')");
        i += 2;
      }
    }
    p = close;
  }
  return Error::success();
}

} // namespace dpk::policy

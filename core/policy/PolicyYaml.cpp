// PolicyYaml.cpp - reads policy YAML into a Policy, rejecting every unknown key, wrong type and
// bad value with file:line:column and the list of what is allowed.
#include "policy/Policy.h"

#include "support/DidYouMean.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <sstream>

#include "policy/DefaultPolicy.inc"

namespace dpk::policy {
namespace {

std::string joinQuoted(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &name : names)
    out += (out.empty() ? "" : ", ") + name;
  return out;
}

/// " (did you mean 'x'?)" when one allowed name is close to the given one.
std::string suggestion(const std::string &given, const std::vector<std::string> &allowed) {
  std::string best = closestName(given, allowed);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

const char *nodeKindName(const YAML::Node &node) {
  switch (node.Type()) {
  case YAML::NodeType::Undefined:
    return "nothing";
  case YAML::NodeType::Null:
    return "an empty value";
  case YAML::NodeType::Scalar:
    return "a scalar";
  case YAML::NodeType::Sequence:
    return "a list";
  case YAML::NodeType::Map:
    return "a mapping";
  }
  return "?";
}

/// Records where a document starts and ignores the rest of its events: how the reader counts
/// documents without building them.
struct DocumentStart : YAML::EventHandler {
  YAML::Mark mark = YAML::Mark::null_mark();
  void OnDocumentStart(const YAML::Mark &start) override { mark = start; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark &, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark &, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark &, const std::string &, YAML::anchor_t,
                const std::string &) override {}
  void OnSequenceStart(const YAML::Mark &, const std::string &, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark &, const std::string &, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

/// The reader of one document: keeps the file name and the first error.
class PolicyReader {
public:
  PolicyReader(std::string_view fileName, Policy base) : file_(fileName), policy_(std::move(base)) {}

  Expected<Policy> read(std::string_view text) {
    if (text.size() > MaxPolicyFileSize)
      return Error(DPK_ERROR_POLICY, file_ + ": " + std::to_string(text.size()) +
                                         " bytes; policy files are limited to " +
                                         std::to_string(MaxPolicyFileSize) + " bytes");
    YAML::Node root;
    try {
      // Count the documents first, with a parser asked for two at most: YAML::LoadAll loops
      // forever, allocating, on a stray ',' (yaml-cpp 0.7 returns an empty document for it
      // without consuming it; https://github.com/jbeder/yaml-cpp/issues/1040).
      std::string owned(text);
      std::stringstream stream(owned);
      YAML::Parser parser(stream);
      DocumentStart first, second;
      if (parser.HandleNextDocument(first) && parser.HandleNextDocument(second)) {
        if (second.mark.pos == first.mark.pos) {
          char c = static_cast<size_t>(second.mark.pos) < text.size() ? text[second.mark.pos] : '?';
          return Error(DPK_ERROR_POLICY, position(second.mark) + ": malformed YAML: unexpected '" +
                                             std::string(1, c) + "'");
        }
        return Error(DPK_ERROR_POLICY,
                     file_ + ":" + std::to_string(second.mark.line + 1) +
                         ":1: a policy file holds one YAML document; a second one starts here "
                         "(remove the '---' and what follows it)");
      }
      root = YAML::Load(owned);
    } catch (const YAML::DeepRecursion &e) {
      // yaml-cpp's own message for this is "bad file".
      return Error(DPK_ERROR_POLICY, position(e.mark) + ": YAML nested deeper than " +
                                         std::to_string(e.depth()) +
                                         " levels (a policy needs a handful)");
    } catch (const YAML::Exception &e) {
      // e.msg is yaml-cpp's own wording ("illegal map value", "end of map not found").
      return Error(DPK_ERROR_POLICY, position(e.mark) + ": malformed YAML: " + e.msg);
    }
    if (!root.IsMap())
      return Error(DPK_ERROR_POLICY,
                   file_ + ":1:1: a policy must be a mapping starting with 'version: " +
                       std::to_string(PolicySchemaVersion) + "', found " + nodeKindName(root));
    if (!readRoot(root))
      return Error(DPK_ERROR_POLICY, std::move(error_));
    policy_.source = file_;
    return std::move(policy_);
  }

private:
  std::string position(const YAML::Mark &mark) const {
    if (mark.is_null())
      return file_ + ":1:1";
    return file_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }

  std::string where(const YAML::Node &node) const {
    YAML::Mark mark = node.Mark();
    if (mark.is_null())
      return file_ + ":1:1";
    return file_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }

  bool fail(const YAML::Node &node, const std::string &path, const std::string &what) {
    error_ = where(node) + ": " + path + ": " + what;
    return false;
  }

  /// Checks that `map` is a mapping whose keys are all allowed and unique, and returns its
  /// entries in file order as (key, key node, value node).
  struct Entry {
    std::string key;
    YAML::Node keyNode;
    YAML::Node value;
  };
  bool entries(const YAML::Node &map, const std::string &path,
               const std::vector<std::string> &allowed, std::vector<Entry> &out) {
    if (!map.IsMap())
      return fail(map, path, std::string("expected a mapping with keys ") + joinQuoted(allowed) +
                                 ", found " + nodeKindName(map));
    for (auto it = map.begin(); it != map.end(); ++it) {
      // Copies: the iterator hands out a temporary proxy, references into it would dangle.
      YAML::Node keyNode = it->first;
      YAML::Node value = it->second;
      if (!keyNode.IsScalar())
        return fail(keyNode, path, "keys must be plain names");
      std::string key = keyNode.Scalar();
      std::string keyPath = path.empty() ? key : path + "." + key;
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        return fail(keyNode, path.empty() ? "policy" : path,
                    "unknown key '" + key + "'" + suggestion(key, allowed) + "; allowed keys: " +
                        joinQuoted(allowed));
      for (const Entry &seen : out)
        if (seen.key == key)
          return fail(keyNode, keyPath, "duplicate key (first given at " + where(seen.keyNode) +
                                            ")");
      out.push_back({key, keyNode, value});
    }
    return true;
  }

  bool readString(const YAML::Node &node, const std::string &path, std::string &out) {
    if (node.IsNull()) {
      out.clear();
      return true;
    }
    if (!node.IsScalar())
      return fail(node, path, std::string("expected a string, found ") + nodeKindName(node));
    out = node.Scalar();
    return true;
  }

  bool readStringList(const YAML::Node &node, const std::string &path,
                      std::vector<std::string> &out) {
    out.clear();
    if (node.IsNull())
      return true;
    if (!node.IsSequence())
      return fail(node, path, std::string("expected a list of strings, found ") +
                                  nodeKindName(node));
    for (size_t i = 0; i < node.size(); ++i) {
      std::string item;
      if (!readString(node[i], path + "[" + std::to_string(i) + "]", item))
        return false;
      out.push_back(std::move(item));
    }
    return true;
  }

  /// One of a fixed set of names.
  template <typename Enum>
  bool readEnum(const YAML::Node &node, const std::string &path,
                std::initializer_list<std::pair<const char *, Enum>> values, Enum &out) {
    std::vector<std::string> names;
    for (const auto &value : values)
      names.push_back(value.first);
    if (!node.IsScalar())
      return fail(node, path, "expected one of " + joinQuoted(names) + ", found " +
                                  nodeKindName(node));
    const std::string &given = node.Scalar();
    for (const auto &value : values) {
      if (given == value.first) {
        out = value.second;
        return true;
      }
    }
    return fail(node, path, "bad value '" + given + "'" + suggestion(given, names) +
                                "; allowed values: " + joinQuoted(names));
  }

  bool readInt(const YAML::Node &node, const std::string &path, int low, int high, int &out) {
    std::string range = std::to_string(low) + "-" + std::to_string(high);
    if (!node.IsScalar())
      return fail(node, path, "expected an integer " + range + ", found " + nodeKindName(node));
    const std::string &text = node.Scalar();
    bool digits = !text.empty() && text.size() < 10 &&
                  std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits)
      return fail(node, path, "expected an integer " + range + ", found '" + text + "'");
    int value = std::stoi(text);
    if (value < low || value > high)
      return fail(node, path, "value " + text + " is out of range; allowed values: " + range);
    out = value;
    return true;
  }

  /// A filter string, or a list of them (joined as alternatives). Filter errors point at the bad
  /// character when the scalar sits on one line.
  bool readFilter(const YAML::Node &node, const std::string &path, bool exclusions,
                  FilterList &out) {
    out.terms.clear();
    if (node.IsNull())
      return true;
    std::vector<YAML::Node> items;
    if (node.IsScalar()) {
      items.push_back(node);
    } else if (node.IsSequence()) {
      for (size_t i = 0; i < node.size(); ++i)
        items.push_back(node[i]);
    } else {
      return fail(node, path, std::string("expected a device filter string or a list of them, "
                                          "found ") +
                                  nodeKindName(node));
    }
    for (size_t i = 0; i < items.size(); ++i) {
      const YAML::Node &item = items[i];
      std::string itemPath = node.IsSequence() ? path + "[" + std::to_string(i) + "]" : path;
      if (!item.IsScalar())
        return fail(item, itemPath, std::string("expected a device filter string, found ") +
                                        nodeKindName(item));
      std::string text = item.Scalar();
      Expected<FilterList> parsed = parseFilter(text);
      if (!parsed)
        return failAtColumn(item, itemPath, text, parsed.error());
      if (!exclusions) {
        out.terms.insert(out.terms.end(), parsed->terms.begin(), parsed->terms.end());
        continue;
      }
      for (DeviceTerm term : parsed->terms) {
        term.exclude = true; // "opencl" and "!opencl" mean the same under exclude:
        out.terms.push_back(std::move(term));
      }
    }
    return true;
  }

  /// Fails with `error`, whose message says "at column N" of the scalar `item` (a device filter
  /// or a glob), at the file position of that character. Quoted scalars (tag "!") start one
  /// character after the mark.
  bool failAtColumn(const YAML::Node &item, const std::string &path, const std::string &text,
                    const Error &error) {
    YAML::Mark mark = item.Mark();
    size_t column = 0;
    std::string message = error.message();
    const std::string marker = "at column ";
    size_t at = message.find(marker);
    if (at != std::string::npos) {
      size_t named = std::strtoul(message.c_str() + at + marker.size(), nullptr, 10);
      column = named > 0 ? named - 1 : 0;
    }
    bool quoted = item.Tag() == "!";
    bool oneLine = text.find('\n') == std::string::npos;
    std::string position = where(item);
    if (!mark.is_null() && oneLine)
      position = file_ + ":" + std::to_string(mark.line + 1) + ":" +
                 std::to_string(mark.column + 1 + (quoted ? 1 : 0) + column);
    error_ = position + ": " + path + ": " + message;
    return false;
  }

  bool readFailureSet(const YAML::Node &node, const std::string &path, FailureSet &out) {
    std::vector<std::string> names;
    for (unsigned i = 0; i < NumFailureClasses; ++i)
      names.push_back(failureClassName(static_cast<FailureClass>(i)));
    names.push_back("all");
    std::vector<YAML::Node> items;
    if (node.IsScalar())
      items.push_back(node);
    else if (node.IsSequence())
      for (size_t i = 0; i < node.size(); ++i)
        items.push_back(node[i]);
    else if (!node.IsNull())
      return fail(node, path, "expected a list of failure classes (" + joinQuoted(names) +
                                  "), found " + nodeKindName(node));
    out = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      std::string itemPath = node.IsSequence() ? path + "[" + std::to_string(i) + "]" : path;
      if (!items[i].IsScalar())
        return fail(items[i], itemPath, std::string("expected a failure class, found ") +
                                            nodeKindName(items[i]));
      std::string name = items[i].Scalar();
      if (name == "all") {
        out = AllFailures;
        continue;
      }
      std::optional<FailureClass> failure = parseFailureClass(name);
      if (!failure)
        return fail(items[i], itemPath, "bad value '" + name + "'" + suggestion(name, names) +
                                            "; allowed values: " + joinQuoted(names));
      out |= failureBit(*failure);
    }
    return true;
  }

  bool readFallback(const YAML::Node &node, const std::string &path, FallbackSettings &out) {
    std::vector<Entry> fields;
    if (!entries(node, path, {"mode", "on"}, fields))
      return false;
    out.origin = where(node);
    for (const Entry &e : fields) {
      std::string keyPath = path + "." + e.key;
      if (e.key == "mode" &&
          !readEnum<FallbackMode>(e.value, keyPath,
                                  {{"deny", FallbackMode::Deny},
                                   {"warn", FallbackMode::Warn},
                                   {"allow", FallbackMode::Allow}},
                                  out.mode))
        return false;
      if (e.key == "on" && !readFailureSet(e.value, keyPath, out.covers))
        return false;
    }
    return true;
  }

  bool readDevices(const YAML::Node &node) {
    std::vector<Entry> fields;
    if (!entries(node, "devices", {"prefer", "exclude"}, fields))
      return false;
    // Keep what the file does not mention from the base policy.
    FilterList prefer, exclude;
    for (const DeviceTerm &term : policy_.selector.terms)
      (term.exclude ? exclude : prefer).terms.push_back(term);
    for (const Entry &e : fields) {
      if (e.key == "prefer" && !readFilter(e.value, "devices.prefer", false, prefer))
        return false;
      if (e.key == "exclude" && !readFilter(e.value, "devices.exclude", true, exclude))
        return false;
    }
    policy_.selector = prefer;
    policy_.selector.terms.insert(policy_.selector.terms.end(), exclude.terms.begin(),
                                  exclude.terms.end());
    policy_.selectorOrigin = "devices at " + where(node);
    return true;
  }

  bool readKernels(const YAML::Node &node) {
    policy_.kernels.clear();
    if (node.IsNull())
      return true;
    if (!node.IsSequence())
      return fail(node, "kernels", std::string("expected a list of {match, devices, fallback} "
                                               "mappings, found ") +
                                       nodeKindName(node));
    for (size_t i = 0; i < node.size(); ++i) {
      std::string path = "kernels[" + std::to_string(i) + "]";
      std::vector<Entry> fields;
      if (!entries(node[i], path, {"match", "devices", "fallback"}, fields))
        return false;
      KernelOverride rule;
      rule.origin = where(node[i]);
      bool hasMatch = false;
      for (const Entry &e : fields) {
        if (e.key == "match") {
          if (!readString(e.value, path + ".match", rule.pattern))
            return false;
          if (rule.pattern.empty())
            return fail(e.value, path + ".match", "expected a kernel name pattern (glob)");
          if (Error error = checkGlob(rule.pattern))
            return failAtColumn(e.value, path + ".match", rule.pattern, error);
          hasMatch = true;
        } else if (e.key == "devices") {
          FilterList filter;
          if (!readFilter(e.value, path + ".devices", false, filter))
            return false;
          rule.selector = std::move(filter);
        } else if (e.key == "fallback") {
          FallbackSettings fallback = policy_.fallback; // 'on' defaults to the global list
          if (!readFallback(e.value, path + ".fallback", fallback))
            return false;
          rule.fallback = std::move(fallback);
        }
      }
      if (!hasMatch)
        return fail(node[i], path, "missing key 'match' (the kernel name pattern)");
      policy_.kernels.push_back(std::move(rule));
    }
    return true;
  }

  bool readDiagnostics(const YAML::Node &node) {
    std::vector<Entry> fields;
    if (!entries(node, "diagnostics", {"level", "format", "sink", "file", "dump_dir"}, fields))
      return false;
    DiagnosticsSettings &d = policy_.diagnostics;
    enum class Sink { Stderr, File } sink = d.file.empty() ? Sink::Stderr : Sink::File;
    const YAML::Node *sinkNode = nullptr;
    std::string file = d.file;
    for (const Entry &e : fields) {
      std::string path = "diagnostics." + e.key;
      if (e.key == "level" && !readInt(e.value, path, 0, 4, d.level))
        return false;
      if (e.key == "format" &&
          !readEnum<DiagnosticsFormat>(
              e.value, path,
              {{"text", DiagnosticsFormat::Text}, {"json", DiagnosticsFormat::Json}}, d.format))
        return false;
      if (e.key == "sink") {
        if (!readEnum<Sink>(e.value, path, {{"stderr", Sink::Stderr}, {"file", Sink::File}}, sink))
          return false;
        sinkNode = &e.value;
      }
      if (e.key == "file" && !readString(e.value, path, file))
        return false;
      if (e.key == "dump_dir" && !readString(e.value, path, d.dumpDir))
        return false;
    }
    if (sink == Sink::File && file.empty())
      return fail(sinkNode ? *sinkNode : node, "diagnostics.sink",
                  "sink 'file' needs diagnostics.file (the path records are appended to)");
    d.file = sink == Sink::File ? file : "";
    return true;
  }

  bool readPlugins(const YAML::Node &node) {
    std::vector<Entry> fields;
    if (!entries(node, "plugins", {"search_paths", "disabled"}, fields))
      return false;
    for (const Entry &e : fields) {
      if (e.key == "search_paths" &&
          !readStringList(e.value, "plugins.search_paths", policy_.plugins.searchPaths))
        return false;
      if (e.key != "disabled")
        continue;
      if (!readStringList(e.value, "plugins.disabled", policy_.plugins.disabled))
        return false;
      // Names of other plugins are allowed; a near miss of a known backend is a typo.
      std::vector<std::string> known = knownBackendNames();
      for (size_t i = 0; i < policy_.plugins.disabled.size(); ++i) {
        const std::string &name = policy_.plugins.disabled[i];
        if (std::find(known.begin(), known.end(), name) != known.end())
          continue;
        std::string close = closestName(name, known);
        if (!close.empty() || !isBackendName(name))
          return fail(e.value[i], "plugins.disabled[" + std::to_string(i) + "]",
                      "unknown backend '" + name + "'" + suggestion(name, known) +
                          "; known backends: " + joinQuoted(known));
      }
    }
    return true;
  }

  bool readCache(const YAML::Node &node) {
    std::vector<Entry> fields;
    if (!entries(node, "cache", {"dir", "mode"}, fields))
      return false;
    for (const Entry &e : fields) {
      if (e.key == "dir" && !readString(e.value, "cache.dir", policy_.cache.dir))
        return false;
      if (e.key == "mode" &&
          !readEnum<CacheMode>(e.value, "cache.mode",
                               {{"read_write", CacheMode::ReadWrite},
                                {"read_only", CacheMode::ReadOnly},
                                {"off", CacheMode::Off}},
                               policy_.cache.mode))
        return false;
    }
    return true;
  }

  bool readPlacement(const YAML::Node &node) {
    std::vector<Entry> fields;
    if (!entries(node, "placement", {"mixed_devices"}, fields))
      return false;
    for (const Entry &e : fields) {
      if (e.key == "mixed_devices" &&
          !readEnum<MixedDevices>(e.value, "placement.mixed_devices",
                                  {{"error", MixedDevices::Error},
                                   {"migrate", MixedDevices::Migrate}},
                                  policy_.placement.mixedDevices))
        return false;
      policy_.placement.origin = where(e.value);
    }
    return true;
  }

  bool readArrays(const YAML::Node &node) {
    std::vector<Entry> fields;
    if (!entries(node, "arrays", {"fusion"}, fields))
      return false;
    for (const Entry &e : fields) {
      if (e.key == "fusion" &&
          !readEnum<bool>(e.value, "arrays.fusion", {{"false", false}, {"true", true}},
                          policy_.arrays.fusion))
        return false;
      policy_.arrays.fusionOrigin = where(e.value);
    }
    return true;
  }

  bool readRoot(const YAML::Node &root) {
    std::vector<Entry> fields;
    if (!entries(root, "", {"version", "devices", "fallback", "kernels", "diagnostics", "plugins",
                            "cache", "placement", "boundscheck", "arrays"},
                 fields))
      return false;
    auto find = [&](const char *key) -> const Entry * {
      for (const Entry &e : fields)
        if (e.key == key)
          return &e;
      return nullptr;
    };
    const Entry *version = find("version");
    if (!version)
      return fail(root, "policy", "missing key 'version' (this dpk reads 'version: " +
                                      std::to_string(PolicySchemaVersion) + "')");
    if (!readInt(version->value, "version", 0, 1 << 20, policy_.schemaVersion))
      return false;
    if (policy_.schemaVersion != PolicySchemaVersion)
      return fail(version->value, "version",
                  "unsupported schema version " + std::to_string(policy_.schemaVersion) +
                      "; this dpk reads version " + std::to_string(PolicySchemaVersion));
    // Fallback before kernels: a kernel rule's fallback inherits the file's global 'on' list.
    if (const Entry *e = find("fallback"); e && !readFallback(e->value, "fallback", policy_.fallback))
      return false;
    if (const Entry *e = find("devices"); e && !readDevices(e->value))
      return false;
    if (const Entry *e = find("kernels"); e && !readKernels(e->value))
      return false;
    if (const Entry *e = find("diagnostics"); e && !readDiagnostics(e->value))
      return false;
    if (const Entry *e = find("plugins"); e && !readPlugins(e->value))
      return false;
    if (const Entry *e = find("cache"); e && !readCache(e->value))
      return false;
    if (const Entry *e = find("placement"); e && !readPlacement(e->value))
      return false;
    if (const Entry *e = find("boundscheck")) {
      if (!readEnum<bool>(e->value, "boundscheck", {{"false", false}, {"true", true}},
                          policy_.boundsCheck))
        return false;
      policy_.boundsCheckOrigin = where(e->value);
    }
    if (const Entry *e = find("arrays"); e && !readArrays(e->value))
      return false;
    return true;
  }

  std::string file_;
  Policy policy_;
  std::string error_;
};

} // namespace

std::string_view builtinPolicyText() { return DefaultPolicyText; }

const Policy &builtinPolicy() {
  static const Policy policy = [] {
    Expected<Policy> parsed =
        PolicyReader("built-in default", Policy{}).read(builtinPolicyText());
    assert(parsed && "config/default-policy.yaml must parse");
    if (!parsed)
      return Policy{};
    Policy result = std::move(*parsed);
    result.source = "built-in default";
    return result;
  }();
  return policy;
}

Expected<Policy> parsePolicy(std::string_view yamlText, std::string_view fileName) {
  return PolicyReader(fileName, builtinPolicy()).read(yamlText);
}

} // namespace dpk::policy

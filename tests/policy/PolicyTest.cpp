// PolicyTest.cpp - policy YAML (every error class by message), the shipped files, the search
// order, environment over file, and the questions the runtime asks (backendAllowed, selectorFor,
// fallbackFor).
#include "policy/Policy.h"

#include "TestSupport.h"

#include <chrono>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <optional>
#include <sys/wait.h>
#include <thread>
#include <gtest/gtest.h>

using namespace dpk::policy;
using dpk::test::ScopedEnvironment;

namespace {

Policy parseOk(const std::string &yaml) {
  dpk::Expected<Policy> policy = parsePolicy(yaml, "t.yaml");
  EXPECT_TRUE(policy) << policy.error().message();
  return policy ? *policy : Policy{};
}

std::string parseError(const std::string &yaml) {
  dpk::Expected<Policy> policy = parsePolicy(yaml, "t.yaml");
  EXPECT_FALSE(policy) << "should not parse:\n" << yaml;
  if (policy)
    return "";
  EXPECT_EQ(policy.error().status(), DPK_ERROR_POLICY) << policy.error().message();
  return policy.error().message();
}

std::vector<std::string> yamlFilesIn(const std::string &dir) {
  std::vector<std::string> files;
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return files;
  while (dirent *entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.substr(name.size() - 5) == ".yaml")
      files.push_back(dir + "/" + name);
  }
  ::closedir(d);
  return files;
}

} // namespace

// ---- the shipped files -------------------------------------------------------------------------

TEST(PolicyDefault, EmbeddedTextIsTheShippedFile) {
  EXPECT_EQ(std::string(builtinPolicyText()),
            dpk::test::readFile(DPK_SOURCE_DIR "/config/default-policy.yaml"));
}

TEST(PolicyDefault, BuiltinValues) {
  const Policy &p = builtinPolicy();
  EXPECT_EQ(p.schemaVersion, 1);
  EXPECT_EQ(p.source, "built-in default");
  EXPECT_EQ(p.selector.str(),
            "cuda:gpu,level_zero:gpu,opencl:gpu,host,opencl:cpu,opencl:accelerator,*");
  EXPECT_EQ(p.fallback.mode, FallbackMode::Warn);
  EXPECT_EQ(p.fallback.covers, AllFailures);
  EXPECT_EQ(p.diagnostics.level, 0);
  EXPECT_EQ(p.diagnostics.format, DiagnosticsFormat::Text);
  EXPECT_EQ(p.diagnostics.file, "");
  EXPECT_EQ(p.diagnostics.dumpDir, "dpk-dump");
  EXPECT_EQ(p.cache.mode, CacheMode::ReadWrite);
  EXPECT_TRUE(p.kernels.empty());
  EXPECT_TRUE(p.plugins.disabled.empty());
  for (const char *backend : {"host", "opencl", "level_zero", "cuda"})
    EXPECT_TRUE(backendAllowed(p, backend)) << backend;
}

TEST(PolicyDefault, EveryShippedFileParses) {
  std::vector<std::string> files = yamlFilesIn(DPK_SOURCE_DIR "/config");
  std::vector<std::string> examples = yamlFilesIn(DPK_SOURCE_DIR "/config/examples");
  files.insert(files.end(), examples.begin(), examples.end());
  EXPECT_GE(files.size(), 4u);
  for (const std::string &file : files) {
    dpk::Expected<Policy> policy = loadPolicyFile(file);
    EXPECT_TRUE(policy) << file << ": " << policy.error().message();
  }
}

TEST(PolicyDefault, ExampleValues) {
  dpk::Expected<Policy> strict = loadPolicyFile(DPK_SOURCE_DIR "/config/examples/gpu-strict.yaml");
  ASSERT_TRUE(strict) << strict.error().message();
  EXPECT_EQ(strict->selector.str(), "cuda:gpu,level_zero:gpu,opencl:gpu");
  EXPECT_EQ(strict->fallback.mode, FallbackMode::Deny);
  EXPECT_FALSE(backendAllowed(*strict, "host"));

  dpk::Expected<Policy> debug = loadPolicyFile(DPK_SOURCE_DIR "/config/examples/cpu-debug.yaml");
  ASSERT_TRUE(debug) << debug.error().message();
  EXPECT_EQ(debug->selector.str(), "host,opencl:cpu,!gpu");
  EXPECT_EQ(debug->diagnostics.level, 4);
  EXPECT_EQ(debug->diagnostics.format, DiagnosticsFormat::Json);
  EXPECT_EQ(debug->diagnostics.file, "dpk-diagnostics.jsonl");
  EXPECT_EQ(debug->fallback.covers, failureBit(FailureClass::Compile) |
                                         failureBit(FailureClass::Launch));
  EXPECT_EQ(debug->cache.mode, CacheMode::ReadOnly);
  EXPECT_FALSE(backendAllowed(*debug, "cuda"));
  EXPECT_TRUE(backendAllowed(*debug, "opencl"));
}

// ---- parsing and overlay -------------------------------------------------------------------------

TEST(PolicyParse, KeysLeftOutKeepTheDefault) {
  Policy p = parseOk("version: 1\ndiagnostics:\n  level: 2\n");
  EXPECT_EQ(p.diagnostics.level, 2);
  EXPECT_EQ(p.selector.str(), builtinPolicy().selector.str());
  EXPECT_EQ(p.fallback.mode, FallbackMode::Warn);
  EXPECT_EQ(p.source, "t.yaml");
}

TEST(PolicyParse, AllSections) {
  Policy p = parseOk(R"(version: 1
devices:
  prefer: "opencl:cpu, host"
  exclude: ["!opencl:gpu", cuda]
fallback: {mode: allow, on: [compile, out_of_memory]}
kernels:
  - match: "mm_*"
    devices: cuda:gpu
    fallback: {mode: deny}
diagnostics: {level: 3, format: json, sink: file, file: /tmp/d.jsonl, dump_dir: /tmp/dump}
plugins: {search_paths: [/opt/dpk/plugins], disabled: [level_zero]}
cache: {dir: /tmp/c, mode: "off"}
)");
  EXPECT_EQ(p.selector.str(), "opencl:cpu,host,!opencl:gpu,!cuda");
  EXPECT_EQ(p.fallback.mode, FallbackMode::Allow);
  EXPECT_EQ(p.fallback.covers,
            failureBit(FailureClass::Compile) | failureBit(FailureClass::OutOfMemory));
  EXPECT_EQ(p.fallback.origin, "t.yaml:5:11");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].pattern, "mm_*");
  EXPECT_EQ(p.kernels[0].selector->str(), "cuda:gpu");
  EXPECT_EQ(p.kernels[0].fallback->mode, FallbackMode::Deny);
  EXPECT_EQ(p.kernels[0].fallback->covers, p.fallback.covers); // inherits the file's 'on'
  EXPECT_EQ(p.kernels[0].origin, "t.yaml:7:5");
  EXPECT_EQ(p.diagnostics.level, 3);
  EXPECT_EQ(p.diagnostics.format, DiagnosticsFormat::Json);
  EXPECT_EQ(p.diagnostics.file, "/tmp/d.jsonl");
  EXPECT_EQ(p.diagnostics.dumpDir, "/tmp/dump");
  EXPECT_EQ(p.plugins.searchPaths, std::vector<std::string>{"/opt/dpk/plugins"});
  EXPECT_EQ(p.plugins.disabled, std::vector<std::string>{"level_zero"});
  EXPECT_EQ(p.cache.dir, "/tmp/c");
  EXPECT_EQ(p.cache.mode, CacheMode::Off);
}

// ---- every error class, by message -------------------------------------------------------------

TEST(PolicyErrors, UnknownKeyListsAllowedKeys) {
  EXPECT_EQ(parseError("version: 1\ndevics:\n  prefer: gpu\n"),
            "t.yaml:2:1: policy: unknown key 'devics' (did you mean 'devices'?); allowed keys: "
            "version, devices, fallback, kernels, diagnostics, plugins, cache, placement, "
            "boundscheck, arrays");
  EXPECT_EQ(parseError("version: 1\nfallback:\n  mode: warn\n  mdoe: deny\n"),
            "t.yaml:4:3: fallback: unknown key 'mdoe' (did you mean 'mode'?); allowed keys: "
            "mode, on");
  EXPECT_EQ(parseError("version: 1\ndiagnostics:\n  colour: red\n"),
            "t.yaml:3:3: diagnostics: unknown key 'colour'; allowed keys: level, format, sink, "
            "file, dump_dir");
  EXPECT_EQ(parseError("version: 1\nkernels:\n  - match: a\n    device: gpu\n"),
            "t.yaml:4:5: kernels[0]: unknown key 'device' (did you mean 'devices'?); allowed "
            "keys: match, devices, fallback");
}

TEST(PolicyErrors, WrongType) {
  EXPECT_EQ(parseError("version: 1\ndiagnostics:\n  level: high\n"),
            "t.yaml:3:10: diagnostics.level: expected an integer 0-4, found 'high'");
  EXPECT_EQ(parseError("version: 1\ndiagnostics:\n  level: [1]\n"),
            "t.yaml:3:10: diagnostics.level: expected an integer 0-4, found a list");
  EXPECT_EQ(parseError("version: 1\ndevices: gpu\n"),
            "t.yaml:2:10: devices: expected a mapping with keys prefer, exclude, found a scalar");
  EXPECT_EQ(parseError("version: 1\nplugins:\n  disabled: cuda\n"),
            "t.yaml:3:13: plugins.disabled: expected a list of strings, found a scalar");
  EXPECT_EQ(parseError("version: 1\nkernels: {match: a}\n"),
            "t.yaml:2:10: kernels: expected a list of {match, devices, fallback} mappings, found "
            "a mapping");
  EXPECT_EQ(parseError("version: 1\ncache:\n  dir: {a: b}\n"),
            "t.yaml:3:8: cache.dir: expected a string, found a mapping");
}

TEST(PolicyErrors, BadValueListsAllowedValues) {
  EXPECT_EQ(parseError("version: 1\nfallback:\n  mode: wran\n"),
            "t.yaml:3:9: fallback.mode: bad value 'wran' (did you mean 'warn'?); allowed values: "
            "deny, warn, allow");
  EXPECT_EQ(parseError("version: 1\nfallback:\n  on: [compile, lunch]\n"),
            "t.yaml:3:17: fallback.on[1]: bad value 'lunch' (did you mean 'launch'?); allowed "
            "values: no_device, plugin_load, compile, launch, out_of_memory, all");
  EXPECT_EQ(parseError("version: 1\ndiagnostics:\n  level: 5\n"),
            "t.yaml:3:10: diagnostics.level: value 5 is out of range; allowed values: 0-4");
  EXPECT_EQ(parseError("version: 1\ndiagnostics:\n  format: xml\n"),
            "t.yaml:3:11: diagnostics.format: bad value 'xml'; allowed values: text, json");
  EXPECT_EQ(parseError("version: 1\ncache:\n  mode: readonly\n"),
            "t.yaml:3:9: cache.mode: bad value 'readonly' (did you mean 'read_only'?); allowed "
            "values: read_write, read_only, off");
  EXPECT_EQ(parseError("version: 1\nplugins:\n  disabled: [cdua]\n"),
            "t.yaml:3:14: plugins.disabled[0]: unknown backend 'cdua' (did you mean 'cuda'?); "
            "known backends: cuda, host, level_zero, opencl");
  EXPECT_EQ(parseOk("version: 1\nplugins:\n  disabled: [fault]\n").plugins.disabled,
            std::vector<std::string>{"fault"}); // another plugin's backend
  EXPECT_EQ(parseError("version: 1\ndiagnostics:\n  sink: file\n"),
            "t.yaml:3:9: diagnostics.sink: sink 'file' needs diagnostics.file (the path records "
            "are appended to)");
}

TEST(PolicyErrors, BadFilterPointsAtTheCharacter) {
  std::string quoted = parseError("version: 1\ndevices:\n  prefer: [gpu, \"opencl:gpx\"]\n");
  EXPECT_EQ(quoted.substr(0, quoted.find('\n')),
            "t.yaml:3:25: devices.prefer[1]: malformed device filter at column 8: unknown "
            "backend or device type 'gpx' (did you mean 'gpu'?) (backends: cuda, host, "
            "level_zero, opencl; device types: cpu, gpu, accelerator)");
  EXPECT_NE(quoted.find("\n  opencl:gpx\n         ^"), std::string::npos) << quoted;
  std::string plain = parseError("version: 1\ndevices:\n  exclude: opencl::gpu\n");
  EXPECT_EQ(plain.substr(0, plain.find('\n')),
            "t.yaml:3:19: devices.exclude: malformed device filter at column 8: expected a "
            "backend, device type, index or '*', found ':'");
  std::string kernel = parseError("version: 1\nkernels:\n  - {match: a, devices: 'gpu,,cpu'}\n");
  EXPECT_EQ(kernel.substr(0, kernel.find('\n')),
            "t.yaml:3:30: kernels[0].devices: malformed device filter at column 5: expected a "
            "backend, device type, index or '*', found ','");
}

TEST(PolicyErrors, SchemaVersion) {
  EXPECT_EQ(parseError("version: 2\n"),
            "t.yaml:1:10: version: unsupported schema version 2; this dpk reads version 1");
  EXPECT_EQ(parseError("version: one\n"),
            "t.yaml:1:10: version: expected an integer 0-1048576, found 'one'");
  EXPECT_EQ(parseError("diagnostics: {level: 1}\n"),
            "t.yaml:1:1: policy: missing key 'version' (this dpk reads 'version: 1')");
}

TEST(PolicyErrors, MalformedYaml) {
  std::string unclosed = parseError("version: 1\ndevices:\n  prefer: [gpu, cpu\n");
  EXPECT_EQ(unclosed.rfind("t.yaml:", 0), 0u) << unclosed;
  EXPECT_NE(unclosed.find(": malformed YAML: "), std::string::npos) << unclosed;
  EXPECT_EQ(parseError("version: 1\n  devices: x\n"),
            "t.yaml:2:10: malformed YAML: illegal map value");
  EXPECT_EQ(parseError("- a\n- b\n"),
            "t.yaml:1:1: a policy must be a mapping starting with 'version: 1', found a list");
  EXPECT_EQ(parseError(""),
            "t.yaml:1:1: a policy must be a mapping starting with 'version: 1', found an empty "
            "value");
}

TEST(PolicyErrors, StructuralMistakes) {
  EXPECT_EQ(parseError("version: 1\ncache: {mode: off}\ncache: {dir: x}\n"),
            "t.yaml:3:1: cache: duplicate key (first given at t.yaml:2:1)");
  EXPECT_EQ(parseError("version: 1\nkernels:\n  - devices: gpu\n"),
            "t.yaml:3:5: kernels[0]: missing key 'match' (the kernel name pattern)");
}

// ---- hostile files (issue 15, item N) -------------------------------------------------------------

TEST(PolicyErrors, SecondDocumentIsAnErrorNamingItsLine) {
  const std::string oneDocument =
      "a policy file holds one YAML document; a second one starts here (remove the '---' and "
      "what follows it)";
  EXPECT_EQ(parseError("version: 1\n---\nversion: 2\n"), "t.yaml:2:1: " + oneDocument);
  EXPECT_EQ(parseError("version: 1\ndiagnostics: {level: 1}\n--- {devices: 0}\n"),
            "t.yaml:3:1: " + oneDocument);
  // Even an empty one, and one after an explicit document end.
  EXPECT_EQ(parseError("version: 1\n---\n"), "t.yaml:2:1: " + oneDocument);
  EXPECT_EQ(parseError("version: 1\n...\n---\n# nothing\n"), "t.yaml:3:1: " + oneDocument);
  // A malformed second document is reported where it is malformed.
  std::string malformed = parseError("version: 1\n---\nfoo: [\n");
  EXPECT_EQ(malformed.rfind("t.yaml:4:1: malformed YAML: ", 0), 0u) << malformed;
  // A stray ',' must not read as endless empty documents (YAML::LoadAll looped, allocating).
  EXPECT_EQ(parseError(","), "t.yaml:1:1: malformed YAML: unexpected ','");
  EXPECT_EQ(parseError(",,,,,\nversion: 1\n"), "t.yaml:1:1: malformed YAML: unexpected ','");
  // One document with its optional markers is fine.
  parseOk("---\nversion: 1\n");
  parseOk("---\nversion: 1\n...\n");
}

TEST(PolicyErrors, MalformedGlobsPointAtTheCharacter) {
  EXPECT_EQ(parseError("version: 1\nkernels:\n  - {match: \"[a-\", devices: host}\n"),
            "t.yaml:3:14: kernels[0].match: malformed glob at column 1: '[' without a closing "
            "']'");
  EXPECT_EQ(parseError("version: 1\nkernels:\n  - match: k[z-a]\n"),
            "t.yaml:3:14: kernels[0].match: malformed glob at column 3: range 'z-a' runs "
            "backwards (write 'a-z')");
  EXPECT_EQ(parseError("version: 1\nkernels:\n  - match: a\n  - match: 'x[]'\n"),
            "t.yaml:4:14: kernels[1].match: malformed glob at column 2: empty character class "
            "'[]'");
  EXPECT_EQ(parseError("version: 1\nkernels:\n  - match: 'x[!]'\n"),
            "t.yaml:3:14: kernels[0].match: malformed glob at column 2: empty character class "
            "'[!]'");
  // Well-formed classes still parse: ranges, negation, a literal '-' at either end.
  Policy p = parseOk("version: 1\nkernels:\n  - match: 'k[a-c][!0-9][-x][x-]*'\n");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_TRUE(globMatch(p.kernels[0].pattern, "kbz-x_f64"));
}

TEST(PolicyErrors, DeepNestingSaysSo) {
  std::string deep = "version: 1\nkernels: ";
  for (int i = 0; i < 20000; ++i)
    deep += "[";
  std::string message = parseError(deep);
  EXPECT_EQ(message.rfind("t.yaml:2:", 0), 0u) << message;
  EXPECT_NE(message.find(": YAML nested deeper than "), std::string::npos) << message;
  EXPECT_EQ(message.find("bad file"), std::string::npos) << message;

  std::string blocks = "version: 1\nplugins:\n";
  std::string indent = "  ";
  for (int i = 0; i < 1000; ++i, indent += " ")
    blocks += indent + "a:\n";
  message = parseError(blocks);
  EXPECT_NE(message.find(": YAML nested deeper than "), std::string::npos) << message;
}

TEST(PolicyErrors, TextOverTheSizeLimitIsRefusedBeforeParsing) {
  std::string big = "version: 1\n# " + std::string(MaxPolicyFileSize, 'x') + "\n";
  EXPECT_EQ(parseError(big), "t.yaml: " + std::to_string(big.size()) +
                                 " bytes; policy files are limited to 1048576 bytes");
  // Just under the limit is read.
  std::string fits = "version: 1\n# " + std::string(MaxPolicyFileSize - 20, 'x') + "\n";
  parseOk(fits);
}

namespace {

/// Runs `body` in a forked child and returns what it printed to the pipe, or nullopt when it
/// did not finish within `seconds` (it is killed then): a call that blocks fails the test
/// instead of hanging it.
std::optional<std::string> inChildWithin(int seconds, const std::function<std::string()> &body) {
  int fds[2];
  if (::pipe(fds) != 0)
    return std::nullopt;
  pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    std::string out = body();
    if (::write(fds[1], out.data(), out.size()) < 0)
      ::_exit(2);
    ::_exit(0);
  }
  ::close(fds[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      ::close(fds[0]);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string out;
  char chunk[4096];
  ssize_t got;
  while ((got = ::read(fds[0], chunk, sizeof chunk)) > 0)
    out.append(chunk, static_cast<size_t>(got));
  ::close(fds[0]);
  return out;
}

std::string loadPolicyMessage() {
  dpk::Expected<Policy> p = loadPolicy();
  if (p)
    return "loaded";
  return std::to_string(p.error().status()) + " " + p.error().message();
}

} // namespace

// Bounds-check mode (issue 15 F): the `boundscheck:` key, overridden by DPK_BOUNDSCHECK.
TEST(PolicyBoundsCheck, KeyAndVariable) {
  EXPECT_FALSE(builtinPolicy().boundsCheck);
  Policy on = parseOk("version: 1\nboundscheck: true\n");
  EXPECT_TRUE(on.boundsCheck);
  EXPECT_EQ(on.boundsCheckOrigin, "t.yaml:2:14");
  EXPECT_FALSE(parseOk("version: 1\nboundscheck: false\n").boundsCheck);
  EXPECT_EQ(parseError("version: 1\nboundscheck: sometimes\n"),
            "t.yaml:2:14: boundscheck: bad value 'sometimes'; allowed values: false, true");
  ScopedEnvironment env;
  env.set("DPK_BOUNDSCHECK", "1");
  Policy policy = on;
  policy.boundsCheck = false;
  ASSERT_FALSE(applyEnvironment(policy));
  EXPECT_TRUE(policy.boundsCheck);
  EXPECT_EQ(policy.boundsCheckOrigin, "DPK_BOUNDSCHECK");
  env.set("DPK_BOUNDSCHECK", "0");
  ASSERT_FALSE(applyEnvironment(on));
  EXPECT_FALSE(on.boundsCheck); // the variable wins over the file
  env.set("DPK_BOUNDSCHECK", "maybe");
  dpk::Error error = applyEnvironment(policy);
  ASSERT_TRUE(error);
  EXPECT_EQ(error.status(), DPK_ERROR_POLICY);
  EXPECT_NE(error.message().find("DPK_BOUNDSCHECK"), std::string::npos) << error.message();
}

// Fusion of array operations (issue 17): the `arrays: {fusion: ...}` key, overridden by DPK_FUSION.
TEST(PolicyArrays, FusionKeyAndVariable) {
  EXPECT_TRUE(builtinPolicy().arrays.fusion);
  EXPECT_NE(builtinPolicy().arrays.fusionOrigin.find("built-in default"), std::string::npos);
  Policy off = parseOk("version: 1\narrays:\n  fusion: false\n");
  EXPECT_FALSE(off.arrays.fusion);
  EXPECT_EQ(off.arrays.fusionOrigin, "t.yaml:3:11");
  EXPECT_TRUE(parseOk("version: 1\narrays: {fusion: true}\n").arrays.fusion);
  EXPECT_TRUE(parseOk("version: 1\narrays: {}\n").arrays.fusion); // left out: the default
  EXPECT_EQ(parseError("version: 1\narrays:\n  fusion: sometimes\n"),
            "t.yaml:3:11: arrays.fusion: bad value 'sometimes'; allowed values: false, true");
  EXPECT_EQ(parseError("version: 1\narrays:\n  fusio: false\n"),
            "t.yaml:3:3: arrays: unknown key 'fusio' (did you mean 'fusion'?); allowed keys: "
            "fusion");
  ScopedEnvironment env;
  env.set("DPK_FUSION", "1");
  ASSERT_FALSE(applyEnvironment(off));
  EXPECT_TRUE(off.arrays.fusion); // the variable wins over the file
  EXPECT_EQ(off.arrays.fusionOrigin, "DPK_FUSION");
  env.set("DPK_FUSION", "off");
  ASSERT_FALSE(applyEnvironment(off));
  EXPECT_FALSE(off.arrays.fusion);
  env.set("DPK_FUSION", "perhaps");
  dpk::Error error = applyEnvironment(off);
  ASSERT_TRUE(error);
  EXPECT_EQ(error.status(), DPK_ERROR_POLICY);
  EXPECT_NE(error.message().find("DPK_FUSION"), std::string::npos) << error.message();
  EXPECT_NE(error.message().find("perhaps"), std::string::npos) << error.message();
}

TEST(PolicySearch, DpkConfigNamingAFifoDoesNotHang) {
  ScopedEnvironment env;
  std::string fifo = dpk::test::makeTempDir() + "/policy.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  env.set("DPK_CONFIG", fifo);
  std::optional<std::string> message = inChildWithin(10, loadPolicyMessage);
  ASSERT_TRUE(message) << "loadPolicy() blocked on a FIFO";
  EXPECT_EQ(*message, std::to_string(DPK_ERROR_POLICY) + " policy file '" + fifo +
                          "' is a FIFO, not a regular file (DPK_CONFIG)");
}

TEST(PolicySearch, DpkConfigNamingADirectoryOrDeviceIsAnError) {
  ScopedEnvironment env;
  std::string dir = dpk::test::makeTempDir();
  env.set("DPK_CONFIG", dir);
  EXPECT_EQ(loadPolicyMessage(), std::to_string(DPK_ERROR_POLICY) + " policy file '" + dir +
                                     "' is a directory, not a regular file (DPK_CONFIG)");
  env.set("DPK_CONFIG", "/dev/zero");
  std::optional<std::string> message = inChildWithin(10, loadPolicyMessage);
  ASSERT_TRUE(message) << "loadPolicy() read /dev/zero without bound";
  EXPECT_EQ(*message, std::to_string(DPK_ERROR_POLICY) +
                          " policy file '/dev/zero' is a character device, not a regular file "
                          "(DPK_CONFIG)");
}

TEST(PolicySearch, HugeFileIsRefusedFromItsSize) {
  // 134 MB, sparse: refused before a byte is read (it took > 10 s and 735 MB before).
  ScopedEnvironment env;
  std::string file = dpk::test::makeTempDir() + "/huge.yaml";
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 134217728), 0);
  ::close(fd);
  env.set("DPK_CONFIG", file);
  auto start = std::chrono::steady_clock::now();
  std::optional<std::string> message = inChildWithin(20, loadPolicyMessage);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(message) << "loadPolicy() took more than 20 s";
  EXPECT_EQ(*message, std::to_string(DPK_ERROR_POLICY) + " policy file '" + file +
                          "' has 134217728 bytes; policy files are limited to 1048576 bytes "
                          "(DPK_CONFIG)");
  EXPECT_LT(seconds, 2.0);
  dpk::Expected<Policy> direct = loadPolicyFile(file);
  ASSERT_FALSE(direct);
  EXPECT_EQ(direct.error().status(), DPK_ERROR_POLICY);
}

// ---- search order and environment ---------------------------------------------------------------

TEST(PolicySearch, BuiltinWhenNoFile) {
  ScopedEnvironment env;
  env.set("XDG_CONFIG_HOME", dpk::test::makeTempDir());
  EXPECT_EQ(policySearchResult(), "");
  dpk::Expected<Policy> p = loadPolicy();
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->source, "built-in default");
}

TEST(PolicySearch, UserConfigFolder) {
  ScopedEnvironment env;
  std::string xdg = dpk::test::makeTempDir();
  ::mkdir((xdg + "/dpk").c_str(), 0777);
  dpk::test::writeFile(xdg + "/dpk/policy.yaml", "version: 1\ndiagnostics: {level: 2}\n");
  env.set("XDG_CONFIG_HOME", xdg);
  EXPECT_EQ(policySearchResult(), xdg + "/dpk/policy.yaml");
  dpk::Expected<Policy> p = loadPolicy();
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->source, xdg + "/dpk/policy.yaml");
  EXPECT_EQ(p->diagnostics.level, 2);

  // Without XDG_CONFIG_HOME the folder is ~/.config.
  std::string home = dpk::test::makeTempDir();
  ::mkdir((home + "/.config").c_str(), 0777);
  ::mkdir((home + "/.config/dpk").c_str(), 0777);
  dpk::test::writeFile(home + "/.config/dpk/policy.yaml", "version: 1\n");
  env.unset("XDG_CONFIG_HOME");
  env.set("HOME", home);
  EXPECT_EQ(policySearchResult(), home + "/.config/dpk/policy.yaml");
}

TEST(PolicySearch, DpkConfigWins) {
  ScopedEnvironment env;
  std::string xdg = dpk::test::makeTempDir();
  ::mkdir((xdg + "/dpk").c_str(), 0777);
  dpk::test::writeFile(xdg + "/dpk/policy.yaml", "version: 1\ndiagnostics: {level: 2}\n");
  std::string explicitFile = dpk::test::makeTempDir() + "/mine.yaml";
  dpk::test::writeFile(explicitFile, "version: 1\ndiagnostics: {level: 3}\n");
  env.set("XDG_CONFIG_HOME", xdg);
  env.set("DPK_CONFIG", explicitFile);
  dpk::Expected<Policy> p = loadPolicy();
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->source, explicitFile);
  EXPECT_EQ(p->diagnostics.level, 3);
}

TEST(PolicySearch, MissingDpkConfigIsAnError) {
  ScopedEnvironment env;
  std::string missing = dpk::test::makeTempDir() + "/nope.yaml";
  env.set("DPK_CONFIG", missing);
  dpk::Expected<Policy> p = loadPolicy();
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().status(), DPK_ERROR_POLICY);
  EXPECT_EQ(p.error().message(), "cannot read policy file '" + missing + "' (DPK_CONFIG)");
}

TEST(PolicySearch, BadUserFileIsAnErrorNamingIt) {
  ScopedEnvironment env;
  std::string xdg = dpk::test::makeTempDir();
  ::mkdir((xdg + "/dpk").c_str(), 0777);
  std::string file = xdg + "/dpk/policy.yaml";
  dpk::test::writeFile(file, "version: 1\nfallback:\n  mode: never\n");
  env.set("XDG_CONFIG_HOME", xdg);
  dpk::Expected<Policy> p = loadPolicy();
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message(), file + ":3:9: fallback.mode: bad value 'never'; allowed values: "
                                        "deny, warn, allow");
}

TEST(PolicyEnvironment, OverridesTheFile) {
  ScopedEnvironment env;
  std::string file = dpk::test::makeTempDir() + "/p.yaml";
  dpk::test::writeFile(file, R"(version: 1
devices: {prefer: cuda:gpu}
fallback: {mode: deny}
kernels:
  - {match: "k*", devices: level_zero:gpu, fallback: {mode: deny}}
diagnostics: {level: 1, format: text}
cache: {dir: /from/file, mode: read_only}
)");
  env.set("DPK_CONFIG", file);
  dpk::Expected<Policy> fromFile = loadPolicy();
  ASSERT_TRUE(fromFile) << fromFile.error().message();
  EXPECT_EQ(fromFile->selector.str(), "cuda:gpu");
  EXPECT_EQ(selectorFor(*fromFile, "kern").filter.str(), "level_zero:gpu");

  env.set("DPK_DEVICE_SELECTOR", "opencl:cpu");
  env.set("DPK_FALLBACK", "allow:compile,launch");
  env.set("DPK_DIAGNOSTICS", "3,json");
  env.set("DPK_DIAGNOSTICS_FILE", "/tmp/diag.jsonl");
  env.set("DPK_DUMP_DIR", "/tmp/dumps");
  env.set("DPK_CACHE_DIR", "/from/env");
  env.set("DPK_CACHE_MODE", "off");
  dpk::Expected<Policy> p = loadPolicy();
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->selector.str(), "opencl:cpu");
  EXPECT_TRUE(p->selectorFromEnvironment);
  // The environment wins over kernel rules too.
  SelectorChoice choice = selectorFor(*p, "kern");
  EXPECT_EQ(choice.filter.str(), "opencl:cpu");
  EXPECT_EQ(choice.rule, "DPK_DEVICE_SELECTOR='opencl:cpu'");
  EXPECT_EQ(p->fallback.mode, FallbackMode::Allow);
  EXPECT_EQ(fallbackFor(*p, "kern", FailureClass::Compile), FallbackMode::Allow);
  EXPECT_EQ(fallbackFor(*p, "kern", FailureClass::OutOfMemory), FallbackMode::Deny);
  EXPECT_EQ(p->diagnostics.level, 3);
  EXPECT_EQ(p->diagnostics.format, DiagnosticsFormat::Json);
  EXPECT_EQ(p->diagnostics.file, "/tmp/diag.jsonl");
  EXPECT_EQ(p->diagnostics.dumpDir, "/tmp/dumps");
  EXPECT_EQ(p->cache.dir, "/from/env");
  EXPECT_EQ(p->cache.mode, CacheMode::Off);
  EXPECT_EQ(p->environmentOverrides.size(), 7u);
  EXPECT_FALSE(backendAllowed(*p, "cuda"));
  EXPECT_FALSE(backendAllowed(*p, "level_zero"));
  EXPECT_TRUE(backendAllowed(*p, "opencl"));

  // Level alone keeps the file's format.
  env.set("DPK_DIAGNOSTICS", "2");
  dpk::Expected<Policy> levelOnly = loadPolicy();
  ASSERT_TRUE(levelOnly);
  EXPECT_EQ(levelOnly->diagnostics.level, 2);
  EXPECT_EQ(levelOnly->diagnostics.format, DiagnosticsFormat::Text);
}

TEST(PolicyEnvironment, EmptyVariablesAreUnset) {
  ScopedEnvironment env;
  env.set("XDG_CONFIG_HOME", dpk::test::makeTempDir());
  env.set("DPK_CONFIG", "");
  env.set("DPK_DEVICE_SELECTOR", "");
  env.set("DPK_FALLBACK", "");
  dpk::Expected<Policy> p = loadPolicy();
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->source, "built-in default");
  EXPECT_FALSE(p->selectorFromEnvironment);
}

TEST(PolicyEnvironment, BadValuesNameTheVariable) {
  ScopedEnvironment env;
  std::string xdg = dpk::test::makeTempDir();
  auto errorWith = [&](const char *name, const char *value) {
    ScopedEnvironment inner;
    inner.set("XDG_CONFIG_HOME", xdg);
    inner.set(name, value);
    dpk::Expected<Policy> p = loadPolicy();
    EXPECT_FALSE(p) << name << "=" << value;
    return p ? dpk::Error() : p.takeError();
  };
  dpk::Error fallback = errorWith("DPK_FALLBACK", "wran");
  EXPECT_EQ(fallback.status(), DPK_ERROR_POLICY);
  EXPECT_EQ(fallback.message(),
            "DPK_FALLBACK='wran': bad mode 'wran'; expected MODE[:FAILURE,...] with MODE one of "
            "deny, warn, allow and FAILURE one of no_device, plugin_load, compile, launch, "
            "out_of_memory, all");
  EXPECT_NE(errorWith("DPK_FALLBACK", "warn:compil").message().find("bad failure 'compil'"),
            std::string::npos);
  EXPECT_NE(errorWith("DPK_DIAGNOSTICS", "9").message().find("DPK_DIAGNOSTICS='9': bad level '9'"),
            std::string::npos);
  EXPECT_NE(errorWith("DPK_DIAGNOSTICS", "2,xml").message().find("bad format 'xml'"),
            std::string::npos);
  EXPECT_NE(errorWith("DPK_CACHE_MODE", "ro").message().find("DPK_CACHE_MODE='ro'"),
            std::string::npos);
  dpk::Error selector = errorWith("DPK_DEVICE_SELECTOR", "opencl:gpx");
  EXPECT_EQ(selector.status(), DPK_ERROR_PARSE);
  EXPECT_EQ(selector.message().rfind("DPK_DEVICE_SELECTOR: malformed device filter at column 8", 0),
            0u)
      << selector.message();
}

// ---- questions the runtime asks -----------------------------------------------------------------

TEST(PolicyQueries, BackendAllowedBeforeDlopen) {
  ScopedEnvironment env;
  auto withSelector = [&](const char *selector, const char *fallback) {
    env.set("XDG_CONFIG_HOME", dpk::test::makeTempDir());
    env.set("DPK_DEVICE_SELECTOR", selector);
    env.set("DPK_FALLBACK", fallback);
    dpk::Expected<Policy> p = loadPolicy();
    EXPECT_TRUE(p) << p.error().message();
    return p ? *p : Policy{};
  };
  Policy notOpencl = withSelector("!opencl:*", "warn");
  EXPECT_FALSE(backendAllowed(notOpencl, "opencl"));
  EXPECT_TRUE(backendAllowed(notOpencl, "cuda"));
  EXPECT_TRUE(backendAllowed(notOpencl, "host"));

  EXPECT_EQ(decideBackend(notOpencl, "opencl").reason,
            "no device of backend 'opencl' can match the selector '!opencl' "
            "(DPK_DEVICE_SELECTOR)");
  EXPECT_EQ(decideBackend(notOpencl, "cuda").reason,
            "may match the selector '!opencl' (DPK_DEVICE_SELECTOR)");

  Policy cudaOnly = withSelector("cuda:gpu", "deny");
  EXPECT_TRUE(backendAllowed(cudaOnly, "cuda"));
  EXPECT_FALSE(backendAllowed(cudaOnly, "opencl"));
  EXPECT_FALSE(backendAllowed(cudaOnly, "level_zero"));
  EXPECT_FALSE(backendAllowed(cudaOnly, "host")); // deny: nothing can reach the host

  Policy cudaWarn = withSelector("cuda:gpu", "warn");
  EXPECT_TRUE(backendAllowed(cudaWarn, "host")); // the fallback target
  EXPECT_EQ(decideBackend(cudaWarn, "host").reason,
            "needed as the fallback target (fallback.mode warn from DPK_FALLBACK)");
  EXPECT_EQ(decideBackend(cudaOnly, "host").reason,
            "no device of backend 'host' can match the selector 'cuda:gpu' (DPK_DEVICE_SELECTOR) "
            "and no fallback rule sends work to the host");
  Policy cudaWarnNothing = withSelector("cuda:gpu", "warn:");
  EXPECT_FALSE(backendAllowed(cudaWarnNothing, "host")); // covers no failure

  Policy anyType = withSelector("gpu,cpu", "deny");
  for (const char *backend : {"host", "opencl", "level_zero", "cuda"})
    EXPECT_TRUE(backendAllowed(anyType, backend)) << backend;

  Policy hostOnly = withSelector("host", "deny");
  EXPECT_TRUE(backendAllowed(hostOnly, "host"));
  for (const char *backend : {"opencl", "level_zero", "cuda"})
    EXPECT_FALSE(backendAllowed(hostOnly, backend)) << backend;
}

TEST(PolicyQueries, KernelRulesAndDisabledPlugins) {
  Policy p = parseOk(R"(version: 1
devices: {prefer: host, exclude: "opencl:gpu"}
fallback: {mode: deny}
kernels:
  - {match: "ocl_*", devices: opencl}
  - {match: "gpu_*", devices: "opencl:gpu"}
plugins: {disabled: [cuda]}
)");
  EXPECT_TRUE(backendAllowed(p, "opencl")); // a kernel rule may use opencl CPUs
  EXPECT_FALSE(backendAllowed(p, "cuda"));  // disabled
  EXPECT_EQ(decideBackend(p, "cuda").reason, "disabled by plugins.disabled in t.yaml");
  EXPECT_EQ(decideBackend(p, "opencl").reason,
            "may match kernels[0] 'ocl_*' devices 'opencl' (t.yaml:5:5)");
  EXPECT_FALSE(backendAllowed(p, "level_zero"));
  SelectorChoice ocl = selectorFor(p, "ocl_add");
  EXPECT_EQ(ocl.filter.str(), "opencl,!opencl:gpu"); // global exclusions still apply
  EXPECT_EQ(ocl.rule, "kernels[0] 'ocl_*' at t.yaml:5:5");
  SelectorChoice other = selectorFor(p, "add");
  EXPECT_EQ(other.filter.str(), "host,!opencl:gpu");
  EXPECT_EQ(other.rule, "devices.prefer 'host,!opencl:gpu' (devices at t.yaml:2:10)");

  Policy onlyGpuRule = parseOk(R"(version: 1
devices: {prefer: host, exclude: "opencl:gpu"}
kernels: [{match: "gpu_*", devices: "opencl:gpu"}]
)");
  EXPECT_FALSE(backendAllowed(onlyGpuRule, "opencl")); // the rule's only device is excluded
}

TEST(PolicyQueries, FallbackPerKernel) {
  dpk::Expected<Policy> p = loadPolicyFile(DPK_SOURCE_DIR "/config/examples/per-kernel.yaml");
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(fallbackFor(*p, "saxpy", FailureClass::Compile), FallbackMode::Warn);
  EXPECT_EQ(fallbackFor(*p, "dot_f64", FailureClass::Launch), FallbackMode::Allow);
  EXPECT_EQ(fallbackFor(*p, "bench_stream", FailureClass::OutOfMemory), FallbackMode::Deny);
  EXPECT_EQ(selectorFor(*p, "dot_f64").filter.str(), "cuda:gpu,host");
  EXPECT_EQ(selectorFor(*p, "reference_dot").filter.str(), "host");
  EXPECT_EQ(selectorFor(*p, "bench_stream").filter.str(), "gpu,host"); // rule has no devices

  Policy narrow = parseOk("version: 1\nfallback: {mode: allow, on: [compile]}\n");
  EXPECT_EQ(fallbackFor(narrow, "k", FailureClass::Compile), FallbackMode::Allow);
  EXPECT_EQ(fallbackFor(narrow, "k", FailureClass::Launch), FallbackMode::Deny);
  EXPECT_EQ(fallbackFor(narrow, "k", FailureClass::NoDevice), FallbackMode::Deny);
}

TEST(PolicyQueries, Glob) {
  EXPECT_TRUE(globMatch("*", "anything"));
  EXPECT_TRUE(globMatch("mm_*", "mm_f32"));
  EXPECT_FALSE(globMatch("mm_*", "xmm_f32"));
  EXPECT_TRUE(globMatch("*_f64", "dot_f64"));
  EXPECT_TRUE(globMatch("a?c", "abc"));
  EXPECT_FALSE(globMatch("a?c", "ac"));
  EXPECT_TRUE(globMatch("k[0-9]", "k7"));
  EXPECT_FALSE(globMatch("k[!0-9]", "k7"));
  EXPECT_TRUE(globMatch("*a*b*", "xxaxxbxx"));
  EXPECT_FALSE(globMatch("*a*b*", "xxbxxaxx"));
  EXPECT_TRUE(globMatch("exact", "exact"));
  EXPECT_FALSE(globMatch("exact", "exactly"));
  EXPECT_TRUE(globMatch("", ""));
  EXPECT_FALSE(globMatch("", "a"));
  EXPECT_TRUE(globMatch("**", ""));
  EXPECT_TRUE(globMatch("*[0-9]", "k9"));
  EXPECT_FALSE(globMatch("*[0-9]", "k9x"));
  EXPECT_TRUE(globMatch("a*b?c", "axxbyc"));
  EXPECT_TRUE(globMatch("[a-", "[a-")) << "an unclosed '[' is a literal (checkGlob rejects it)";
  EXPECT_TRUE(globMatch("[*]x", "*x"));
  EXPECT_FALSE(globMatch("[*]x", "ax"));
}

TEST(PolicyQueries, GlobTimeIsBoundedWhateverThePattern) {
  // Many stars against a long name that almost matches: exponential for a backtracking
  // matcher, at most |pattern| * |name| steps here.
  std::string pattern, name(3000, 'a');
  for (int i = 0; i < 40; ++i)
    pattern += "*a";
  pattern += "*b";
  std::optional<std::string> result = inChildWithin(10, [&] {
    return std::string(globMatch(pattern, name) ? "match" : "no match");
  });
  ASSERT_TRUE(result) << "globMatch took more than 10 s";
  EXPECT_EQ(*result, "no match");
  EXPECT_TRUE(globMatch(pattern, name + "b"));
}

// LoaderTest.cpp - plugin loader outcomes: good, absent, missing dependency, no symbol, ABI
// mismatch, excluded by policy before dlopen, discovery order, and the same through dpk-ls.
#include "runtime/PluginLoader.h"

#include "Subprocess.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>

using namespace dpk::runtime;

namespace {

const std::string TestPluginDir = DPK_TEST_PLUGIN_DIR;
const std::string RealPluginDir = DPK_REAL_PLUGIN_DIR;

std::string testPlugin(const std::string &backend) {
  return TestPluginDir + "/libdpk_backend_" + backend + ".so";
}
std::string hostPlugin() { return RealPluginDir + "/libdpk_backend_host.so"; }

bool exists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

#define REQUIRE_FILE(path)                                                                       \
  do {                                                                                           \
    if (!exists(path))                                                                           \
      GTEST_SKIP() << (path) << " is not built";                                                 \
  } while (0)

/// A fresh folder under /tmp holding a file that is not a shared library: if the loader ever
/// dlopens it, the outcome is "load failed", never "skipped".
std::string makeTrapFolder(const std::string &backend) {
  char pattern[] = "/tmp/dpk-loader-test-XXXXXX";
  std::string folder = ::mkdtemp(pattern);
  std::ofstream(folder + "/libdpk_backend_" + backend + ".so") << "not an ELF file\n";
  return folder;
}

} // namespace

TEST(PluginFileName, BackendComesFromTheFileName) {
  EXPECT_EQ(backendFromFileName("/a/b/libdpk_backend_cuda.so"), "cuda");
  EXPECT_EQ(backendFromFileName("libdpk_backend_level_zero.so"), "level_zero");
  EXPECT_EQ(backendFromFileName("libdpk_backend_.so"), "");
  EXPECT_EQ(backendFromFileName("/x/libdpk.so"), "");
  EXPECT_EQ(backendFromFileName("libdpk_backend_cuda.so.1"), "");
}

TEST(PluginLoader, LoadsAGoodPlugin) {
  REQUIRE_FILE(hostPlugin());
  PluginRecord record = loadPluginFile(hostPlugin(), nullptr);
  ASSERT_EQ(record.outcome, PluginOutcome::Loaded) << record.reason;
  EXPECT_EQ(record.backend, "host");
  ASSERT_TRUE(record.plugin);
  EXPECT_EQ(record.plugin->table.raw().abi_version, DPK_PLUGIN_ABI_VERSION);
  uint32_t count = 0;
  EXPECT_EQ(record.plugin->table.get_devices(&count, nullptr), DPK_SUCCESS);
  EXPECT_GE(count, 1u);
}

TEST(PluginLoader, AbsentPluginIsNotFound) {
  PluginRecord record = loadPluginFile("/nonexistent/libdpk_backend_cuda.so", nullptr);
  EXPECT_EQ(record.outcome, PluginOutcome::NotFound);
  EXPECT_EQ(record.backend, "cuda");
  EXPECT_NE(record.reason.find("no such file"), std::string::npos) << record.reason;
}

TEST(PluginLoader, MissingDependencyNamesTheLibrary) {
  REQUIRE_FILE(testPlugin("missingdep"));
  PluginRecord record = loadPluginFile(testPlugin("missingdep"), nullptr);
  EXPECT_EQ(record.outcome, PluginOutcome::MissingDependency) << record.reason;
  EXPECT_NE(record.missingLibrary.find("dpk_test_unreachable"), std::string::npos)
      << record.missingLibrary;
  EXPECT_NE(record.reason.find("missing dependency"), std::string::npos) << record.reason;
  EXPECT_NE(record.reason.find(record.missingLibrary), std::string::npos) << record.reason;
}

TEST(PluginLoader, NoEntrySymbol) {
  REQUIRE_FILE(testPlugin("nosymbol"));
  PluginRecord record = loadPluginFile(testPlugin("nosymbol"), nullptr);
  EXPECT_EQ(record.outcome, PluginOutcome::NoEntrySymbol);
  EXPECT_NE(record.reason.find(DPK_PLUGIN_ENTRY_SYMBOL), std::string::npos) << record.reason;
}

TEST(PluginLoader, AbiMismatchNamesBothVersions) {
  REQUIRE_FILE(testPlugin("abimismatch"));
  PluginRecord record = loadPluginFile(testPlugin("abimismatch"), nullptr);
  EXPECT_EQ(record.outcome, PluginOutcome::AbiMismatch);
  EXPECT_NE(record.reason.find("ABI 999"), std::string::npos) << record.reason;
  EXPECT_NE(record.reason.find("ABI " + std::to_string(DPK_PLUGIN_ABI_VERSION)),
            std::string::npos)
      << record.reason;
}

TEST(PluginLoader, InitFailureIsRecorded) {
  REQUIRE_FILE(testPlugin("fault"));
  ::setenv("DPK_FAULT_INJECT", "init", 1);
  PluginRecord record = loadPluginFile(testPlugin("fault"), nullptr);
  ::unsetenv("DPK_FAULT_INJECT");
  EXPECT_EQ(record.outcome, PluginOutcome::InitFailed);
  EXPECT_NE(record.reason.find("injected init failure"), std::string::npos) << record.reason;
}

TEST(PluginLoader, NotAnElfFileIsALoadFailure) {
  std::string folder = makeTrapFolder("trap");
  PluginRecord record = loadPluginFile(folder + "/libdpk_backend_trap.so", nullptr);
  EXPECT_EQ(record.outcome, PluginOutcome::LoadFailed) << record.reason;
  EXPECT_NE(record.reason.find("dlopen"), std::string::npos) << record.reason;
}

TEST(PluginLoader, PolicyExcludedPluginIsNeverOpened) {
  std::string folder = makeTrapFolder("trap");
  LoaderOptions options;
  options.searchDirectories = {folder};
  options.rejectBackend = [](const std::string &backend) -> std::optional<std::string> {
    if (backend == "trap")
      return std::string("excluded by test rule '!trap'");
    return std::nullopt;
  };
  std::vector<PluginRecord> records = loadPlugins(options);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].outcome, PluginOutcome::Skipped);
  EXPECT_EQ(records[0].reason, "excluded by test rule '!trap'");

  // The same with a real library: it must not be mapped into the process afterwards.
  REQUIRE_FILE(testPlugin("nosymbol"));
  options.searchDirectories = {};
  options.forcedPlugins = {testPlugin("nosymbol")};
  options.rejectBackend = [](const std::string &) -> std::optional<std::string> {
    return std::string("excluded");
  };
  records = loadPlugins(options);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].outcome, PluginOutcome::Skipped);
  EXPECT_EQ(::dlopen(testPlugin("nosymbol").c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr);
}

TEST(PluginLoader, ForcedListIsExclusive) {
  REQUIRE_FILE(hostPlugin());
  std::string trap = makeTrapFolder("trap");
  ::setenv("DPK_FORCE_PLUGINS", (hostPlugin() + ":/nonexistent/libdpk_backend_x.so").c_str(), 1);
  ::setenv("DPK_PLUGIN_PATH", trap.c_str(), 1);
  LoaderOptions options = loaderOptionsFromEnvironment({});
  ::unsetenv("DPK_FORCE_PLUGINS");
  ::unsetenv("DPK_PLUGIN_PATH");
  std::vector<PluginRecord> records = loadPlugins(options);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].outcome, PluginOutcome::Loaded);
  EXPECT_EQ(records[1].outcome, PluginOutcome::NotFound);
}

TEST(PluginLoader, SearchPathComesBeforeTheDefaultFolder) {
  std::string first = makeTrapFolder("alpha");
  ::setenv("DPK_PLUGIN_PATH", first.c_str(), 1);
  ::unsetenv("DPK_FORCE_PLUGINS");
  LoaderOptions options = loaderOptionsFromEnvironment({"/policy/path"});
  ::unsetenv("DPK_PLUGIN_PATH");
  ASSERT_GE(options.searchDirectories.size(), 3u);
  EXPECT_EQ(options.searchDirectories[0], first);
  EXPECT_EQ(options.searchDirectories[1], "/policy/path");
  EXPECT_EQ(options.searchDirectories.back(), defaultPluginDirectory());
  // The default folder is beside libdpk.so (lib/dpk/plugins in the build tree).
  EXPECT_NE(defaultPluginDirectory().find("/dpk/plugins"), std::string::npos);
}

TEST(PluginLoader, LaterPluginOfTheSameBackendIsSkipped) {
  REQUIRE_FILE(hostPlugin());
  std::string other = makeTrapFolder("host");
  LoaderOptions options;
  options.searchDirectories = {RealPluginDir, other};
  std::vector<PluginRecord> records = loadPlugins(options);
  bool sawSkippedDuplicate = false;
  for (const PluginRecord &record : records) {
    if (record.path == other + "/libdpk_backend_host.so") {
      EXPECT_EQ(record.outcome, PluginOutcome::Skipped);
      sawSkippedDuplicate = true;
    }
  }
  EXPECT_TRUE(sawSkippedDuplicate);
}

// The whole runtime through dpk-ls: every outcome is reported and the process survives.
TEST(DpkLs, ReportsEveryOutcome) {
  REQUIRE_FILE(hostPlugin());
  REQUIRE_FILE(testPlugin("missingdep"));
  std::string forced = hostPlugin() + ":" + testPlugin("missingdep") + ":" +
                       testPlugin("nosymbol") + ":" + testPlugin("abimismatch") +
                       ":/nonexistent/libdpk_backend_cuda.so";
  dpk::test::ChildResult result =
      dpk::test::runProgram(DPK_LS_PATH, {"--json"}, {{"DPK_FORCE_PLUGINS", forced}});
  ASSERT_EQ(result.exitCode, 0) << result.output;
  EXPECT_NE(result.output.find("\"outcome\": \"loaded\""), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("\"outcome\": \"missing dependency\""), std::string::npos);
  EXPECT_NE(result.output.find("\"missing_library\": \"libdpk_test_unreachable.so\""),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("\"outcome\": \"no entry symbol\""), std::string::npos);
  EXPECT_NE(result.output.find("\"outcome\": \"ABI mismatch\""), std::string::npos);
  EXPECT_NE(result.output.find("\"outcome\": \"not found\""), std::string::npos);
  EXPECT_NE(result.output.find("\"filter_string\": \"host:cpu:0\""), std::string::npos);
}

TEST(DpkLs, PolicyExclusionSkipsBeforeOpening) {
  REQUIRE_FILE(hostPlugin());
  REQUIRE_FILE(testPlugin("fault"));
  std::string forced = hostPlugin() + ":" + testPlugin("fault");
  dpk::test::ChildResult result = dpk::test::runProgram(
      DPK_LS_PATH, {}, {{"DPK_FORCE_PLUGINS", forced}, {"DPK_DEVICE_SELECTOR", "!fault:*"},
                        {"DPK_DIAGNOSTICS", "2"}, {"DPK_FAULT_INJECT", "init"}});
  ASSERT_EQ(result.exitCode, 0) << result.output;
  // Had it been opened, the injected init failure would show; it is skipped by the policy.
  EXPECT_NE(result.output.find("skipped"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("injected init failure"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("plugin.skip"), std::string::npos) << result.output;
}

TEST(DpkLs, ExplainNamesTheChosenDevice) {
  REQUIRE_FILE(hostPlugin());
  dpk::test::ChildResult result = dpk::test::runProgram(
      DPK_LS_PATH, {"--explain", "host"}, {{"DPK_FORCE_PLUGINS", hostPlugin()}});
  ASSERT_EQ(result.exitCode, 0) << result.output;
  EXPECT_NE(result.output.find("eligible"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("would run on"), std::string::npos) << result.output;
}

// DpkLsTest.cpp - what dpk-ls tells a user, run as a child process on the host and fault
// plugins: each plugin listed once (a plugin without devices says so in its own line), devices
// named with who provides them, and --explain judging devices by the filter it was given.
#include "DpkTest.h"
#include "Subprocess.h"
#include "TextCount.h"

#include <string>

using namespace dpk::test;

namespace {

const std::string Plugins = std::string(DPK_REAL_PLUGIN_DIR) + "/libdpk_backend_host.so:" +
                            DPK_TEST_PLUGIN_DIR + "/libdpk_backend_fault.so";

/// The line of `text` that contains `what` ("" when none).
std::string lineWith(const std::string &text, const std::string &what) {
  size_t at = text.find(what);
  if (at == std::string::npos)
    return "";
  size_t begin = text.rfind('\n', at);
  size_t end = text.find('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

} // namespace

TEST(DpkLs, APluginWithoutDevicesIsListedOnceAndSaysSo) {
  ChildResult result = runProgram(DPK_LS_PATH, {}, {{"DPK_FORCE_PLUGINS", Plugins},
                                                    {"DPK_FAULT_INJECT", "nodevice"}});
  ASSERT_EQ(result.exitCode, 0) << result.output;
  std::string plugins = result.output.substr(0, result.output.find("Devices"));
  EXPECT_EQ(countOf(plugins, "fault "), 1u) << result.output;
  EXPECT_NE(lineWith(plugins, "libdpk_backend_fault.so").find("loaded, no devices"),
            std::string::npos)
      << result.output;
  EXPECT_NE(lineWith(plugins, "libdpk_backend_host.so").find("loaded"), std::string::npos);
  // The JSON form says the same on the plugin's own entry.
  ChildResult json = runProgram(DPK_LS_PATH, {"--json"}, {{"DPK_FORCE_PLUGINS", Plugins},
                                                          {"DPK_FAULT_INJECT", "nodevice"}});
  ASSERT_EQ(json.exitCode, 0) << json.output;
  EXPECT_NE(lineWith(json.output, "libdpk_backend_fault.so").find("\"devices\": 0"),
            std::string::npos)
      << json.output;
}

TEST(DpkLs, DevicesAreNamedWithTheirProvider) {
  ChildResult result = runProgram(DPK_LS_PATH, {}, {{"DPK_FORCE_PLUGINS", Plugins}});
  ASSERT_EQ(result.exitCode, 0) << result.output;
  // The host and Intel's OpenCL CPU runtime both report the CPU's name: the vendor (for OpenCL
  // the platform too) tells them apart.
  EXPECT_NE(lineWith(result.output, "host:cpu:0").find("[dpk host"), std::string::npos)
      << result.output;
  EXPECT_NE(lineWith(result.output, "fault:gpu:0").find("[dpk tests]"), std::string::npos)
      << result.output;
}

TEST(DpkLs, ExplainJudgesDevicesByTheFilterGiven) {
  ChildResult result =
      runProgram(DPK_LS_PATH, {"--explain", "host"}, {{"DPK_FORCE_PLUGINS", Plugins}});
  ASSERT_EQ(result.exitCode, 0) << result.output;
  std::string devices = result.output.substr(result.output.find("Devices"));
  EXPECT_NE(lineWith(devices, "host:cpu:0").find(" eligible"), std::string::npos)
      << result.output;
  EXPECT_NE(lineWith(devices, "fault:gpu:0").find("not eligible"), std::string::npos)
      << result.output;
  EXPECT_NE(lineWith(devices, "fault:gpu:0").find("'host'"), std::string::npos) << result.output;
  // A device the policy excludes is not eligible under any filter, and says why (the selector
  // still lets the fault plugin load: another fault device could match it).
  ChildResult excluded =
      runProgram(DPK_LS_PATH, {"--explain", "gpu"},
                 {{"DPK_FORCE_PLUGINS", Plugins}, {"DPK_DEVICE_SELECTOR", "host,fault:gpu:1"}});
  ASSERT_EQ(excluded.exitCode, 0) << excluded.output;
  std::string excludedDevices = excluded.output.substr(excluded.output.find("Devices"));
  EXPECT_NE(lineWith(excludedDevices, "fault:gpu:0").find("not eligible"), std::string::npos)
      << excluded.output;
  EXPECT_NE(lineWith(excludedDevices, "fault:gpu:0").find("the policy"), std::string::npos)
      << excluded.output;
  EXPECT_NE(excluded.output.find("DPK_ERROR_NO_DEVICE"), std::string::npos) << excluded.output;
  // A malformed filter is an error with the parser's message, not a listing.
  ChildResult bad =
      runProgram(DPK_LS_PATH, {"--explain", "opecl"}, {{"DPK_FORCE_PLUGINS", Plugins}});
  EXPECT_NE(bad.exitCode, 0) << bad.output;
  EXPECT_NE(bad.output.find("did you mean 'opencl'"), std::string::npos) << bad.output;
}

// LevelZeroPluginTest.cpp - the Level Zero plugin through its dispatch table. Here (no Intel GPU,
// no Level Zero driver) it must load, report zero devices with the reason and never hang; the
// device tests skip with that reason and run where a driver exists. The contract every plugin
// shares (argument checks, allocations, copies, fills, events) is tests/plugin_abi's.
#include "LoadedPlugin.h"
#include "dpk/plugin.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace {

const char *pluginPath() {
  const char *env = std::getenv("DPK_TEST_LEVEL_ZERO_PLUGIN");
  return env && *env ? env : DPK_LEVEL_ZERO_PLUGIN_PATH;
}

/// The plugin, loaded and initialized once per process.
struct Plugin : dpk::test::LoadedPlugin {
  static Plugin &get() {
    static Plugin plugin;
    return plugin;
  }
  Plugin() : LoadedPlugin(pluginPath()) {}
};

std::string lastError() { return Plugin::get().lastError(); }

TEST(LevelZeroPlugin, LoadsAndReportsDevicesOrAReason) {
  Plugin &p = Plugin::get();
  ASSERT_EQ(p.loadError, "");
  EXPECT_STREQ(p.t.backend, "level_zero");
  uint32_t count = 123;
  ASSERT_EQ(p.t.get_devices(&count, nullptr), DPK_SUCCESS);
  EXPECT_EQ(count, p.devices.size());
  if (count == 0) {
    std::string reason = p.t.no_device_reason();
    std::printf("no Level Zero device: %s\n", reason.c_str());
    EXPECT_NE(reason.find("ze"), std::string::npos) << reason;
    // The machines of this project have no Level Zero driver: pin the exact wording there.
    if (reason.rfind("zeInit", 0) == 0) {
      EXPECT_EQ(reason, "zeInit: ZE_RESULT_ERROR_UNINITIALIZED (0x78000001): no Level Zero "
                        "driver found");
    }
  }
  // A second init is harmless and keeps the answer.
  EXPECT_EQ(p.t.init(nullptr), DPK_SUCCESS);
  uint32_t again = 0;
  EXPECT_EQ(p.t.get_devices(&again, nullptr), DPK_SUCCESS);
  EXPECT_EQ(again, count);
}

/// Runs on a machine with a Level Zero driver only.
class LevelZeroDevice : public ::testing::Test {
protected:
  const dpk_plugin_dispatch_t &t = Plugin::get().t;
  dpk_pl_context_t context = nullptr;
  dpk_pl_queue_t queue = nullptr;

  void SetUp() override {
    Plugin &p = Plugin::get();
    ASSERT_EQ(p.loadError, "");
    if (p.devices.empty())
      GTEST_SKIP() << "no Level Zero device: " << p.t.no_device_reason();
    ASSERT_EQ(t.context_create(&context, p.devices[0]), DPK_SUCCESS) << lastError();
    ASSERT_EQ(t.queue_create(&queue, context, DPK_PL_QUEUE_PROFILING), DPK_SUCCESS) << lastError();
  }
  void TearDown() override {
    if (queue)
      t.queue_release(queue);
    if (context)
      t.context_release(context);
  }
};

TEST_F(LevelZeroDevice, PropertiesNameTheDevice) {
  dpk_device_props_t props{};
  props.struct_size = sizeof(props);
  ASSERT_EQ(t.device_get_props(&props, Plugin::get().devices[0]), DPK_SUCCESS) << lastError();
  std::printf("%s | %s | %s\n%s\n", props.name, props.driver_version, props.target_id, props.extra);
  EXPECT_EQ(props.formats, (uint32_t)DPK_FORMAT_SPIRV);
  EXPECT_EQ(std::strncmp(props.target_id, "spirv:", 6), 0) << props.target_id;
  EXPECT_NE(std::strstr(props.extra, "max_fill_pattern="), nullptr) << props.extra;
}

TEST_F(LevelZeroDevice, BadSpirvIsACompileError) {
  const uint32_t notSpirv[] = {0xdeadbeef, 0, 0, 0, 0};
  dpk_pl_program_t program = nullptr;
  dpk_status_t st =
      t.program_create(&program, context, DPK_FORMAT_SPIRV, notSpirv, sizeof(notSpirv), nullptr);
  EXPECT_NE(st, DPK_SUCCESS);
  std::printf("bad SPIR-V: %s\n", lastError().c_str());
  EXPECT_NE(lastError().find("zeModuleCreate"), std::string::npos);
  EXPECT_EQ(t.program_create(&program, context, DPK_FORMAT_PTX, "x", 1, nullptr),
            DPK_ERROR_UNSUPPORTED);
}

} // namespace

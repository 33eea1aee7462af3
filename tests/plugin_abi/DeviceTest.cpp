// DeviceTest.cpp - the exported symbol, device discovery, device properties, contexts and
// queues, on every plugin.
#include "PluginAbi.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <set>

namespace dpk::plugin_abi {

TEST_P(PluginAbi, TableNamesItsBackendAndVersion) {
  const dpk_plugin_dispatch_t &raw = table().raw();
  EXPECT_EQ(raw.struct_size, sizeof(dpk_plugin_dispatch_t));
  EXPECT_EQ(raw.abi_version, DPK_PLUGIN_ABI_VERSION);
  ASSERT_NE(raw.backend, nullptr);
  EXPECT_EQ(std::string(raw.backend), backend());
  EXPECT_EQ(plugin().backend, backend());
}

TEST_P(PluginAbi, RefusesAnotherAbiVersion) {
  auto entry = reinterpret_cast<dpk_plugin_get_dispatch_fn>(
      ::dlsym(plugin().library, DPK_PLUGIN_ENTRY_SYMBOL));
  ASSERT_NE(entry, nullptr);
  dpk_plugin_dispatch_t other{};
  other.struct_size = sizeof other;
  EXPECT_EQ(entry(DPK_PLUGIN_ABI_VERSION + 1, &other), DPK_ERROR_ABI_MISMATCH);
  EXPECT_EQ(other.abi_version, DPK_PLUGIN_ABI_VERSION); // so the core can name both versions
  EXPECT_EQ(other.get_devices, nullptr);
}

TEST_P(PluginAbi, ListsDevicesOrSaysWhyNot) {
  uint32_t count = 1234;
  ASSERT_EQ(table().get_devices(&count, nullptr), DPK_SUCCESS) << lastError();
  EXPECT_EQ(count, loaded->devices.size());
  if (count == 0) {
    const char *reason = table().no_device_reason();
    ASSERT_NE(reason, nullptr);
    EXPECT_STRNE(reason, "") << backend() << " has no device and does not say why";
    std::printf("%s: no device: %s\n", backend().c_str(), reason);
    return;
  }
  // A list with no room is not written to, but still counted.
  dpk_pl_device_t untouched = fakeHandle<dpk_pl_device_t>();
  uint32_t none = 0;
  ASSERT_EQ(table().get_devices(&none, &untouched), DPK_SUCCESS) << lastError();
  EXPECT_EQ(none, count);
  EXPECT_EQ(untouched, fakeHandle<dpk_pl_device_t>());
  std::vector<dpk_pl_device_t> devices(count);
  ASSERT_EQ(table().get_devices(&count, devices.data()), DPK_SUCCESS) << lastError();
  std::set<dpk_pl_device_t> distinct(devices.begin(), devices.end());
  EXPECT_EQ(distinct.size(), devices.size());
  EXPECT_EQ(distinct.count(nullptr), 0u);
}

TEST_P(PluginAbiDevice, PropertiesAreFilled) {
  forEachDevice([&](const Device &device) {
    const dpk_device_props_t &props = device.props;
    EXPECT_EQ(props.struct_size, sizeof props);
    EXPECT_STRNE(props.name, "");
    EXPECT_STRNE(props.vendor, "");
    EXPECT_STRNE(props.target_id, "");
    EXPECT_TRUE(props.type == DPK_DEVICE_TYPE_CPU || props.type == DPK_DEVICE_TYPE_GPU ||
                props.type == DPK_DEVICE_TYPE_ACCELERATOR)
        << props.type;
    EXPECT_NE(props.formats, 0u);
    EXPECT_EQ(props.formats & ~uint32_t(DPK_FORMAT_HOST_NATIVE | DPK_FORMAT_SPIRV |
                                        DPK_FORMAT_OPENCL_C | DPK_FORMAT_PTX),
              0u);
    EXPECT_NE(props.aspects & DPK_ASPECT_USM_DEVICE, 0u) << "every device allocates device memory";
    EXPECT_GT(props.compute_units, 0u);
    EXPECT_GT(props.global_mem_size, 0u);
    EXPECT_GT(props.max_work_group_size, 0u);
    for (uint64_t size : props.max_work_item_sizes)
      EXPECT_GT(size, 0u);
    // Strings are NUL-terminated within their fields.
    EXPECT_LT(strnlen(props.name, sizeof props.name), sizeof props.name);
    EXPECT_LT(strnlen(props.extra, sizeof props.extra), sizeof props.extra);
  });
}

// An older core knows a shorter struct: the plugin writes no more than struct_size says and
// leaves struct_size as the caller set it.
TEST_P(PluginAbiDevice, PropertiesHonourAShorterStruct) {
  forEachDevice([&](const Device &device) {
    const size_t shorter = offsetof(dpk_device_props_t, formats);
    dpk_device_props_t props;
    std::memset(&props, 0xAB, sizeof props);
    props.struct_size = shorter;
    ASSERT_EQ(table().device_get_props(&props, device.handle), DPK_SUCCESS) << lastError();
    EXPECT_EQ(props.struct_size, shorter);
    EXPECT_STREQ(props.name, device.props.name);
    EXPECT_EQ(props.max_work_group_size, device.props.max_work_group_size);
    const auto *bytes = reinterpret_cast<const unsigned char *>(&props);
    size_t written = sizeof props;
    for (size_t i = shorter; i < sizeof props; ++i)
      if (bytes[i] != 0xAB) {
        written = i;
        break;
      }
    EXPECT_EQ(written, sizeof props) << "byte " << written << " lies past struct_size " << shorter;
  });
}

TEST_P(PluginAbiDevice, ContextsAndQueuesOfEveryKind) {
  forEachDevice([&](const Device &device) {
    dpk_pl_context_t context = nullptr;
    ASSERT_EQ(table().context_create(&context, device.handle), DPK_SUCCESS) << lastError();
    ASSERT_NE(context, nullptr);
    for (uint32_t flags : {uint32_t(DPK_PL_QUEUE_IN_ORDER), uint32_t(DPK_PL_QUEUE_OUT_OF_ORDER),
                           uint32_t(DPK_PL_QUEUE_PROFILING),
                           uint32_t(DPK_PL_QUEUE_OUT_OF_ORDER | DPK_PL_QUEUE_PROFILING)}) {
      SCOPED_TRACE("queue flags " + std::to_string(flags));
      dpk_pl_queue_t queue = nullptr;
      ASSERT_EQ(table().queue_create(&queue, context, flags), DPK_SUCCESS) << lastError();
      ASSERT_NE(queue, nullptr);
      EXPECT_EQ(table().queue_finish(queue), DPK_SUCCESS) << lastError(); // nothing to wait for
      EXPECT_EQ(table().queue_release(queue), DPK_SUCCESS) << lastError();
    }
    // Two contexts of one device are independent.
    dpk_pl_context_t second = nullptr;
    ASSERT_EQ(table().context_create(&second, device.handle), DPK_SUCCESS) << lastError();
    EXPECT_NE(second, context);
    EXPECT_EQ(table().context_release(second), DPK_SUCCESS) << lastError();
    EXPECT_EQ(table().context_release(context), DPK_SUCCESS) << lastError();
  });
}

} // namespace dpk::plugin_abi

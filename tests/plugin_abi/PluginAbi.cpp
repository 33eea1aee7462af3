// PluginAbi.cpp - loading the plugins under test, the fixtures, and the suites' instantiation
// over every plugin file of the build.
#include "PluginAbi.h"

#include "runtime/PluginLoader.h"

#include <cstring>
#include <map>
#include <mutex>

namespace dpk::plugin_abi {

const std::vector<std::string> &pluginFiles() {
  static const std::vector<std::string> files = [] {
    std::vector<std::string> list;
    std::string all = DPK_PLUGIN_ABI_FILES;
    size_t start = 0;
    while (start <= all.size()) {
      size_t end = all.find(':', start);
      if (end == std::string::npos)
        end = all.size();
      if (end > start)
        list.push_back(all.substr(start, end - start));
      start = end + 1;
    }
    return list;
  }();
  return files;
}

LoadedPlugin &loadedPlugin(const std::string &path) {
  static std::mutex lock;
  static std::map<std::string, LoadedPlugin> plugins;
  std::lock_guard<std::mutex> guard(lock);
  auto found = plugins.find(path);
  if (found != plugins.end())
    return found->second;
  LoadedPlugin &loaded = plugins[path];
  loaded.path = path;
  loaded.backend = runtime::backendFromFileName(path);
  runtime::PluginRecord record = runtime::loadPluginFile(path, nullptr);
  if (record.outcome != runtime::PluginOutcome::Loaded) {
    loaded.loadError =
        std::string(runtime::pluginOutcomeName(record.outcome)) + ": " + record.reason;
    return loaded;
  }
  loaded.plugin = record.plugin;
  uint32_t count = 0;
  if (loaded.plugin->table.get_devices(&count, nullptr) == DPK_SUCCESS && count > 0) {
    loaded.devices.resize(count);
    if (loaded.plugin->table.get_devices(&count, loaded.devices.data()) != DPK_SUCCESS)
      loaded.devices.clear();
    loaded.devices.resize(count);
  }
  return loaded;
}

void PluginAbi::SetUp() {
  loaded = &loadedPlugin(GetParam());
  ASSERT_EQ(loaded->loadError, "") << loaded->path;
  ASSERT_NE(loaded->plugin, nullptr);
}

std::string PluginAbi::lastError() const {
  int32_t native = 0;
  const char *message = table().last_error(&native);
  return message ? message : "";
}

void PluginAbi::expectRejected(dpk_status_t status, dpk_status_t expected,
                               const char *entry) const {
  EXPECT_EQ(status, expected) << entry;
  const char *why = runtime::lastValidationFailure();
  ASSERT_NE(why, nullptr) << entry << " reached the plugin instead of being rejected";
  std::string message = why;
  EXPECT_EQ(message.rfind(std::string(entry) + ": ", 0), 0u)
      << "the message does not name " << entry << ": " << message;
  Error error = plugin().check(status, "calling the plugin");
  EXPECT_NE(error.message().find(message), std::string::npos) << error.message();
  EXPECT_NE(error.message().find("checked at the " + backend() + " plugin boundary"),
            std::string::npos)
      << error.message();
}

void PluginAbiDevice::SetUp() {
  PluginAbi::SetUp();
  if (HasFatalFailure())
    return;
  if (loaded->devices.empty())
    GTEST_SKIP() << "no " << backend() << " device: " << table().no_device_reason();
}

void PluginAbiDevice::forEachDevice(const std::function<void(const Device &)> &body) {
  for (dpk_pl_device_t handle : loaded->devices) {
    Device device{handle, {}};
    device.props.struct_size = sizeof device.props;
    ASSERT_EQ(table().device_get_props(&device.props, handle), DPK_SUCCESS) << lastError();
    SCOPED_TRACE(std::string(backend()) + " device '" + device.props.name + "'");
    body(device);
    if (HasFatalFailure())
      return;
  }
}

PluginAbiDevice::Session::Session(const runtime::ValidatedDispatch &table, const Device &device,
                                  uint32_t flags)
    : table(table) {
  EXPECT_EQ(table.context_create(&context, device.handle), DPK_SUCCESS)
      << table.last_error(nullptr);
  if (context) {
    EXPECT_EQ(table.queue_create(&queue, context, flags), DPK_SUCCESS)
        << table.last_error(nullptr);
  }
}

PluginAbiDevice::Session::~Session() {
  if (queue) {
    EXPECT_EQ(table.queue_release(queue), DPK_SUCCESS) << table.last_error(nullptr);
  }
  if (context) {
    EXPECT_EQ(table.context_release(context), DPK_SUCCESS) << table.last_error(nullptr);
  }
}

void *PluginAbiDevice::Session::alloc(size_t bytes, dpk_mem_kind_t kind) {
  void *ptr = nullptr;
  EXPECT_EQ(table.mem_alloc(&ptr, context, kind, bytes, 0), DPK_SUCCESS)
      << table.last_error(nullptr);
  return ptr;
}

uint32_t aspectOf(dpk_mem_kind_t kind) {
  switch (kind) {
  case DPK_MEM_DEVICE:
    return DPK_ASPECT_USM_DEVICE;
  case DPK_MEM_SHARED:
    return DPK_ASPECT_USM_SHARED;
  case DPK_MEM_HOST:
    return DPK_ASPECT_USM_HOST;
  }
  return 0;
}

const char *kindName(dpk_mem_kind_t kind) {
  switch (kind) {
  case DPK_MEM_DEVICE:
    return "device";
  case DPK_MEM_SHARED:
    return "shared";
  case DPK_MEM_HOST:
    return "host";
  }
  return "unknown";
}

bool isKnownFailure(const std::string &backend, std::initializer_list<const char *> backends) {
  for (const char *name : backends)
    if (backend == name)
      return true;
  return false;
}

namespace {

std::string parameterName(const ::testing::TestParamInfo<std::string> &info) {
  return runtime::backendFromFileName(info.param);
}

} // namespace

INSTANTIATE_TEST_SUITE_P(Plugins, PluginAbi, ::testing::ValuesIn(pluginFiles()), parameterName);
INSTANTIATE_TEST_SUITE_P(Plugins, PluginAbiDevice, ::testing::ValuesIn(pluginFiles()),
                         parameterName);

} // namespace dpk::plugin_abi

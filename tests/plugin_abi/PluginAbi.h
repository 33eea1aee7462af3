// PluginAbi.h - the plugin-ABI conformance suite's fixtures: every plugin file the build made
// (the backends and the fault test plugin), loaded once with the core's loader and called through
// its validated table, as the runtime calls it.
//
// PluginAbi runs for every plugin, with or without a device (the argument checks need none);
// PluginAbiDevice skips with the plugin's no_device_reason when it has no device and otherwise
// runs its body once per device (forEachDevice). Known failures are declared in the test body
// with DPK_KNOWN_FAILURE_ON, as Unified Runtime's UUR_KNOWN_FAILURE_ON does.
#ifndef DPK_TESTS_PLUGIN_ABI_PLUGINABI_H
#define DPK_TESTS_PLUGIN_ABI_PLUGINABI_H

#include "runtime/Plugin.h"
#include "runtime/PluginValidation.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace dpk::plugin_abi {

/// One plugin file of this build and what loading it gave.
struct LoadedPlugin {
  std::string path;
  std::string backend;   // from the file name: "host", "cuda", ..., "fault"
  std::string loadError; // "" when loaded
  std::shared_ptr<runtime::Plugin> plugin;
  std::vector<dpk_pl_device_t> devices;
};

/// The plugin files this build made (DPK_PLUGIN_ABI_FILES), in a stable order.
const std::vector<std::string> &pluginFiles();
/// The plugin at `path`, loaded on first use and kept for the whole process.
LoadedPlugin &loadedPlugin(const std::string &path);

/// A handle the validation layer must reject a call with before the plugin ever sees it: it
/// points at zeroed static storage, never at a plugin object.
template <typename Handle> Handle fakeHandle() {
  alignas(64) static unsigned char storage[4096];
  return reinterpret_cast<Handle>(storage);
}

class PluginAbi : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override;

  const runtime::ValidatedDispatch &table() const { return plugin().table; }
  runtime::Plugin &plugin() const { return *loaded->plugin; }
  const std::string &backend() const { return loaded->backend; }
  /// The plugin's own last_error message.
  std::string lastError() const;

  /// Expects `status` to be `expected`, rejected by the validation layer (the plugin was not
  /// called) with a message that names `entry`.
  void expectRejected(dpk_status_t status, dpk_status_t expected, const char *entry) const;

  LoadedPlugin *loaded = nullptr;
};

class PluginAbiDevice : public PluginAbi {
protected:
  void SetUp() override;

  struct Device {
    dpk_pl_device_t handle;
    dpk_device_props_t props;
  };
  /// Runs `body` for every device of the plugin, each with its name as trace.
  void forEachDevice(const std::function<void(const Device &)> &body);

  /// A context and a queue on one device, released at the end of the scope.
  struct Session {
    const runtime::ValidatedDispatch &table;
    dpk_pl_context_t context = nullptr;
    dpk_pl_queue_t queue = nullptr;
    Session(const runtime::ValidatedDispatch &table, const Device &device, uint32_t flags = 0);
    ~Session();
    void *alloc(size_t bytes, dpk_mem_kind_t kind = DPK_MEM_DEVICE);
  };
};

/// The mem kind's aspect bit (DPK_ASPECT_USM_*).
uint32_t aspectOf(dpk_mem_kind_t kind);
/// "device", "shared", "host".
const char *kindName(dpk_mem_kind_t kind);

/// True when `backend` is one of `backends`.
bool isKnownFailure(const std::string &backend, std::initializer_list<const char *> backends);

} // namespace dpk::plugin_abi

/// Declares, first thing in a test body, that the test fails on the named backends and why; it
/// is reported as skipped there, with the reason.
#define DPK_KNOWN_FAILURE_ON(reason, ...)                                                        \
  if (::dpk::plugin_abi::isKnownFailure(backend(), {__VA_ARGS__}))                               \
  GTEST_SKIP() << "known failure on " << backend() << ": " << (reason)

#endif // DPK_TESTS_PLUGIN_ABI_PLUGINABI_H

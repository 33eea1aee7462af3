// LoadedPlugin.h - a backend plugin opened directly (dlopen), its dispatch table fetched and
// initialized, its devices listed: what the plugins' own tests (CUDA, Level Zero, the CUDA
// plugin over the fake driver) drive the plugin ABI with, without the core in between.
//
// Nothing here fails a test by itself: `loadError` says what went wrong (empty when the table
// is ready), so each test decides whether a missing plugin or driver is a failure or a skip.
#ifndef DPK_TESTS_SUPPORT_LOADEDPLUGIN_H
#define DPK_TESTS_SUPPORT_LOADEDPLUGIN_H

#include "dpk/plugin.h"

#include <cstdint>
#include <string>
#include <vector>

#include <dlfcn.h>

namespace dpk::test {

struct LoadedPlugin {
  void *library = nullptr;
  dpk_plugin_dispatch_t t{};
  std::string loadError; // empty: t is initialized and `devices` lists its devices
  std::vector<dpk_pl_device_t> devices;

  explicit LoadedPlugin(const std::string &path) {
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *why = dlerror();
      loadError = "cannot load " + path + ": " + (why ? why : "unknown dlopen error");
      return;
    }
    auto entry =
        reinterpret_cast<dpk_plugin_get_dispatch_fn>(dlsym(library, DPK_PLUGIN_ENTRY_SYMBOL));
    if (!entry) {
      loadError = path + " has no " DPK_PLUGIN_ENTRY_SYMBOL;
      return;
    }
    t.struct_size = sizeof(t);
    if (entry(DPK_PLUGIN_ABI_VERSION, &t) != DPK_SUCCESS) {
      loadError = DPK_PLUGIN_ENTRY_SYMBOL " of " + path + " refused this ABI version";
      return;
    }
    if (t.init(nullptr) != DPK_SUCCESS) {
      loadError = std::string("init failed: ") + t.last_error(nullptr);
      return;
    }
    uint32_t count = 0;
    if (t.get_devices(&count, nullptr) == DPK_SUCCESS && count) {
      devices.resize(count);
      t.get_devices(&count, devices.data());
    }
  }
  LoadedPlugin(const LoadedPlugin &) = delete;
  LoadedPlugin &operator=(const LoadedPlugin &) = delete;

  /// The plugin's last error on this thread.
  std::string lastError() const { return t.last_error(nullptr); }
};

} // namespace dpk::test

#endif // DPK_TESTS_SUPPORT_LOADEDPLUGIN_H

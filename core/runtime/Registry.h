// Registry.h - the runtime's process-wide state: policy, plugins, devices, allocations.
//
// Built once, on first use (or dpk_init): load the policy, configure diagnostics, load the
// plugins the policy allows, enumerate their devices and order them by the policy. It is never
// torn down: plugins may own threads (oneTBB, vendor drivers) that must not be unloaded while
// the process exits, and C handles may outlive any static destructor.
#ifndef DPK_CORE_RUNTIME_REGISTRY_H
#define DPK_CORE_RUNTIME_REGISTRY_H

#include "policy/Policy.h"
#include "runtime/Device.h"
#include "runtime/Memory.h"
#include "runtime/PluginLoader.h"
#include "support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace dpk::runtime {

/// What the policy said about one device (for dpk-ls --explain and diagnostics).
struct DeviceVerdictInfo {
  Device *device = nullptr;
  bool eligible = false;
  std::string reason;
};

/// A plugin that loaded but offers no device, and why.
struct EmptyPlugin {
  std::string backend;
  std::string path;
  std::string reason;
};

class Registry {
public:
  /// Initializes the runtime if needed; the init error (policy) is returned on every call.
  static Error ensure();
  /// The initialized registry (call ensure() first).
  static Registry &get();

  const policy::Policy &policy() const { return policy_; }
  const std::vector<PluginRecord> &plugins() const { return plugins_; }
  const std::vector<EmptyPlugin> &emptyPlugins() const { return emptyPlugins_; }
  /// Every device of every loaded plugin, in plugin order.
  const std::vector<std::unique_ptr<Device>> &allDevices() const { return allDevices_; }
  /// Devices the policy allows, best first (dpk_device_count/get).
  const std::vector<Device *> &devices() const { return devices_; }
  /// Every device with the policy's verdict, eligible ones first in preference order.
  const std::vector<DeviceVerdictInfo> &verdicts() const { return verdicts_; }
  /// The host device (for fallback), or null when the host plugin is absent or excluded.
  Device *hostDevice() const { return hostDevice_; }
  /// True when `device` is one of allDevices() (C API handle validation).
  bool isDevice(const void *device) const;
  AllocationTable &allocations() { return allocations_; }

  /// The best device for a filter under the policy (empty filter: the policy's first device).
  /// The filter only ranks devices the policy allows. `purpose` names the caller in messages.
  Expected<Device *> select(std::string_view filter) const;
  /// The best eligible device for a kernel under its selector (kernel overrides included).
  Expected<Device *> selectForKernel(std::string_view kernel) const;
  /// Whether the kernel's selector (a `kernels:` rule of the policy, else the global one) admits
  /// `device`; `rule` receives the rule's description when it does not. Launches ask this, so a
  /// policy without kernel rules answers at once.
  bool kernelMayRunOn(std::string_view kernel, const Device &device, std::string *rule) const;

private:
  Registry() = default;
  /// Runs start-up once per process (ensure() calls it until it has run).
  static void start();
  Error initialize();
  void enumerateDevices(const std::shared_ptr<Plugin> &plugin, const std::string &path);
  void orderDevices();
  std::string consideredDevices() const;

  policy::Policy policy_;
  std::vector<PluginRecord> plugins_;
  std::vector<EmptyPlugin> emptyPlugins_;
  std::vector<std::unique_ptr<Device>> allDevices_;
  std::vector<Device *> devices_;
  std::vector<DeviceVerdictInfo> verdicts_;
  Device *hostDevice_ = nullptr;
  AllocationTable allocations_;
};

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_REGISTRY_H

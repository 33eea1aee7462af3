// Device.h - one device of a loaded plugin: its properties, its context and a utility queue.
//
// Devices live as long as the runtime (they are never released), so a dpk_device_t stays valid
// for the whole process and retain/release on it only count.
#ifndef DPK_CORE_RUNTIME_DEVICE_H
#define DPK_CORE_RUNTIME_DEVICE_H

#include "runtime/Context.h"
#include "runtime/Plugin.h"
#include "support/Error.h"

#include <memory>
#include <mutex>
#include <string>

namespace dpk::runtime {

class Device {
public:
  Device(std::shared_ptr<Plugin> plugin, dpk_pl_device_t native, const dpk_device_props_t &props,
         uint32_t indexInGroup);
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
  ~Device();

  const Plugin &plugin() const { return *plugin_; }
  dpk_pl_device_t native() const { return native_; }
  const dpk_device_props_t &props() const { return props_; }
  /// The canonical filter string "<backend>:<type>:<index>".
  const std::string &filterString() const { return filterString_; }
  const std::string &backend() const { return plugin_->backend; }
  const char *name() const { return props_.name; }
  uint32_t indexInGroup() const { return indexInGroup_; }
  bool isHost() const { return plugin_->backend == "host"; }
  bool accepts(dpk_artifact_format_t format) const { return (props_.formats & format) != 0; }
  /// "'<name>' (<filter string>)" for messages.
  std::string describe() const;

  /// The device's one plugin context, created on first use.
  Expected<dpk_pl_context_t> context();
  /// An in-order plugin queue the core uses for its own transfers (staging, fallback
  /// migration), created on first use.
  Expected<dpk_pl_queue_t> utilityQueue();

private:
  std::shared_ptr<Plugin> plugin_;
  dpk_pl_device_t native_;
  dpk_device_props_t props_;
  std::string filterString_;
  uint32_t indexInGroup_;

  std::mutex mutex_;
  std::unique_ptr<Context> context_;
  dpk_pl_queue_t utilityQueue_ = nullptr;
};

/// "cpu", "gpu", "accelerator".
const char *deviceTypeText(dpk_device_type_t type);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_DEVICE_H

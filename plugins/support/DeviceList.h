// DeviceList.h - a plugin's devices from init() to shutdown(), and the get_devices,
// no_device_reason and device_get_props contracts over them, written once for every plugin.
//
// A plugin whose devices come from a vendor driver keeps them in one DeviceList and forwards its
// entry points to it:
//
//   plugin::DeviceList<Device> &deviceList() {
//     static plugin::DeviceList<Device> list("cuda", "CUDA");
//     return list;
//   }
//   dpk_status_t init(const dpk_plugin_host_services_t *services) {
//     return deviceList().init(services, discover); // discover fills the list, returns why empty
//   }
#ifndef DPK_PLUGINS_SUPPORT_DEVICELIST_H
#define DPK_PLUGINS_SUPPORT_DEVICELIST_H

#include "PluginSupport.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dpk::plugin {

/// get_devices' contract over a plugin's device list: copies up to *count handles into `out`
/// (when it is not NULL) and sets *count to how many devices there are.
template <typename Device>
void listDevices(const std::vector<std::unique_ptr<Device>> &devices, uint32_t *count,
                 dpk_pl_device_t *out) {
  uint32_t available = static_cast<uint32_t>(devices.size());
  if (out)
    for (uint32_t i = 0; i < available && i < *count; ++i)
      out[i] = reinterpret_cast<dpk_pl_device_t>(devices[i].get());
  *count = available;
}

/// Writes `src` into a fixed-size string field of dpk_device_props_t, truncated to fit.
template <size_t Capacity> void copyString(char (&dst)[Capacity], const std::string &src) {
  std::snprintf(dst, Capacity, "%s", src.c_str());
}

/// device_get_props' contract: copies no more of `props` than the caller's struct holds and
/// keeps the caller's struct_size, so an older core with a shorter struct keeps working.
inline void copyDeviceProps(const dpk_device_props_t &props, dpk_device_props_t *out) {
  size_t size = out->struct_size < sizeof(props) ? out->struct_size : sizeof(props);
  size_t callerSize = out->struct_size;
  std::memcpy(out, &props, size);
  out->struct_size = callerSize;
}

/// The devices of one plugin, found once by init() and forgotten by shutdown().
template <typename Device> class DeviceList {
public:
  using Devices = std::vector<std::unique_ptr<Device>>;

  /// `backend` names the plugin in diagnostics ("cuda"), `api` in messages ("CUDA").
  DeviceList(const char *backend, const char *api)
      : backend_(backend),
        notInitialized_(std::string("the ") + api + " plugin was not initialized") {}

  /// init()'s body. Keeps the core's log service and, on the first call since shutdown(), runs
  /// `discover(Devices &)`, which fills the list and returns why it is empty ("" otherwise). A
  /// machine without the vendor's driver is not an error: the plugin stays loaded with zero
  /// devices and the reason, which is also logged ("plugin.devices").
  template <typename Discover>
  dpk_status_t init(const dpk_plugin_host_services_t *services, Discover &&discover) {
    std::lock_guard<std::mutex> guard(lock_);
    if (services && services->struct_size >= sizeof(dpk_plugin_host_services_t))
      log_.store(services->log);
    if (initialized_)
      return DPK_SUCCESS;
    initialized_ = true;
    noDeviceReason_ = discover(devices_);
    log(2, "plugin.devices",
        std::string(backend_) + ": " + std::to_string(devices_.size()) + " device(s)" +
            (noDeviceReason_.empty() ? "" : ": " + noDeviceReason_));
    return DPK_SUCCESS;
  }

  /// shutdown()'s body: forgets every device.
  void shutdown() {
    std::lock_guard<std::mutex> guard(lock_);
    devices_.clear();
    noDeviceReason_.clear();
    initialized_ = false;
  }

  dpk_status_t getDevices(uint32_t *count, dpk_pl_device_t *out) {
    std::lock_guard<std::mutex> guard(lock_);
    if (!initialized_)
      return fail(DPK_ERROR_GENERIC, "get_devices: " + notInitialized_);
    listDevices(devices_, count, out);
    return DPK_SUCCESS;
  }

  const char *noDeviceReason() {
    std::lock_guard<std::mutex> guard(lock_);
    return initialized_ ? noDeviceReason_.c_str() : notInitialized_.c_str();
  }

  /// Reports a diagnostic through the core's log service, when it gave one.
  void log(int level, const char *what, const std::string &message) const {
    if (auto *logFn = log_.load())
      logFn(level, what, message.c_str());
  }

private:
  using LogFn = void (*)(int, const char *, const char *);
  const char *backend_;
  const std::string notInitialized_;
  std::mutex lock_;
  bool initialized_ = false;
  Devices devices_;
  std::string noDeviceReason_;
  std::atomic<LogFn> log_{nullptr};
};

} // namespace dpk::plugin

#endif // DPK_PLUGINS_SUPPORT_DEVICELIST_H

// device.hpp - a Level Zero device as dpk sees it, and the plugin-wide device list.
#ifndef DPK_BACKENDS_LEVEL_ZERO_DEVICE_HPP
#define DPK_BACKENDS_LEVEL_ZERO_DEVICE_HPP

#include "common.hpp"
#include "geometry.hpp"
#include "entries.hpp"

#include <string>

namespace dpk::level_zero {

/// One root device of one driver. Devices live from init() to shutdown().
struct Device {
  uint32_t index = 0; // position in dpk's list
  ze_driver_handle_t driver = nullptr;
  ze_device_handle_t native = nullptr;
  ze_device_properties_t props{};
  ze_device_compute_properties_t compute{};
  ze_device_module_properties_t module{};
  uint64_t totalMemory = 0;
  uint32_t driverVersion = 0;
  uint32_t computeOrdinal = 0;   // the command queue group with compute engines
  size_t maxFillPatternSize = 0; // of that group
  GroupLimits limits;

  /// "Level Zero device 0 (Intel(R) Data Center GPU Max 1100)": how errors name the device.
  std::string label() const;
};

inline Device *toDevice(dpk_pl_device_t handle) { return reinterpret_cast<Device *>(handle); }

void logDiagnostic(int level, const char *what, const std::string &message);


} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_DEVICE_HPP

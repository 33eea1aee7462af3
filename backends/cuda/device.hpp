// device.hpp - a CUDA device as dpk sees it, and the plugin-wide device list.
#ifndef DPK_BACKENDS_CUDA_DEVICE_HPP
#define DPK_BACKENDS_CUDA_DEVICE_HPP

#include "common.hpp"
#include "entries.hpp"

#include <string>

namespace dpk::cuda {

/// One CUDA device. Devices live from init() to shutdown(); the limits are read once.
struct Device {
  int ordinal = 0;
  CUdevice native = 0;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int maxThreadsPerBlock = 0;
  int maxBlock[3] = {0, 0, 0}; // CUDA x, y, z
  int maxGrid[3] = {0, 0, 0};  // CUDA x, y, z
  int sharedPerBlock = 0;      // without opting in (the static + default dynamic limit)
  int sharedPerBlockOptin = 0; // reachable by raising a kernel's dynamic limit
  size_t totalMemory = 0;
  bool managedMemory = false;

  /// "CUDA device 0 (NVIDIA H100 80GB HBM3)": how errors name the device.
  std::string label() const;
};

inline Device *toDevice(dpk_pl_device_t handle) { return reinterpret_cast<Device *>(handle); }

/// Reports a diagnostic through the core's log service (when it gave one).
void logDiagnostic(int level, const char *what, const std::string &message);


} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_DEVICE_HPP

// plugin.cpp - the one exported symbol: fills and version-checks the OpenCL dispatch table.
#include "enqueue.hpp"

#include "GuardedDispatch.h"

namespace dpk::opencl {
namespace {

dpk_status_t init(const dpk_plugin_host_services_t *services) {
  uint32_t count = 0;
  DPK_RETURN_ON_FAILURE(getDevices(&count, nullptr));
  if (!services || services->struct_size < sizeof *services || !services->log)
    return DPK_SUCCESS;
  std::vector<dpk_pl_device_t> devices(count);
  DPK_RETURN_ON_FAILURE(getDevices(&count, devices.data()));
  for (dpk_pl_device_t device : devices) {
    std::string line =
        std::string(device->props.name) + ": memory strategy " + memoryStrategyName(device->memory);
    if (!device->memoryNote.empty())
      line += " (" + device->memoryNote + ")";
    services->log(2, "opencl.device", line.c_str());
  }
  if (count == 0)
    services->log(2, "opencl.device", noDeviceReason());
  return DPK_SUCCESS;
}

void shutdown() { releaseDevices(); }

} // namespace
} // namespace dpk::opencl

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t requestedAbiVersion,
                                                           dpk_plugin_dispatch_t *out) {
  // Every entry runs inside guardEntry: no exception leaves the plugin (GuardedDispatch.h).
  static const dpk_plugin_dispatch_t table = DPK_GUARDED_DISPATCH(dpk::opencl, "opencl");
  return dpkCopyDispatch(requestedAbiVersion, table, out);
}

// plugin.cpp - the one exported symbol: fills and version-checks the OpenCL dispatch table.
#include "enqueue.hpp"

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

dpk_status_t guardedInit(const dpk_plugin_host_services_t *services) {
  return plugin::guardEntry("init", [&] { return init(services); });
}

void shutdown() { releaseDevices(); }

/// Entry points too small for their own guardEntry still build error messages, which may throw:
/// this wraps one so that nothing escapes.
template <auto Entry, typename... Args> dpk_status_t guarded(Args... args) noexcept {
  return plugin::guardEntry("opencl plugin", [&] { return Entry(args...); });
}

} // namespace
} // namespace dpk::opencl

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t requestedAbiVersion,
                                                           dpk_plugin_dispatch_t *out) {
  namespace cl = dpk::opencl;
  if (!out)
    return DPK_ERROR_INVALID_ARGUMENT;
  if (requestedAbiVersion != DPK_PLUGIN_ABI_VERSION)
    return dpk::plugin::guardEntry("dpk_plugin_get_dispatch", [&] {
      return cl::fail(DPK_ERROR_ABI_MISMATCH,
                      "opencl plugin speaks ABI " + std::to_string(DPK_PLUGIN_ABI_VERSION) +
                          ", the core asked for " + std::to_string(requestedAbiVersion));
    });
  if (out->struct_size < sizeof(dpk_plugin_dispatch_t))
    return dpk::plugin::failNoThrow(DPK_ERROR_ABI_MISMATCH, "dpk_plugin_get_dispatch",
                                    "the core's dispatch table is smaller than the one the "
                                    "opencl plugin fills");
  dpk_plugin_dispatch_t table = {};
  table.struct_size = sizeof table;
  table.abi_version = DPK_PLUGIN_ABI_VERSION;
  table.backend = "opencl";
  table.init = cl::guardedInit;
  table.shutdown = cl::shutdown;
  table.last_error = dpk::plugin::lastError;
  table.get_devices = cl::getDevices;
  table.no_device_reason = cl::noDeviceReason;
  table.device_get_props = cl::guarded<cl::deviceGetProps>;
  table.context_create = cl::contextCreate;
  table.context_release = cl::guarded<cl::contextRelease>;
  table.queue_create = cl::queueCreate;
  table.queue_release = cl::guarded<cl::queueRelease>;
  table.queue_finish = cl::guarded<cl::queueFinish>;
  table.mem_alloc = cl::memAlloc;
  table.mem_free = cl::memFree;
  table.enqueue_copy = cl::enqueueCopy;
  table.enqueue_fill = cl::enqueueFill;
  table.program_create = cl::programCreate;
  table.program_release = cl::guarded<cl::programRelease>;
  table.kernel_create = cl::kernelCreate;
  table.kernel_release = cl::guarded<cl::kernelRelease>;
  table.kernel_max_work_group_size = cl::guarded<cl::kernelMaxWorkGroupSize>;
  table.enqueue_launch = cl::enqueueLaunch;
  table.event_wait = cl::eventWait;
  table.event_status = cl::guarded<cl::eventStatus>;
  table.event_elapsed_ns = cl::guarded<cl::eventElapsedNs>;
  table.event_release = cl::guarded<cl::eventRelease>;
  *out = table;
  return DPK_SUCCESS;
}

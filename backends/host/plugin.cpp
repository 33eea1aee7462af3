// plugin.cpp - the host backend's one exported symbol: fills and version-checks the dispatch
// table, and nothing else.
#include "device.hpp"
#include "enqueue.hpp"
#include "event.hpp"
#include "memory.hpp"
#include "program.hpp"
#include "queue.hpp"

#include "PluginSupport.h"

namespace host = dpk::host;

namespace {
dpk_status_t init(const dpk_plugin_host_services_t *) { return DPK_SUCCESS; }
void shutdown() {}
} // namespace

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t requestedAbiVersion,
                                                           dpk_plugin_dispatch_t *out) {
  if (requestedAbiVersion != DPK_PLUGIN_ABI_VERSION)
    return dpk::plugin::fail(DPK_ERROR_ABI_MISMATCH, "host plugin speaks ABI " + std::to_string(DPK_PLUGIN_ABI_VERSION) +
                                                         ", the core asked for " + std::to_string(requestedAbiVersion));
  if (!out || out->struct_size < sizeof(dpk_plugin_dispatch_t))
    return DPK_ERROR_ABI_MISMATCH;
  dpk_plugin_dispatch_t table{};
  table.struct_size = sizeof table;
  table.abi_version = DPK_PLUGIN_ABI_VERSION;
  table.backend = "host";
  table.init = init;
  table.shutdown = shutdown;
  table.last_error = dpk::plugin::lastError;
  table.get_devices = host::getDevices;
  table.no_device_reason = host::noDeviceReason;
  table.device_get_props = host::deviceGetProps;
  table.context_create = host::contextCreate;
  table.context_release = host::contextRelease;
  table.queue_create = host::queueCreate;
  table.queue_release = host::queueRelease;
  table.queue_finish = host::queueFinish;
  table.mem_alloc = host::memAlloc;
  table.mem_free = host::memFree;
  table.enqueue_copy = host::enqueueCopy;
  table.enqueue_fill = host::enqueueFill;
  table.program_create = host::programCreate;
  table.program_release = host::programRelease;
  table.kernel_create = host::kernelCreate;
  table.kernel_release = host::kernelRelease;
  table.kernel_max_work_group_size = host::kernelMaxWorkGroupSize;
  table.enqueue_launch = host::enqueueLaunch;
  table.event_wait = host::eventWait;
  table.event_status = host::eventStatus;
  table.event_elapsed_ns = host::eventElapsedNs;
  table.event_release = host::eventRelease;
  *out = table;
  return DPK_SUCCESS;
}

// plugin.cpp - the Level Zero plugin's one exported symbol: checks the ABI version and fills the
// dispatch table, wrapping every entry so that no exception leaves the plugin.
#include "context.hpp"
#include "device.hpp"
#include "enqueue.hpp"
#include "event.hpp"
#include "kernel.hpp"
#include "memory.hpp"
#include "program.hpp"
#include "queue.hpp"

#include <cstring>

namespace dpk::level_zero {
namespace {

dpk_plugin_dispatch_t makeDispatch() {
  dpk_plugin_dispatch_t t;
  std::memset(&t, 0, sizeof(t));
  t.struct_size = sizeof(t);
  t.abi_version = DPK_PLUGIN_ABI_VERSION;
  t.backend = "level_zero";
  t.init = [](const dpk_plugin_host_services_t *s) {
    return guardEntry("init", [&] { return init(s); });
  };
  t.shutdown = [] {
    guardEntry("shutdown", [] {
      shutdown();
      return DPK_SUCCESS;
    });
  };
  t.last_error = [](int32_t *code) { return plugin::lastError(code); };
  t.get_devices = [](uint32_t *count, dpk_pl_device_t *devices) {
    return guardEntry("get_devices", [&] { return getDevices(count, devices); });
  };
  t.no_device_reason = [] { return noDeviceReason(); };
  t.device_get_props = [](dpk_pl_device_t d, dpk_device_props_t *p) {
    return guardEntry("device_get_props", [&] { return deviceGetProps(d, p); });
  };
  t.context_create = [](dpk_pl_device_t d, dpk_pl_context_t *o) {
    return guardEntry("context_create", [&] { return contextCreate(d, o); });
  };
  t.context_release = [](dpk_pl_context_t c) {
    return guardEntry("context_release", [&] { return contextRelease(c); });
  };
  t.queue_create = [](dpk_pl_context_t c, uint32_t f, dpk_pl_queue_t *o) {
    return guardEntry("queue_create", [&] { return queueCreate(c, f, o); });
  };
  t.queue_release = [](dpk_pl_queue_t q) {
    return guardEntry("queue_release", [&] { return queueRelease(q); });
  };
  t.queue_finish = [](dpk_pl_queue_t q) {
    return guardEntry("queue_finish", [&] { return queueFinish(q); });
  };
  t.mem_alloc = [](dpk_pl_context_t c, dpk_mem_kind_t k, size_t n, size_t a, void **o) {
    return guardEntry("mem_alloc", [&] { return memAlloc(c, k, n, a, o); });
  };
  t.mem_free = [](dpk_pl_context_t c, void *p) {
    return guardEntry("mem_free", [&] { return memFree(c, p); });
  };
  t.enqueue_copy = [](dpk_pl_queue_t q, void *d, const void *s, size_t n, uint32_t nd,
                      const dpk_pl_event_t *deps, dpk_pl_event_t *e) {
    return guardEntry("enqueue_copy", [&] { return enqueueCopy(q, d, s, n, nd, deps, e); });
  };
  t.enqueue_fill = [](dpk_pl_queue_t q, void *d, const void *p, size_t ps, size_t n, uint32_t nd,
                      const dpk_pl_event_t *deps, dpk_pl_event_t *e) {
    return guardEntry("enqueue_fill", [&] { return enqueueFill(q, d, p, ps, n, nd, deps, e); });
  };
  t.program_create = [](dpk_pl_context_t c, dpk_artifact_format_t f, const void *d, size_t n,
                        const char *opts, dpk_pl_program_t *o) {
    return guardEntry("program_create", [&] { return programCreate(c, f, d, n, opts, o); });
  };
  t.program_release = [](dpk_pl_program_t p) {
    return guardEntry("program_release", [&] { return programRelease(p); });
  };
  t.kernel_create = [](dpk_pl_program_t p, const char *name, dpk_pl_kernel_t *o) {
    return guardEntry("kernel_create", [&] { return kernelCreate(p, name, o); });
  };
  t.kernel_release = [](dpk_pl_kernel_t k) {
    return guardEntry("kernel_release", [&] { return kernelRelease(k); });
  };
  t.kernel_max_work_group_size = [](dpk_pl_kernel_t k, uint64_t *o) {
    return guardEntry("kernel_max_work_group_size", [&] { return kernelMaxWorkGroupSize(k, o); });
  };
  t.enqueue_launch = [](dpk_pl_queue_t q, dpk_pl_kernel_t k, const dpk_launch_config_t *c,
                        uint32_t na, const dpk_kernel_arg_t *a, uint32_t nd,
                        const dpk_pl_event_t *deps, dpk_pl_event_t *e) {
    return guardEntry("enqueue_launch", [&] { return enqueueLaunch(q, k, c, na, a, nd, deps, e); });
  };
  t.event_wait = [](uint32_t n, const dpk_pl_event_t *e) {
    return guardEntry("event_wait", [&] { return eventWait(n, e); });
  };
  t.event_status = [](dpk_pl_event_t e, dpk_event_status_t *o) {
    return guardEntry("event_status", [&] { return eventStatus(e, o); });
  };
  t.event_elapsed_ns = [](dpk_pl_event_t e, uint64_t *o) {
    return guardEntry("event_elapsed_ns", [&] { return eventElapsedNs(e, o); });
  };
  t.event_release = [](dpk_pl_event_t e) {
    return guardEntry("event_release", [&] { return eventRelease(e); });
  };
  return t;
}

} // namespace
} // namespace dpk::level_zero

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t requestedAbiVersion,
                                                           dpk_plugin_dispatch_t *out) {
  if (requestedAbiVersion != DPK_PLUGIN_ABI_VERSION)
    return DPK_ERROR_ABI_MISMATCH;
  if (!out || out->struct_size == 0)
    return DPK_ERROR_INVALID_ARGUMENT;
  static const dpk_plugin_dispatch_t table = dpk::level_zero::makeDispatch();
  // Write no more than the core's table holds; struct_size tells it how much this plugin knows.
  size_t size = out->struct_size < sizeof(table) ? out->struct_size : sizeof(table);
  std::memcpy(out, &table, size);
  return DPK_SUCCESS;
}

// GuardedDispatch.h - fills a plugin's dispatch table from a namespace whose entry points are
// named after the table's fields (getDevices for get_devices, ...), wrapping each one in
// guardEntry so that no exception leaves the plugin and every failure names its entry point.
//
//   static const dpk_plugin_dispatch_t table = DPK_GUARDED_DISPATCH(dpk::cuda, "cuda");
//
// The namespace provides init, shutdown, getDevices, noDeviceReason, deviceGetProps,
// contextCreate/Release, queueCreate/Release/Finish, memAlloc/Free, enqueueCopy/Fill/Launch,
// programCreate/Release, kernelCreate/Release/MaxWorkGroupSize, eventWait/Status/ElapsedNs/Release.
#ifndef DPK_PLUGINS_SUPPORT_GUARDEDDISPATCH_H
#define DPK_PLUGINS_SUPPORT_GUARDEDDISPATCH_H

#include "PluginSupport.h"

#include <cstring>

/// A captureless lambda that converts to the table field's function-pointer type and calls `fn`
/// inside guardEntry(entryName, ...).
#define DPK_GUARDED_ENTRY(entryName, fn)                                                         \
  [](auto... args) -> dpk_status_t {                                                             \
    return ::dpk::plugin::guardEntry(entryName, [&] { return fn(args...); });                    \
  }

#define DPK_GUARDED_DISPATCH(ns, backendName)                                                    \
  ([] {                                                                                          \
    dpk_plugin_dispatch_t t;                                                                     \
    std::memset(&t, 0, sizeof(t));                                                               \
    t.struct_size = sizeof(t);                                                                   \
    t.abi_version = DPK_PLUGIN_ABI_VERSION;                                                      \
    t.backend = backendName;                                                                     \
    t.init = DPK_GUARDED_ENTRY("init", ns::init);                                                \
    t.shutdown = [] {                                                                            \
      ::dpk::plugin::guardEntry("shutdown", [] {                                                 \
        ns::shutdown();                                                                          \
        return DPK_SUCCESS;                                                                      \
      });                                                                                        \
    };                                                                                           \
    t.last_error = [](int32_t *code) { return ::dpk::plugin::lastError(code); };                 \
    t.get_devices = DPK_GUARDED_ENTRY("get_devices", ns::getDevices);                            \
    t.no_device_reason = [] { return ns::noDeviceReason(); };                                    \
    t.device_get_props = DPK_GUARDED_ENTRY("device_get_props", ns::deviceGetProps);              \
    t.context_create = DPK_GUARDED_ENTRY("context_create", ns::contextCreate);                   \
    t.context_release = DPK_GUARDED_ENTRY("context_release", ns::contextRelease);                \
    t.queue_create = DPK_GUARDED_ENTRY("queue_create", ns::queueCreate);                         \
    t.queue_release = DPK_GUARDED_ENTRY("queue_release", ns::queueRelease);                      \
    t.queue_finish = DPK_GUARDED_ENTRY("queue_finish", ns::queueFinish);                         \
    t.mem_alloc = DPK_GUARDED_ENTRY("mem_alloc", ns::memAlloc);                                  \
    t.mem_free = DPK_GUARDED_ENTRY("mem_free", ns::memFree);                                     \
    t.enqueue_copy = DPK_GUARDED_ENTRY("enqueue_copy", ns::enqueueCopy);                         \
    t.enqueue_fill = DPK_GUARDED_ENTRY("enqueue_fill", ns::enqueueFill);                         \
    t.program_create = DPK_GUARDED_ENTRY("program_create", ns::programCreate);                   \
    t.program_release = DPK_GUARDED_ENTRY("program_release", ns::programRelease);                \
    t.kernel_create = DPK_GUARDED_ENTRY("kernel_create", ns::kernelCreate);                      \
    t.kernel_release = DPK_GUARDED_ENTRY("kernel_release", ns::kernelRelease);                   \
    t.kernel_max_work_group_size =                                                               \
        DPK_GUARDED_ENTRY("kernel_max_work_group_size", ns::kernelMaxWorkGroupSize);             \
    t.enqueue_launch = DPK_GUARDED_ENTRY("enqueue_launch", ns::enqueueLaunch);                   \
    t.event_wait = DPK_GUARDED_ENTRY("event_wait", ns::eventWait);                               \
    t.event_status = DPK_GUARDED_ENTRY("event_status", ns::eventStatus);                         \
    t.event_elapsed_ns = DPK_GUARDED_ENTRY("event_elapsed_ns", ns::eventElapsedNs);              \
    t.event_release = DPK_GUARDED_ENTRY("event_release", ns::eventRelease);                      \
    return t;                                                                                    \
  }())

/// The exported entry symbol's body: checks the ABI version and copies no more of `table` than
/// the core's struct holds (its struct_size says how much it knows).
inline dpk_status_t dpkCopyDispatch(uint32_t requestedAbiVersion, const dpk_plugin_dispatch_t &table,
                                    dpk_plugin_dispatch_t *out) {
  if (requestedAbiVersion != DPK_PLUGIN_ABI_VERSION) {
    if (out)
      out->abi_version = DPK_PLUGIN_ABI_VERSION;
    return DPK_ERROR_ABI_MISMATCH;
  }
  if (!out || out->struct_size == 0)
    return DPK_ERROR_INVALID_ARGUMENT;
  size_t size = out->struct_size < sizeof(table) ? out->struct_size : sizeof(table);
  std::memcpy(out, &table, size);
  return DPK_SUCCESS;
}

#endif // DPK_PLUGINS_SUPPORT_GUARDEDDISPATCH_H

// FaultPlugin.cpp - backend "fault": one GPU-typed device that runs host-native kernels
// serially and fails on demand, so tests can drive every fallback path on any machine.
//
// DPK_FAULT_INJECT (read at each call) selects the failure:
//   none (or unset)  everything works: kernels run, results are correct
//   compile          program_create fails with DPK_ERROR_COMPILE
//   launch           enqueue_launch fails with DPK_ERROR_LAUNCH
//   oom              mem_alloc fails with DPK_ERROR_OUT_OF_DEVICE_MEMORY
//   async            launches "succeed" but their event fails with DPK_ERROR_DEVICE at wait
//   nodevice         the plugin reports zero devices, with a reason
//   init             init fails
//   once:ENTRY[:N]   the first call of plugin entry ENTRY (a field of dpk/plugin_entries.def:
//                    enqueue_launch, mem_free, ...) made while this value is set, after N
//                    more calls that succeed (default 0), fails; later calls work again. It
//                    fires once per entry per process and says so on stderr ("fault: injected
//                    failure of ENTRY"), so a test can arm it mid-run with setenv and check it
//                    fired even where the runtime swallows the status (releases at teardown)
//   always:ENTRY     every call of ENTRY fails while this value is set
//
// Entries that return no status (shutdown, no_device_reason, last_error) cannot fail.
// Its table is built like every backend's (GuardedDispatch.inc over namespace dpk::fault), and
// it is called through the core's validation layer, so it checks no arguments either.
#include "dpk/plugin.h"

#include "DeviceList.h"
#include "GuardedDispatch.h"
#include "NativeQueue.h"
#include "PluginSupport.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct dpk_pl_device_s {};
struct dpk_pl_context_s {};
struct dpk_pl_queue_s {
  dpk_status_t firstError = DPK_SUCCESS;
  std::string cause;
};
struct dpk_pl_program_s {
  std::vector<dpk_host_kernel_entry_t> kernels;
  std::vector<std::string> names;
};
struct dpk_pl_kernel_s {
  dpk_host_kernel_entry_t entry;
};
struct dpk_pl_event_s {
  dpk_status_t status = DPK_SUCCESS;
  std::string cause;
};

namespace dpk::fault {
#include "PluginEntries.h"

namespace {

dpk_pl_device_s theDevice;

bool injected(const char *mode) {
  const char *env = std::getenv("DPK_FAULT_INJECT");
  return env && std::strcmp(env, mode) == 0;
}

dpk_pl_event_t finished(dpk_status_t status, std::string cause, dpk_pl_event_t *out) {
  if (!out)
    return nullptr;
  *out = new dpk_pl_event_s{status, std::move(cause)};
  return *out;
}

dpk_status_t waitDeps(uint32_t numDeps, const dpk_pl_event_t *deps) {
  for (uint32_t i = 0; i < numDeps; ++i)
    if (deps[i]->status != DPK_SUCCESS)
      return plugin::fail(DPK_ERROR_DEVICE, "fault: a dependency failed: " + deps[i]->cause);
  return DPK_SUCCESS;
}

} // namespace

dpk_status_t init(const dpk_plugin_host_services_t *) {
  if (injected("init"))
    return plugin::fail(DPK_ERROR_DEVICE, "fault: injected init failure");
  return DPK_SUCCESS;
}

void shutdown() {}

dpk_status_t getDevices(uint32_t *count, dpk_pl_device_t *devices) {
  if (injected("nodevice")) {
    *count = 0;
    return DPK_SUCCESS;
  }
  if (devices && *count >= 1)
    devices[0] = &theDevice;
  *count = 1;
  return DPK_SUCCESS;
}

const char *noDeviceReason() { return injected("nodevice") ? "fault: injected absence of devices" : ""; }

dpk_status_t deviceGetProps(dpk_device_props_t *out, dpk_pl_device_t) {
  dpk_device_props_t props{};
  props.struct_size = sizeof props;
  plugin::copyString(props.name, "dpk fault-injection device");
  plugin::copyString(props.vendor, "dpk tests");
  plugin::copyString(props.driver_version, "1");
  plugin::copyString(props.target_id, "fault-device");
  props.type = DPK_DEVICE_TYPE_GPU;
  props.compute_units = 1;
  props.global_mem_size = 1ull << 30;
  props.local_mem_size = 64 << 10;
  props.max_alloc_size = 1ull << 30;
  props.max_work_group_size = 1024;
  props.max_work_item_sizes[0] = props.max_work_item_sizes[1] = props.max_work_item_sizes[2] = 1024;
  props.formats = DPK_FORMAT_HOST_NATIVE;
  props.aspects = DPK_ASPECT_FP64 | DPK_ASPECT_ATOMIC64 | DPK_ASPECT_USM_DEVICE |
                  DPK_ASPECT_USM_SHARED | DPK_ASPECT_USM_HOST;
  plugin::copyDeviceProps(props, out);
  return DPK_SUCCESS;
}

dpk_status_t contextCreate(dpk_pl_context_t *out, dpk_pl_device_t) {
  *out = new dpk_pl_context_s;
  return DPK_SUCCESS;
}
dpk_status_t contextRelease(dpk_pl_context_t context) {
  delete context;
  return DPK_SUCCESS;
}
dpk_status_t queueCreate(dpk_pl_queue_t *out, dpk_pl_context_t, uint32_t) {
  *out = new dpk_pl_queue_s;
  return DPK_SUCCESS;
}
dpk_status_t queueRelease(dpk_pl_queue_t queue) {
  delete queue;
  return DPK_SUCCESS;
}
// Kernels run serially on the submitting thread: the host's rule, without an arena.
dpk_status_t queueCreateFromNative(dpk_pl_queue_t *, dpk_pl_context_t, const dpk_native_queue_t *) {
  return plugin::fail(DPK_ERROR_UNSUPPORTED,
                      "queue_create_from_native: the fault plugin adopts no native queues");
}
dpk_status_t enqueueGemm(dpk_pl_event_t *, dpk_pl_queue_t, const dpk_gemm_desc_t *, uint32_t,
                         const dpk_pl_event_t *) {
  return plugin::fail(DPK_ERROR_UNSUPPORTED, "enqueue_gemm: the fault plugin has no BLAS");
}
dpk_status_t queueGetNative(dpk_native_queue_t *out, dpk_pl_queue_t) {
  return plugin::copyNativeQueue(plugin::emptyNativeQueue(DPK_NATIVE_API_HOST,
                                                          DPK_NATIVE_MEMORY_HOST,
                                                          DPK_NATIVE_ORDER_WAIT_THEN_RUN),
                                 out);
}
dpk_status_t queueFinish(dpk_pl_queue_t queue) {
  dpk_status_t status = queue->firstError;
  std::string cause = queue->cause;
  queue->firstError = DPK_SUCCESS;
  queue->cause.clear();
  return status == DPK_SUCCESS ? DPK_SUCCESS : plugin::fail(status, cause);
}

dpk_status_t memAlloc(void **out, dpk_pl_context_t, dpk_mem_kind_t, size_t size, size_t alignment) {
  if (injected("oom"))
    return plugin::fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY, 2, "fault: injected out of device memory allocating " + std::to_string(size) + " bytes");
  size_t align = alignment > 64 ? alignment : 64;
  void *ptr = std::aligned_alloc(align, (size + align - 1) / align * align);
  if (!ptr)
    return plugin::fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY, "fault: malloc failed");
  *out = ptr;
  return DPK_SUCCESS;
}
dpk_status_t memFree(dpk_pl_context_t, void *ptr) {
  std::free(ptr);
  return DPK_SUCCESS;
}

dpk_status_t enqueueCopy(dpk_pl_event_t *out, dpk_pl_queue_t, void *dst, const void *src, size_t bytes, uint32_t numDeps,
                         const dpk_pl_event_t *deps) {
  DPK_RETURN_ON_FAILURE(waitDeps(numDeps, deps));
  std::memmove(dst, src, bytes);
  finished(DPK_SUCCESS, "", out);
  return DPK_SUCCESS;
}

dpk_status_t enqueueFill(dpk_pl_event_t *out, dpk_pl_queue_t, void *dst, const void *pattern, size_t patternSize, size_t bytes,
                         uint32_t numDeps, const dpk_pl_event_t *deps) {
  DPK_RETURN_ON_FAILURE(waitDeps(numDeps, deps));
  for (size_t offset = 0; offset + patternSize <= bytes; offset += patternSize)
    std::memcpy(static_cast<char *>(dst) + offset, pattern, patternSize);
  finished(DPK_SUCCESS, "", out);
  return DPK_SUCCESS;
}

dpk_status_t programCreate(dpk_pl_program_t *out, dpk_pl_context_t, dpk_artifact_format_t format, const void *data, size_t,
                           const char *) {
  if (injected("compile"))
    return plugin::fail(DPK_ERROR_COMPILE, 11, "fault: injected build failure\nbuild log: error: injected");
  if (format != DPK_FORMAT_HOST_NATIVE)
    return plugin::fail(DPK_ERROR_UNSUPPORTED, "fault: only host-native artifacts");
  const auto *module = static_cast<const dpk_host_module_t *>(data);
  auto *program = new dpk_pl_program_s;
  for (uint32_t i = 0; i < module->num_kernels; ++i) {
    program->kernels.push_back(module->kernels[i]);
    program->names.push_back(module->kernels[i].name);
  }
  *out = program;
  return DPK_SUCCESS;
}
dpk_status_t programRelease(dpk_pl_program_t program) {
  delete program;
  return DPK_SUCCESS;
}
dpk_status_t kernelCreate(dpk_pl_kernel_t *out, dpk_pl_program_t program, const char *name) {
  for (size_t i = 0; i < program->names.size(); ++i)
    if (program->names[i] == name) {
      *out = new dpk_pl_kernel_s{program->kernels[i]};
      return DPK_SUCCESS;
    }
  return plugin::fail(DPK_ERROR_NOT_FOUND, std::string("fault: no kernel ") + name);
}
dpk_status_t kernelRelease(dpk_pl_kernel_t kernel) {
  delete kernel;
  return DPK_SUCCESS;
}
dpk_status_t kernelMaxWorkGroupSize(uint64_t *out, dpk_pl_kernel_t) {
  *out = 1024;
  return DPK_SUCCESS;
}

namespace {

// Runs every work-group serially. A Range launch uses single-item groups.
void runSerially(const dpk_host_kernel_entry_t &entry, const dpk_launch_config_t &config,
                 uint32_t numArgs, const dpk_kernel_arg_t *args) {
  uint64_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  for (uint32_t d = 0; d < config.dims; ++d) {
    global[d] = config.global_size[d];
    local[d] = config.local_size[d] ? config.local_size[d] : 1;
  }
  if (entry.required_local_size[0])
    for (int d = 0; d < 3; ++d)
      local[d] = entry.required_local_size[d] ? entry.required_local_size[d] : 1;
  std::vector<std::vector<unsigned char>> localBuffers(numArgs);
  std::vector<void *> localPointers(numArgs, nullptr);
  std::vector<void *> pointers(numArgs);
  for (uint32_t i = 0; i < numArgs; ++i) {
    if (args[i].kind == DPK_ARG_LOCAL) {
      localBuffers[i].resize(args[i].size + 64);
      localPointers[i] = localBuffers[i].data();
      pointers[i] = &localPointers[i];
      continue;
    }
    pointers[i] = const_cast<void *>(args[i].value);
  }
  dpk_host_work_group_t group{};
  group.dims = config.dims;
  for (int d = 0; d < 3; ++d) {
    group.global_size[d] = global[d];
    group.local_size[d] = local[d];
    group.num_groups[d] = global[d] / local[d];
  }
  for (uint64_t i = 0; i < group.num_groups[0]; ++i)
    for (uint64_t j = 0; j < group.num_groups[1]; ++j)
      for (uint64_t k = 0; k < group.num_groups[2]; ++k) {
        group.group_id[0] = i;
        group.group_id[1] = j;
        group.group_id[2] = k;
        if (entry.kind == DPK_HOST_KERNEL_GROUP) {
          reinterpret_cast<dpk_host_group_fn>(entry.fn)(&group, pointers.data());
          continue;
        }
        dpk_host_item_t item{};
        item.dims = group.dims;
        for (uint64_t a = 0; a < local[0]; ++a)
          for (uint64_t b = 0; b < local[1]; ++b)
            for (uint64_t c = 0; c < local[2]; ++c) {
              uint64_t lid[3] = {a, b, c};
              for (int d = 0; d < 3; ++d) {
                item.local_id[d] = lid[d];
                item.group_id[d] = group.group_id[d];
                item.global_id[d] = group.group_id[d] * local[d] + lid[d];
                item.global_size[d] = global[d];
                item.local_size[d] = local[d];
              }
              reinterpret_cast<dpk_host_item_fn>(entry.fn)(&item, pointers.data());
            }
      }
}

} // namespace

dpk_status_t enqueueLaunch(dpk_pl_event_t *out, dpk_pl_queue_t queue, dpk_pl_kernel_t kernel, const dpk_launch_config_t *config,
                           uint32_t numArgs, const dpk_kernel_arg_t *args, uint32_t numDeps,
                           const dpk_pl_event_t *deps) {
  if (injected("launch"))
    return plugin::fail(DPK_ERROR_LAUNCH, 700, std::string("fault: injected launch failure of '") + kernel->entry.name + "'");
  DPK_RETURN_ON_FAILURE(waitDeps(numDeps, deps));
  if (injected("async")) {
    std::string cause = std::string("fault: injected asynchronous device error in '") + kernel->entry.name + "'";
    if (queue->firstError == DPK_SUCCESS) {
      queue->firstError = DPK_ERROR_DEVICE;
      queue->cause = cause;
    }
    finished(DPK_ERROR_DEVICE, cause, out);
    return DPK_SUCCESS;
  }
  runSerially(kernel->entry, *config, numArgs, args);
  finished(DPK_SUCCESS, "", out);
  return DPK_SUCCESS;
}

dpk_status_t eventWait(uint32_t numEvents, const dpk_pl_event_t *events) {
  for (uint32_t i = 0; i < numEvents; ++i)
    if (events[i]->status != DPK_SUCCESS)
      return plugin::fail(events[i]->status, events[i]->cause);
  return DPK_SUCCESS;
}
dpk_status_t eventStatus(dpk_event_status_t *out, dpk_pl_event_t event) {
  *out = event->status == DPK_SUCCESS ? DPK_EVENT_COMPLETE : DPK_EVENT_ERROR;
  return DPK_SUCCESS;
}
dpk_status_t eventElapsedNs(uint64_t *, dpk_pl_event_t) {
  return plugin::fail(DPK_ERROR_UNSUPPORTED, "fault: no profiling");
}
dpk_status_t eventRelease(dpk_pl_event_t event) {
  delete event;
  return DPK_SUCCESS;
}

} // namespace dpk::fault

// ---- injection at any entry (once:ENTRY[:N], always:ENTRY) -------------------------------

namespace dpk::fault {
namespace {

// One slot per row of dpk/plugin_entries.def, in ABI order.
enum EntryIndex : unsigned {
#define DPK_PLUGIN_ENTRY(kind, return_type, field, Name, parameters, arguments) Entry_##field,
#include "dpk/plugin_entries.def"
#undef DPK_PLUGIN_ENTRY
  EntryCount
};

struct EntryInjection {
  std::atomic<uint64_t> callsWhileArmed{0};
  std::atomic<bool> fired{false};
};
EntryInjection injections[EntryCount];

/// The status an injected failure of `field` returns: what the real failure would be.
dpk_status_t injectedStatus(const char *field) {
  if (std::strcmp(field, "mem_alloc") == 0)
    return DPK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (std::strcmp(field, "program_create") == 0)
    return DPK_ERROR_COMPILE;
  if (std::strcmp(field, "enqueue_launch") == 0)
    return DPK_ERROR_LAUNCH;
  return DPK_ERROR_DEVICE;
}

/// Whether this call of entry `field` (slot `index`) is to fail under DPK_FAULT_INJECT.
bool failsNow(unsigned index, const char *field) {
  const char *env = std::getenv("DPK_FAULT_INJECT");
  if (!env)
    return false;
  std::string mode = env;
  size_t length = std::strlen(field);
  if (mode.rfind("always:", 0) == 0)
    return mode.compare(7, std::string::npos, field) == 0;
  if (mode.rfind("once:", 0) != 0 || mode.compare(5, length, field) != 0)
    return false;
  std::string rest = mode.substr(5 + length);
  if (!rest.empty() && rest[0] != ':')
    return false; // once:event_wait must not arm event_wait_all, should one ever exist
  uint64_t skip = rest.empty() ? 0 : std::strtoull(rest.c_str() + 1, nullptr, 10);
  EntryInjection &injection = injections[index];
  if (injection.callsWhileArmed.fetch_add(1) < skip)
    return false;
  bool expected = false;
  return injection.fired.compare_exchange_strong(expected, true);
}

dpk_status_t injectedFailure(const char *field) {
  std::fprintf(stderr, "fault: injected failure of %s\n", field);
  return plugin::fail(injectedStatus(field), 900,
                      std::string("fault: injected failure of ") + field);
}

dpk_plugin_dispatch_t guarded; // the backend's own table, which the injecting one forwards to

} // namespace
} // namespace dpk::fault

// The injecting table: every STATUS entry asks failsNow first, then forwards to `guarded`.
#define DPK_FAULT_FIELD_STATUS(field, parameters, arguments)                                     \
  t.field = [] parameters -> dpk_status_t {                                                      \
    if (dpk::fault::failsNow(dpk::fault::Entry_##field, #field))                                 \
      return dpk::fault::injectedFailure(#field);                                                \
    return dpk::fault::guarded.field arguments;                                                  \
  };
#define DPK_FAULT_FIELD_VOID(field, parameters, arguments)
#define DPK_FAULT_FIELD_TEXT(field, parameters, arguments)
#define DPK_FAULT_FIELD_LAST_ERROR(field, parameters, arguments)

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t requestedAbiVersion,
                                                           dpk_plugin_dispatch_t *out) {
  static const dpk_plugin_dispatch_t table = [] {
    dpk_plugin_dispatch_t t = dpk::plugin::emptyDispatch("fault");
#define DPK_GUARDED_NAMESPACE dpk::fault
#include "GuardedDispatch.inc" // every entry of dpk/plugin_entries.def, inside guardEntry
#undef DPK_GUARDED_NAMESPACE
    dpk::fault::guarded = t;
#define DPK_PLUGIN_ENTRY(kind, return_type, field, Name, parameters, arguments)                \
  DPK_FAULT_FIELD_##kind(field, parameters, arguments)
#include "dpk/plugin_entries.def"
#undef DPK_PLUGIN_ENTRY
    return t;
  }();
  return dpk::plugin::copyDispatch(requestedAbiVersion, table, out);
}

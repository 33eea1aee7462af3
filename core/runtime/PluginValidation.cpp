// PluginValidation.cpp - the checks of every plugin entry point, and the forwarding to the plugin.
#include "runtime/PluginValidation.h"

#include "runtime/GemmShape.h"
#include "runtime/LastError.h"
#include "runtime/LaunchRange.h"

#include <string>

namespace dpk::runtime {
namespace {

// Whether this thread's most recent validated call was rejected, and why. Every validated call
// clears the flag, which is on the launch path: initial-exec TLS makes that one store (a byte of
// the static TLS surplus glibc keeps for dlopen'ed libraries) instead of a __tls_get_addr call.
// The message is written only on rejection.
__attribute__((tls_model("initial-exec"))) thread_local bool rejected = false;
thread_local std::string rejection;

/// Records why a call was rejected and returns its status, so each check is one line.
dpk_status_t reject(dpk_status_t status, const char *entry, const std::string &what) {
  rejection = std::string(entry) + ": " + what;
  rejected = true;
  return status;
}

dpk_status_t checkDeps(const char *entry, uint32_t numDeps, const dpk_pl_event_t *deps) {
  if (numDeps == 0)
    return DPK_SUCCESS;
  if (!deps)
    return reject(DPK_ERROR_INVALID_ARGUMENT, entry, "deps is NULL with num_deps > 0");
  for (uint32_t i = 0; i < numDeps; ++i) {
    if (!deps[i])
      return reject(DPK_ERROR_INVALID_HANDLE, entry, "dependency " + std::to_string(i) + " is NULL");
  }
  return DPK_SUCCESS;
}

dpk_status_t checkArgument(uint32_t index, const dpk_kernel_arg_t &arg) {
  auto where = [&] { return "argument " + std::to_string(index); };
  switch (enumValue(arg.kind)) {
  case DPK_ARG_POINTER:
    if (!arg.value)
      return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch",
                    where() + " is a pointer whose value (the address of a void*) is NULL");
    return DPK_SUCCESS;
  case DPK_ARG_SCALAR:
    if (!arg.value || arg.size == 0)
      return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch",
                    where() + " is a scalar without a value or size");
    return DPK_SUCCESS;
  case DPK_ARG_LOCAL:
    if (arg.size == 0)
      return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch",
                    where() + " asks for 0 bytes of local memory");
    return DPK_SUCCESS;
  default:
    return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch",
                  where() + " has unknown kind " + std::to_string(enumValue(arg.kind)));
  }
}

bool isPowerOfTwo(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

} // namespace

// One check function per STATUS row of dpk/plugin_entries.def, named like the table's field.
// A row without one does not compile: a new entry point must say what it checks.
namespace checks {

dpk_status_t init(const dpk_plugin_host_services_t *) { return DPK_SUCCESS; }

dpk_status_t get_devices(uint32_t *count, dpk_pl_device_t *) {
  if (!count)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "get_devices", "count is NULL");
  return DPK_SUCCESS;
}

dpk_status_t device_get_props(dpk_device_props_t *out, dpk_pl_device_t device) {
  if (!device)
    return reject(DPK_ERROR_INVALID_HANDLE, "device_get_props", "device is NULL");
  if (!out || out->struct_size == 0)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "device_get_props",
                  "out is NULL or has no struct_size");
  return DPK_SUCCESS;
}

dpk_status_t context_create(dpk_pl_context_t *out, dpk_pl_device_t device) {
  if (!device)
    return reject(DPK_ERROR_INVALID_HANDLE, "context_create", "device is NULL");
  if (!out)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "context_create", "out is NULL");
  return DPK_SUCCESS;
}

dpk_status_t context_release(dpk_pl_context_t context) {
  if (!context)
    return reject(DPK_ERROR_INVALID_HANDLE, "context_release", "context is NULL");
  return DPK_SUCCESS;
}

dpk_status_t queue_create(dpk_pl_queue_t *out, dpk_pl_context_t context, uint32_t flags) {
  if (!context)
    return reject(DPK_ERROR_INVALID_HANDLE, "queue_create", "context is NULL");
  if (!out)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "queue_create", "out is NULL");
  if (flags & ~uint32_t(DPK_PL_QUEUE_OUT_OF_ORDER | DPK_PL_QUEUE_PROFILING))
    return reject(DPK_ERROR_INVALID_ARGUMENT, "queue_create",
                  "unknown flags " + std::to_string(flags));
  return DPK_SUCCESS;
}

dpk_status_t queue_release(dpk_pl_queue_t queue) {
  if (!queue)
    return reject(DPK_ERROR_INVALID_HANDLE, "queue_release", "queue is NULL");
  return DPK_SUCCESS;
}

dpk_status_t queue_finish(dpk_pl_queue_t queue) {
  if (!queue)
    return reject(DPK_ERROR_INVALID_HANDLE, "queue_finish", "queue is NULL");
  return DPK_SUCCESS;
}

dpk_status_t mem_alloc(void **out, dpk_pl_context_t context, dpk_mem_kind_t kind, size_t size,
                       size_t alignment) {
  if (!context)
    return reject(DPK_ERROR_INVALID_HANDLE, "mem_alloc", "context is NULL");
  if (!out || size == 0)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "mem_alloc", "out is NULL or size is 0");
  int rawKind = enumValue(kind);
  if (rawKind != DPK_MEM_DEVICE && rawKind != DPK_MEM_SHARED && rawKind != DPK_MEM_HOST)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "mem_alloc",
                  "unknown memory kind " + std::to_string(rawKind));
  if (alignment != 0 && !isPowerOfTwo(alignment))
    return reject(DPK_ERROR_INVALID_ARGUMENT, "mem_alloc",
                  "alignment " + std::to_string(alignment) + " is not a power of two");
  return DPK_SUCCESS;
}

dpk_status_t mem_free(dpk_pl_context_t context, void *) {
  if (!context)
    return reject(DPK_ERROR_INVALID_HANDLE, "mem_free", "context is NULL");
  return DPK_SUCCESS;
}

dpk_status_t enqueue_copy(dpk_pl_event_t *, dpk_pl_queue_t queue, void *dst, const void *src, size_t bytes,
                          uint32_t numDeps, const dpk_pl_event_t *deps) {
  if (!queue)
    return reject(DPK_ERROR_INVALID_HANDLE, "enqueue_copy", "queue is NULL");
  if (bytes != 0 && (!dst || !src))
    return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_copy", "dst or src is NULL");
  return checkDeps("enqueue_copy", numDeps, deps);
}

dpk_status_t enqueue_fill(dpk_pl_event_t *, dpk_pl_queue_t queue, void *dst, const void *pattern,
                          size_t patternSize, size_t bytes, uint32_t numDeps,
                          const dpk_pl_event_t *deps) {
  if (!queue)
    return reject(DPK_ERROR_INVALID_HANDLE, "enqueue_fill", "queue is NULL");
  if (!pattern || (bytes != 0 && !dst))
    return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_fill", "dst or pattern is NULL");
  // Power-of-two patterns up to 128 bytes: what every device API fills natively (the C API's
  // limit too).
  if (!isPowerOfTwo(patternSize) || patternSize > 128)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_fill",
                  "pattern size " + std::to_string(patternSize) +
                      " is not a power of two up to 128");
  if (bytes % patternSize != 0)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_fill",
                  std::to_string(bytes) + " bytes is not a multiple of the pattern size " +
                      std::to_string(patternSize));
  return checkDeps("enqueue_fill", numDeps, deps);
}

dpk_status_t program_create(dpk_pl_program_t *out, dpk_pl_context_t context, dpk_artifact_format_t format,
                            const void *data, size_t size, const char *) {
  if (!context)
    return reject(DPK_ERROR_INVALID_HANDLE, "program_create", "context is NULL");
  if (!out)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "program_create", "out is NULL");
  if (!data || size == 0)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "program_create", "data is NULL or size is 0");
  int rawFormat = enumValue(format);
  if (rawFormat != DPK_FORMAT_HOST_NATIVE && rawFormat != DPK_FORMAT_SPIRV &&
      rawFormat != DPK_FORMAT_OPENCL_C && rawFormat != DPK_FORMAT_PTX)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "program_create",
                  "unknown artifact format " + std::to_string(rawFormat));
  return DPK_SUCCESS;
}

dpk_status_t program_release(dpk_pl_program_t program) {
  if (!program)
    return reject(DPK_ERROR_INVALID_HANDLE, "program_release", "program is NULL");
  return DPK_SUCCESS;
}

dpk_status_t kernel_create(dpk_pl_kernel_t *out, dpk_pl_program_t program, const char *name) {
  if (!program)
    return reject(DPK_ERROR_INVALID_HANDLE, "kernel_create", "program is NULL");
  if (!name || !out)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "kernel_create", "name or out is NULL");
  return DPK_SUCCESS;
}

dpk_status_t kernel_release(dpk_pl_kernel_t kernel) {
  if (!kernel)
    return reject(DPK_ERROR_INVALID_HANDLE, "kernel_release", "kernel is NULL");
  return DPK_SUCCESS;
}

dpk_status_t kernel_max_work_group_size(uint64_t *out, dpk_pl_kernel_t kernel) {
  if (!kernel)
    return reject(DPK_ERROR_INVALID_HANDLE, "kernel_max_work_group_size", "kernel is NULL");
  if (!out)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "kernel_max_work_group_size", "out is NULL");
  return DPK_SUCCESS;
}

dpk_status_t enqueue_launch(dpk_pl_event_t *, dpk_pl_queue_t queue, dpk_pl_kernel_t kernel,
                            const dpk_launch_config_t *config, uint32_t numArgs,
                            const dpk_kernel_arg_t *args, uint32_t numDeps,
                            const dpk_pl_event_t *deps) {
  if (!queue || !kernel)
    return reject(DPK_ERROR_INVALID_HANDLE, "enqueue_launch", "queue or kernel is NULL");
  if (!config)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch", "config is NULL");
  if (!isWellFormedRange(*config))
    return reject(DPK_ERROR_INVALID_RANGE, "enqueue_launch", launchRangeProblem(*config));
  if (numArgs != 0 && !args)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch", "args is NULL with num_args > 0");
  for (uint32_t i = 0; i < numArgs; ++i) {
    if (dpk_status_t status = checkArgument(i, args[i]); status != DPK_SUCCESS)
      return status;
  }
  return checkDeps("enqueue_launch", numDeps, deps);
}

dpk_status_t event_wait(uint32_t numEvents, const dpk_pl_event_t *events) {
  if (numEvents == 0)
    return DPK_SUCCESS;
  if (!events)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "event_wait", "events is NULL");
  for (uint32_t i = 0; i < numEvents; ++i) {
    if (!events[i])
      return reject(DPK_ERROR_INVALID_HANDLE, "event_wait",
                    "event " + std::to_string(i) + " is NULL");
  }
  return DPK_SUCCESS;
}

dpk_status_t event_status(dpk_event_status_t *out, dpk_pl_event_t event) {
  if (!event)
    return reject(DPK_ERROR_INVALID_HANDLE, "event_status", "event is NULL");
  if (!out)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "event_status", "out is NULL");
  return DPK_SUCCESS;
}

dpk_status_t event_elapsed_ns(uint64_t *out, dpk_pl_event_t event) {
  if (!event)
    return reject(DPK_ERROR_INVALID_HANDLE, "event_elapsed_ns", "event is NULL");
  if (!out)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "event_elapsed_ns", "out is NULL");
  return DPK_SUCCESS;
}

dpk_status_t event_release(dpk_pl_event_t event) {
  if (!event)
    return reject(DPK_ERROR_INVALID_HANDLE, "event_release", "event is NULL");
  return DPK_SUCCESS;
}

dpk_status_t queue_get_native(dpk_native_queue_t *out, dpk_pl_queue_t queue) {
  if (!queue)
    return reject(DPK_ERROR_INVALID_HANDLE, "queue_get_native", "queue is NULL");
  if (!out || out->struct_size == 0)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "queue_get_native",
                  "out is NULL or has no struct_size");
  return DPK_SUCCESS;
}

dpk_status_t queue_create_from_native(dpk_pl_queue_t *out, dpk_pl_context_t context,
                                      const dpk_native_queue_t *native) {
  if (!context)
    return reject(DPK_ERROR_INVALID_HANDLE, "queue_create_from_native", "context is NULL");
  if (!out || !native || native->struct_size == 0)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "queue_create_from_native",
                  "out or native is NULL, or native has no struct_size");
  if (!native->queue)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "queue_create_from_native",
                  "native->queue is NULL (CUDA's legacy default stream is not taken: pass a "
                  "stream of your own)");
  return DPK_SUCCESS;
}

dpk_status_t enqueue_gemm(dpk_pl_event_t *, dpk_pl_queue_t queue, const dpk_gemm_desc_t *desc,
                          uint32_t numDeps, const dpk_pl_event_t *deps) {
  if (!queue)
    return reject(DPK_ERROR_INVALID_HANDLE, "enqueue_gemm", "queue is NULL");
  if (!desc)
    return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_gemm", "desc is NULL");
  if (std::string problem = gemmDescProblem(*desc); !problem.empty())
    return reject(DPK_ERROR_INVALID_ARGUMENT, "enqueue_gemm", problem);
  return checkDeps("enqueue_gemm", numDeps, deps);
}

} // namespace checks

// The forwarding members, one per row: STATUS rows run their check first; the others (shutdown,
// last_error, no_device_reason) take no arguments worth checking.
#define DPK_VALIDATE_STATUS(field, arguments)                                                    \
  rejected = false;                                                                              \
  if (dpk_status_t status = checks::field arguments; status != DPK_SUCCESS)                     \
    return status;
#define DPK_VALIDATE_VOID(field, arguments)
#define DPK_VALIDATE_TEXT(field, arguments)
#define DPK_VALIDATE_LAST_ERROR(field, arguments)
#define DPK_PLUGIN_ENTRY(kind, return_type, field, Name, parameters, arguments)                \
  return_type ValidatedDispatch::field parameters const {                                        \
    DPK_VALIDATE_##kind(field, arguments) return raw_.field arguments;                           \
  }
#include "dpk/plugin_entries.def"
#undef DPK_PLUGIN_ENTRY

dpk_status_t ValidatedDispatch::enqueueLaunchPlanned(dpk_pl_event_t *out, dpk_pl_queue_t queue,
                                                     dpk_pl_kernel_t kernel,
                                                     const dpk_launch_config_t *config,
                                                     uint32_t numArgs,
                                                     const dpk_kernel_arg_t *args,
                                                     uint32_t numDeps,
                                                     const dpk_pl_event_t *deps) const {
  // As the checked entry does: a failure is the plugin's own, not an earlier rejection's.
  rejected = false;
  return raw_.enqueue_launch(out, queue, kernel, config, numArgs, args, numDeps, deps);
}

const char *lastValidationFailure() { return rejected ? rejection.c_str() : nullptr; }

} // namespace dpk::runtime

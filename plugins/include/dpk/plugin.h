/* dpk/plugin.h - the ABI every dpk backend plugin implements.
 *
 * For plugin authors only; applications include dpk.h and never this header.
 *
 * A plugin is a shared library that exports exactly one symbol, dpk_plugin_get_dispatch. The
 * core dlopens the library (RTLD_LOCAL), calls that function with the ABI version it speaks,
 * and receives a table of entry points. The table starts with its own size so that a newer core
 * can tell an older plugin's table apart; a plugin built for another ABI major version returns
 * DPK_ERROR_ABI_MISMATCH and the core reports both versions.
 *
 * Rules for every entry point:
 *  - return a dpk_status_t; never let a C++ exception escape (catch std::bad_alloc and return
 *    DPK_ERROR_OUT_OF_HOST_MEMORY);
 *  - on failure, set the thread-local message returned by last_error(), including the vendor's
 *    native status code and name where one exists (e.g. "clBuildProgram: CL_BUILD_PROGRAM_FAILURE
 *    (-11)\n<build log>");
 *  - leave out-parameters untouched on failure;
 *  - be callable from several threads at once.
 *
 * Handles are opaque pointers owned by the plugin; the core releases every handle it created
 * with the matching *_release entry point.
 */
#ifndef DPK_PLUGIN_H
#define DPK_PLUGIN_H

#include "dpk/dpk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Major version of this ABI. Bump on any incompatible change to the table below. */
#define DPK_PLUGIN_ABI_VERSION 1u
#define DPK_PLUGIN_ENTRY_SYMBOL "dpk_plugin_get_dispatch"

typedef struct dpk_pl_device_s *dpk_pl_device_t;
typedef struct dpk_pl_context_s *dpk_pl_context_t;
typedef struct dpk_pl_queue_s *dpk_pl_queue_t;
typedef struct dpk_pl_program_s *dpk_pl_program_t;
typedef struct dpk_pl_kernel_s *dpk_pl_kernel_t;
typedef struct dpk_pl_event_s *dpk_pl_event_t;

/* Properties of one device, filled by device_get_props. Strings are NUL-terminated and
 * truncated to fit. */
typedef struct dpk_device_props {
  size_t struct_size; /* set by the caller to sizeof(dpk_device_props_t) */
  char name[256];
  char vendor[128];
  char driver_version[128];
  /* Stable identity used in kernel cache keys and as the compile target, e.g. "sm_90" for
   * CUDA, the CPU name for the host ("x86_64:znver3"), the OpenCL device name + version. */
  char target_id[128];
  dpk_device_type_t type;
  uint32_t compute_units;
  uint64_t global_mem_size;
  uint64_t local_mem_size;
  uint64_t max_alloc_size;
  uint64_t max_work_group_size;
  /* Per-dimension work-group limits of a 3-D launch, in dpk's order: entry i is the API's
   * dimension 2-i (for CUDA: z, y, x). A launch of n dimensions uses the last n entries, since
   * dpk's last dimension is always the API's dimension 0. */
  uint64_t max_work_item_sizes[3];
  uint32_t formats;                /* dpk_artifact_format_t bits the device accepts */
  uint32_t aspects;                /* DPK_ASPECT_* bits */
  uint32_t numa_nodes;             /* 0 when unknown */
  uint64_t cache_sizes[3];         /* L1d, L2, L3 in bytes; 0 when unknown */
  /* Free-form "key=value" lines for backend-specific facts (compute capability, IL versions,
   * memory model); shown by dpk-ls. */
  char extra[1024];
} dpk_device_props_t;

/* Services the core offers to a plugin, given at init. */
typedef struct dpk_plugin_host_services {
  size_t struct_size;
  /* Report a diagnostic record at a level (1-4, see docs/diagnostics.md). `what` is a short
   * event name ("plugin.devices", "program.build"), `message` human text. May be NULL. */
  void (*log)(int level, const char *what, const char *message);
} dpk_plugin_host_services_t;

typedef struct dpk_plugin_dispatch {
  size_t struct_size;   /* sizeof(dpk_plugin_dispatch_t) as the plugin was built */
  uint32_t abi_version; /* DPK_PLUGIN_ABI_VERSION the plugin was built against */
  const char *backend;  /* "host", "opencl", "level_zero", "cuda", ... : used by device filters */

  /* -- lifetime and errors -- */
  dpk_status_t (*init)(const dpk_plugin_host_services_t *services);
  void (*shutdown)(void);
  /* Thread-local message of the last failure on this thread and its native code (0 if none). */
  const char *(*last_error)(int32_t *native_code);

  /* -- devices -- */
  /* *count is set to the number of devices. If devices is non-NULL it has room for *count
   * entries on input. With zero devices, no_device_reason explains why ("no Level Zero driver
   * found: zeInit returned ZE_RESULT_ERROR_UNINITIALIZED"). */
  dpk_status_t (*get_devices)(uint32_t *count, dpk_pl_device_t *devices);
  const char *(*no_device_reason)(void);
  dpk_status_t (*device_get_props)(dpk_pl_device_t device, dpk_device_props_t *out);

  /* -- contexts and queues -- */
  dpk_status_t (*context_create)(dpk_pl_device_t device, dpk_pl_context_t *out);
  dpk_status_t (*context_release)(dpk_pl_context_t context);
  /* flags: DPK_PL_QUEUE_* */
  dpk_status_t (*queue_create)(dpk_pl_context_t context, uint32_t flags, dpk_pl_queue_t *out);
  dpk_status_t (*queue_release)(dpk_pl_queue_t queue);
  /* Blocks until every command in the queue finished; reports the first asynchronous error. */
  dpk_status_t (*queue_finish)(dpk_pl_queue_t queue);

  /* -- memory (USM-style: allocations are addressed by pointer) -- */
  dpk_status_t (*mem_alloc)(dpk_pl_context_t context, dpk_mem_kind_t kind, size_t size,
                            size_t alignment, void **out);
  dpk_status_t (*mem_free)(dpk_pl_context_t context, void *ptr);

  /* -- commands. deps are events of this plugin; out_event may be NULL. -- */
  /* Copies between any two of: host memory, this context's allocations. */
  dpk_status_t (*enqueue_copy)(dpk_pl_queue_t queue, void *dst, const void *src, size_t bytes,
                               uint32_t num_deps, const dpk_pl_event_t *deps,
                               dpk_pl_event_t *out_event);
  /* Fills `bytes` at dst with a repeated pattern of pattern_size (1, 2, 4, 8, 16, ... 128). */
  dpk_status_t (*enqueue_fill)(dpk_pl_queue_t queue, void *dst, const void *pattern,
                               size_t pattern_size, size_t bytes, uint32_t num_deps,
                               const dpk_pl_event_t *deps, dpk_pl_event_t *out_event);

  /* -- programs and kernels -- */
  /* Builds a program from an artifact in one of the device's formats. options may be NULL.
   * On a build failure: DPK_ERROR_COMPILE with the build log in last_error(). */
  dpk_status_t (*program_create)(dpk_pl_context_t context, dpk_artifact_format_t format,
                                 const void *data, size_t size, const char *options,
                                 dpk_pl_program_t *out);
  dpk_status_t (*program_release)(dpk_pl_program_t program);
  dpk_status_t (*kernel_create)(dpk_pl_program_t program, const char *name,
                                dpk_pl_kernel_t *out);
  dpk_status_t (*kernel_release)(dpk_pl_kernel_t kernel);
  /* The largest work-group size this kernel can launch with on its device. */
  dpk_status_t (*kernel_max_work_group_size)(dpk_pl_kernel_t kernel, uint64_t *out);
  dpk_status_t (*enqueue_launch)(dpk_pl_queue_t queue, dpk_pl_kernel_t kernel,
                                 const dpk_launch_config_t *config, uint32_t num_args,
                                 const dpk_kernel_arg_t *args, uint32_t num_deps,
                                 const dpk_pl_event_t *deps, dpk_pl_event_t *out_event);

  /* -- events -- */
  /* Waits for all events; returns the first failed command's error (DPK_ERROR_DEVICE or the
   * command's own code) with its cause in last_error(). */
  dpk_status_t (*event_wait)(uint32_t num_events, const dpk_pl_event_t *events);
  dpk_status_t (*event_status)(dpk_pl_event_t event, dpk_event_status_t *out);
  /* Nanoseconds between start and end of the command, or DPK_ERROR_UNSUPPORTED. */
  dpk_status_t (*event_elapsed_ns)(dpk_pl_event_t event, uint64_t *out);
  dpk_status_t (*event_release)(dpk_pl_event_t event);
} dpk_plugin_dispatch_t;

enum {
  DPK_PL_QUEUE_IN_ORDER = 0,
  DPK_PL_QUEUE_OUT_OF_ORDER = 1u << 0,
  DPK_PL_QUEUE_PROFILING = 1u << 1
};

/* The one exported symbol. Fills *out (whose struct_size the core sets to the size it knows)
 * when requested_abi_version matches the plugin's DPK_PLUGIN_ABI_VERSION; otherwise returns
 * DPK_ERROR_ABI_MISMATCH after setting only out->abi_version to the version it speaks, so the
 * core can report both versions. */
typedef dpk_status_t (*dpk_plugin_get_dispatch_fn)(uint32_t requested_abi_version,
                                                   dpk_plugin_dispatch_t *out);

#ifdef __cplusplus
}
#endif

#endif /* DPK_PLUGIN_H */

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
#define DPK_PLUGIN_ABI_VERSION 5u
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
  /* Launch limits, checked by the core before a plugin sees a launch; 0 = no limit but the
   * index space's (2^63 - 1 work-items). max_num_groups: work-groups per dimension, in dpk's
   * order like max_work_item_sizes (CUDA: grid z, y, x); max_total_groups: work-groups of one
   * launch in all; max_total_items: work-items of one launch in all. A plugin built before these
   * fields existed leaves them 0 (struct_size). */
  uint64_t max_num_groups[3];
  uint64_t max_total_groups;
  uint64_t max_total_items;
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

  /* The entry points, in ABI order, one field per row of dpk/plugin_entries.def (each row's
   * comment there is the entry's contract). */
#define DPK_PLUGIN_ENTRY(kind, return_type, field, Name, parameters, arguments)                \
  return_type(*field) parameters;
#include "dpk/plugin_entries.def"
#undef DPK_PLUGIN_ENTRY
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

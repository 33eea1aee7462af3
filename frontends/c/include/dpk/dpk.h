/* dpk.h - the public C API of dpk, a portable data-parallel kernel runtime.
 *
 * Conventions (after libgit2):
 *  - functions are dpk_<object>_<verb>; every fallible one returns dpk_status_t (0 = success);
 *  - out-parameters come first and are left untouched on failure;
 *  - dpk_last_error() returns a thread-local message for the last failure on this thread,
 *    naming what was wrong and where (device, kernel, file:line:column, native code);
 *  - handles are opaque and reference counted: *_retain adds a reference, *_release drops one.
 *    What a function returns through an out-parameter is the caller's reference;
 *  - no C++ exception ever escapes.
 *
 * The runtime initializes itself on first use: it reads the policy (DPK_CONFIG, then
 * $XDG_CONFIG_HOME/dpk/policy.yaml, then the built-in default), then loads the plugins the
 * policy allows. dpk_init() does the same eagerly and reports policy errors.
 */
#ifndef DPK_H
#define DPK_H

#include "dpk/dpk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DPK_VERSION_MAJOR 0
#define DPK_VERSION_MINOR 1
#define DPK_VERSION_PATCH 0

typedef struct dpk_device_s *dpk_device_t;
typedef struct dpk_queue_s *dpk_queue_t;
typedef struct dpk_event_s *dpk_event_t;
typedef struct dpk_program_s *dpk_program_t;
typedef struct dpk_kernel_s *dpk_kernel_t;

/* ---- runtime and errors ------------------------------------------------------------------ */

/* Initializes the runtime now (otherwise done on first use). Fails with DPK_ERROR_POLICY on a
 * malformed policy file, naming file, line and column. Safe to call more than once. */
DPK_EXPORT dpk_status_t dpk_init(void);

/* The last failure's message on this calling thread; "" when there was none. Borrowed: valid
 * until the next dpk call on this thread. */
DPK_EXPORT const char *dpk_last_error(void);
/* The backend's native code for the last failure (CUresult, cl_int, ze_result_t), or 0. */
DPK_EXPORT int32_t dpk_last_error_native_code(void);
/* A fixed name for a status ("DPK_ERROR_INVALID_RANGE"). */
DPK_EXPORT const char *dpk_status_name(dpk_status_t status);

/* ---- devices ----------------------------------------------------------------------------- */

typedef struct dpk_device_info {
  size_t struct_size; /* set to sizeof(dpk_device_info_t) before the call */
  char backend[32];   /* "host", "opencl", "level_zero", "cuda" */
  char name[256];
  char vendor[128];
  char driver_version[128];
  char filter_string[64]; /* canonical selector for this device, e.g. "opencl:cpu:0" */
  dpk_device_type_t type;
  uint32_t compute_units;
  uint64_t global_mem_size;
  uint64_t local_mem_size;
  uint64_t max_work_group_size;
  uint64_t max_work_item_sizes[3];
  uint32_t formats; /* dpk_artifact_format_t bits */
  uint32_t aspects; /* DPK_ASPECT_* bits */
} dpk_device_info_t;

/* Number of devices the runtime can use under the current policy. */
DPK_EXPORT dpk_status_t dpk_device_count(uint32_t *out);
/* The index-th device (0 <= index < count), in the policy's preference order. */
DPK_EXPORT dpk_status_t dpk_device_get(dpk_device_t *out, uint32_t index);
/* The best device matching a dpctl-style filter ("cuda:gpu", "opencl:cpu:0", "gpu,cpu",
 * "!opencl:*"); NULL or "" means the policy's default. DPK_ERROR_PARSE names the bad
 * character of a malformed filter; DPK_ERROR_NO_DEVICE lists the devices present when a filter
 * matches none, whatever the fallback mode (*out untouched). Only the default (NULL or "") falls
 * back to the host device, when the policy's selector matches nothing and its fallback allows. */
DPK_EXPORT dpk_status_t dpk_device_select(dpk_device_t *out, const char *filter);
DPK_EXPORT dpk_status_t dpk_device_get_info(dpk_device_info_t *out, dpk_device_t device);
/* The sub-group size of dpk IR kernels on this device (the IR's sub_group_size; docs/ir.md,
 * "Sub-groups"): 32 where they compile to PTX (CUDA's warps), 1 elsewhere (sub-groups of one
 * work-item). Follows the compile target the device gets (the host-native one first). */
DPK_EXPORT dpk_status_t dpk_device_get_sub_group_size(uint32_t *out, dpk_device_t device);
DPK_EXPORT dpk_status_t dpk_device_retain(dpk_device_t device);
DPK_EXPORT dpk_status_t dpk_device_release(dpk_device_t device);

/* ---- queues ------------------------------------------------------------------------------ */

enum {
  DPK_QUEUE_IN_ORDER = 0,           /* commands run in submission order (default) */
  DPK_QUEUE_OUT_OF_ORDER = 1u << 0, /* commands are ordered only by explicit dependencies */
  DPK_QUEUE_PROFILING = 1u << 1     /* record command times (dpk_event_elapsed_ns) */
};

DPK_EXPORT dpk_status_t dpk_queue_create(dpk_queue_t *out, dpk_device_t device, uint32_t flags);
/* Waits for every command submitted so far; returns the first asynchronous error with device,
 * kernel and cause in dpk_last_error(). */
DPK_EXPORT dpk_status_t dpk_queue_wait(dpk_queue_t queue);
/* The device of a queue (borrowed: do not release). */
DPK_EXPORT dpk_device_t dpk_queue_device(dpk_queue_t queue);
DPK_EXPORT dpk_status_t dpk_queue_retain(dpk_queue_t queue);
DPK_EXPORT dpk_status_t dpk_queue_release(dpk_queue_t queue);

/* ---- memory ------------------------------------------------------------------------------ */

/* Allocates `size` bytes of the given kind for a device. Freed with dpk_mem_free. */
DPK_EXPORT dpk_status_t dpk_mem_alloc(void **out, dpk_device_t device, dpk_mem_kind_t kind,
                                      size_t size);
/* Frees memory from dpk_mem_alloc; waits for nothing: the caller orders frees after use. */
DPK_EXPORT dpk_status_t dpk_mem_free(void *ptr);

/* Commands. deps may be NULL when num_deps is 0. out_event may be NULL; otherwise it receives a
 * new event the caller releases. */
DPK_EXPORT dpk_status_t dpk_enqueue_copy(dpk_event_t *out_event, dpk_queue_t queue, void *dst,
                                         const void *src, size_t bytes, uint32_t num_deps,
                                         const dpk_event_t *deps);
DPK_EXPORT dpk_status_t dpk_enqueue_fill(dpk_event_t *out_event, dpk_queue_t queue, void *dst,
                                         const void *pattern, size_t pattern_size, size_t bytes,
                                         uint32_t num_deps, const dpk_event_t *deps);

/* ---- programs and kernels ---------------------------------------------------------------- */

/* A program from dpk IR text (see docs/ir.md). It is compiled for a device when a kernel of it
 * is first launched there (and cached), so one program runs on every device. DPK_ERROR_PARSE or
 * DPK_ERROR_VERIFY name the line, column and op. `name` labels diagnostics (may be NULL). */
DPK_EXPORT dpk_status_t dpk_program_create_from_ir(dpk_program_t *out, const char *ir_text,
                                                   size_t length, const char *name);
/* Bounds-check mode of an IR program (docs/reliability.md, "Bounds-check mode"). */
typedef enum dpk_boundscheck {
  DPK_BOUNDSCHECK_DEFAULT = 0, /* DPK_BOUNDSCHECK if set, else the policy's `boundscheck:` */
  DPK_BOUNDSCHECK_OFF = 1,     /* no check code at all */
  DPK_BOUNDSCHECK_ON = 2       /* array indices are checked; a launch that indexes past an array
                                  fails with DPK_ERROR_OUT_OF_BOUNDS naming the kernel, file:line,
                                  array, index and shape, and the access is skipped */
} dpk_boundscheck_t;

typedef struct dpk_program_options {
  size_t struct_size; /* set to sizeof(dpk_program_options_t) */
  dpk_boundscheck_t boundscheck;
  /* Appended: files that define the program's external functions (`extern func`, docs/linking.md),
   * read when the program is created and linked per device: .ll/.bc LLVM IR (host, SPIR-V,
   * CUDA), .cl OpenCL C (OpenCL devices), .ptx and .cu (CUDA; .cu needs libnvrtc). A missing
   * symbol, a signature mismatch or a file the device cannot use fails the kernel's build with
   * DPK_ERROR_LINK naming file, symbol and device. Older callers' shorter struct_size means none. */
  const char *const *link_files;
  size_t num_link_files;
} dpk_program_options_t;

/* dpk_program_create_from_ir with options (NULL: the defaults). In bounds-check mode launches
 * of the program's kernels are synchronous: dpk_enqueue_launch returns once the kernel finished,
 * with DPK_ERROR_OUT_OF_BOUNDS when an access failed its check. */
DPK_EXPORT dpk_status_t dpk_program_create_from_ir_with_options(
    dpk_program_t *out, const char *ir_text, size_t length, const char *name,
    const dpk_program_options_t *options);
/* A program from a SPIR-V binary for one device whose backend accepts SPIR-V. */
DPK_EXPORT dpk_status_t dpk_program_create_from_spirv(dpk_program_t *out, dpk_device_t device,
                                                      const void *spirv, size_t size);
/* A program of native C functions for the host device (see dpk_host_kernel_entry_t). The
 * entries array is copied; the functions must outlive the program. */
DPK_EXPORT dpk_status_t dpk_program_create_from_host(dpk_program_t *out,
                                                     const dpk_host_kernel_entry_t *entries,
                                                     uint32_t num_entries);
DPK_EXPORT dpk_status_t dpk_program_retain(dpk_program_t program);
DPK_EXPORT dpk_status_t dpk_program_release(dpk_program_t program);

DPK_EXPORT dpk_status_t dpk_kernel_get(dpk_kernel_t *out, dpk_program_t program,
                                       const char *name);
DPK_EXPORT dpk_status_t dpk_kernel_retain(dpk_kernel_t kernel);
DPK_EXPORT dpk_status_t dpk_kernel_release(dpk_kernel_t kernel);

/* An n-D array view argument (for IR kernels with view<...> parameters). */
typedef struct dpk_view_arg {
  void *data;
  uint32_t ndim;
  int64_t shape[3];
  int64_t strides[3]; /* in elements */
} dpk_view_arg_t;

/* One kernel argument, as given to dpk_enqueue_launch. For IR kernels the core checks count and
 * kinds against the kernel's signature (DPK_ERROR_INVALID_ARGUMENT names the argument). */
typedef struct dpk_arg {
  dpk_arg_kind_t kind; /* POINTER, SCALAR, LOCAL, or DPK_ARG_VIEW */
  size_t size;         /* SCALAR: bytes; LOCAL: bytes of local memory; else ignored */
  const void *value;   /* POINTER: the address itself; SCALAR: points to the bytes;
                          VIEW: points to a dpk_view_arg_t; LOCAL: ignored */
} dpk_arg_t;
#define DPK_ARG_VIEW ((dpk_arg_kind_t)100)

/* Launches a kernel. range->local_size all zero = Range launch. Validates that the local size
 * divides the global size and fits the device (DPK_ERROR_INVALID_RANGE says which dimension).
 * A global size of 0 in some dimension is an empty launch: checked, nothing runs, and the event
 * completes after the commands it is ordered after.
 * Under the policy's fallback rules a kernel that cannot run on the queue's device may run on
 * the host instead; diagnostics say so. */
DPK_EXPORT dpk_status_t dpk_enqueue_launch(dpk_event_t *out_event, dpk_queue_t queue,
                                           dpk_kernel_t kernel, const dpk_launch_config_t *range,
                                           uint32_t num_args, const dpk_arg_t *args,
                                           uint32_t num_deps, const dpk_event_t *deps);

/* ---- events ------------------------------------------------------------------------------ */

/* Waits for the events; returns the first failure (with device, kernel and cause). */
DPK_EXPORT dpk_status_t dpk_event_wait(uint32_t num_events, const dpk_event_t *events);
DPK_EXPORT dpk_status_t dpk_event_status(dpk_event_status_t *out, dpk_event_t event);
/* Device time of the command in ns. DPK_ERROR_UNSUPPORTED (out untouched) unless the command's
 * queue was created with DPK_QUEUE_PROFILING. */
DPK_EXPORT dpk_status_t dpk_event_elapsed_ns(uint64_t *out, dpk_event_t event);
DPK_EXPORT dpk_status_t dpk_event_retain(dpk_event_t event);
DPK_EXPORT dpk_status_t dpk_event_release(dpk_event_t event);

/* ---- diagnostics ------------------------------------------------------------------------- */

/* Receives every diagnostic record as one JSON object per call (the same text as the JSON-lines
 * sink), in addition to the configured sink. NULL removes it. */
typedef void (*dpk_diagnostics_callback_t)(int level, const char *json_record, void *payload);
DPK_EXPORT dpk_status_t dpk_diagnostics_set_callback(dpk_diagnostics_callback_t callback,
                                                     void *payload);

/* ---- native handles (appended; docs/extensions.md) ------------------------------------------ */

/* The native handles behind a queue: API, cl_command_queue / CUstream / Level Zero command list,
 * its context and device, how dpk addresses pass to native kernels and what native commands
 * must do to run in order with the queue's (dpk_native_queue_t in dpk_types.h). Set
 * out->struct_size first; no more than struct_size bytes are written. The handles are borrowed:
 * valid while the queue lives, never released by the caller. */
DPK_EXPORT dpk_status_t dpk_queue_get_native(dpk_native_queue_t *out, dpk_queue_t queue);

/* A queue over a native queue another library made (appended): `native` names the API and
 * the handle (`api` and `queue`; set struct_size). CUDA: a CUstream of `device`'s primary
 * context (CuPy's, PyTorch's, Numba's streams), so that dpk's commands are ordered with that
 * library's work on the stream. The native queue is borrowed: the caller keeps it alive while
 * the dpk queue lives, and releasing the dpk queue leaves it alone. DPK_ERROR_UNSUPPORTED on
 * backends that cannot adopt a queue (host, OpenCL, Level Zero), DPK_ERROR_INVALID_ARGUMENT
 * for a stream of another context. */
DPK_EXPORT dpk_status_t dpk_queue_create_from_native(dpk_queue_t *out, dpk_device_t device,
                                                     const dpk_native_queue_t *native);

/* ---- vendor GEMM (appended; docs/c-api.md) ------------------------------------------------- */

/* desc->batch matrix products C = alpha * op(A) * op(B) + beta * C with the device's vendor BLAS
 * (dpk_gemm_desc_t in dpk_types.h: row-major operands with leading dimensions, optional
 * transposes, batch strides; set struct_size), ordered on the queue like a launch. Pointers are
 * addresses of the queue's device; dpk allocations are checked (another device's memory is
 * DPK_ERROR_PLACEMENT, an operand past its allocation DPK_ERROR_INVALID_ARGUMENT).
 * DPK_ERROR_UNSUPPORTED, with the reason in dpk_last_error(), when the device's backend has no
 * BLAS (OpenCL, Level Zero; the host without OpenBLAS or BLIS installed; CUDA without libcublas)
 * or the sizes exceed what the library takes: run a kernel of your own then. */
DPK_EXPORT dpk_status_t dpk_enqueue_gemm(dpk_event_t *out_event, dpk_queue_t queue,
                                         const dpk_gemm_desc_t *desc, uint32_t num_deps,
                                         const dpk_event_t *deps);

#ifdef __cplusplus
}
#endif

#endif /* DPK_H */

/* dpk_types.h - types shared by the public C API (dpk.h) and the plugin ABI (dpk/plugin.h).
 *
 * Everything here is plain C99 and part of the stable ABI: enumerators are never renumbered,
 * new ones are only appended. */
#ifndef DPK_TYPES_H
#define DPK_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define DPK_EXPORT __declspec(dllexport)
#else
#define DPK_EXPORT __attribute__((visibility("default")))
#endif

/* Every fallible entry point returns a status: 0 on success, a negative code on failure.
 * dpk_last_error() (C API) or the plugin's last_error() gives the thread-local message. */
typedef enum dpk_status {
  DPK_SUCCESS = 0,
  DPK_ERROR_GENERIC = -1,              /* anything not covered below */
  DPK_ERROR_INVALID_ARGUMENT = -2,     /* null pointer, bad enum, wrong argument count or type */
  DPK_ERROR_INVALID_RANGE = -3,        /* local size does not divide global size, over limits */
  DPK_ERROR_NOT_FOUND = -4,            /* no such device, kernel, plugin or file */
  DPK_ERROR_UNSUPPORTED = -5,          /* the backend or device lacks the feature */
  DPK_ERROR_OUT_OF_HOST_MEMORY = -6,
  DPK_ERROR_OUT_OF_DEVICE_MEMORY = -7,
  DPK_ERROR_COMPILE = -8,              /* kernel compilation or program build failed */
  DPK_ERROR_LAUNCH = -9,               /* the device refused to launch the kernel */
  DPK_ERROR_DEVICE = -10,              /* asynchronous device error, surfaced at a wait */
  DPK_ERROR_PLUGIN_LOAD = -11,         /* plugin present but could not be loaded */
  DPK_ERROR_ABI_MISMATCH = -12,        /* plugin built for another ABI version */
  DPK_ERROR_POLICY = -13,              /* malformed policy file or setting */
  DPK_ERROR_PARSE = -14,               /* malformed IR text or device filter */
  DPK_ERROR_VERIFY = -15,              /* IR failed verification */
  DPK_ERROR_NO_DEVICE = -16,           /* no device matches the selector or policy */
  DPK_ERROR_PLACEMENT = -17,           /* arguments live on different devices */
  DPK_ERROR_INVALID_HANDLE = -18,      /* a handle that is null, freed or from elsewhere */
  DPK_ERROR_OUT_OF_BOUNDS = -19,       /* bounds-check mode: a kernel indexed past an array */
  DPK_ERROR_LINK = -20                 /* linked device code: a missing symbol, a signature
                                          mismatch, or a file the device cannot use */
} dpk_status_t;

typedef enum dpk_device_type {
  DPK_DEVICE_TYPE_CPU = 1,
  DPK_DEVICE_TYPE_GPU = 2,
  DPK_DEVICE_TYPE_ACCELERATOR = 3
} dpk_device_type_t;

/* Kernel artifact formats a backend may accept (bit mask in dpk_device_props.formats). */
typedef enum dpk_artifact_format {
  DPK_FORMAT_HOST_NATIVE = 1u << 0, /* in-process function pointers, see dpk_host_module */
  DPK_FORMAT_SPIRV = 1u << 1,       /* SPIR-V binary, OpenCL execution environment */
  DPK_FORMAT_OPENCL_C = 1u << 2,    /* OpenCL C source text */
  DPK_FORMAT_PTX = 1u << 3          /* NVIDIA PTX text, NUL-terminated */
} dpk_artifact_format_t;

/* Device aspects (bit mask in dpk_device_props.aspects). */
enum {
  DPK_ASPECT_FP64 = 1u << 0,
  DPK_ASPECT_FP16 = 1u << 1,
  DPK_ASPECT_ATOMIC64 = 1u << 2,
  DPK_ASPECT_USM_DEVICE = 1u << 3,
  DPK_ASPECT_USM_SHARED = 1u << 4,
  DPK_ASPECT_USM_HOST = 1u << 5,
  /* Appended: enqueue_copy takes device memory of this plugin's other devices as either end
   * and copies it device to device (peer copies); without it the core stages such copies
   * through host memory. */
  DPK_ASPECT_PEER_COPY = 1u << 6
};

/* Memory kinds as USM users know them. */
typedef enum dpk_mem_kind {
  DPK_MEM_DEVICE = 1, /* device memory; not dereferenceable on the host */
  DPK_MEM_SHARED = 2, /* migrates between host and device; dereferenceable on both */
  DPK_MEM_HOST = 3    /* host memory the device can access (pinned) */
} dpk_mem_kind_t;

typedef enum dpk_event_status {
  DPK_EVENT_QUEUED = 0,
  DPK_EVENT_RUNNING = 1,
  DPK_EVENT_COMPLETE = 2,
  DPK_EVENT_ERROR = 3 /* the command failed; the error is reported at the next wait */
} dpk_event_status_t;

/* How one kernel argument is passed. Array views are lowered by the core into a
 * DPK_ARG_POINTER followed by 2*ndim int64 scalars (shape, then strides in elements). */
typedef enum dpk_arg_kind {
  DPK_ARG_POINTER = 1, /* value points to a void* holding a device address */
  DPK_ARG_SCALAR = 2,  /* value points to `size` bytes passed by value */
  DPK_ARG_LOCAL = 3    /* `size` bytes of work-group local memory; value is ignored */
} dpk_arg_kind_t;

typedef struct dpk_kernel_arg {
  dpk_arg_kind_t kind;
  size_t size;
  const void *value;
} dpk_kernel_arg_t;

/* A launch over 1-3 dimensions. Dimension 0 is the slowest varying (row-major linear ids),
 * as in SYCL and numba-dpex's kapi. local_size all zero means a Range launch: the backend picks
 * the work-group shape. */
typedef struct dpk_launch_config {
  uint32_t dims;
  uint64_t global_size[3];
  uint64_t local_size[3];
} dpk_launch_config_t;

/* ---- Host-native kernels: the artifact the host backend executes. ----------------------
 * A compiled kernel (or one a C embedder writes by hand) is a work-group function: it runs every
 * work-item of one work-group. Arguments come as an array of pointers to argument values, as in
 * CUDA's kernelParams: args[i] points to the void* (pointer and local arguments) or to the
 * scalar's bytes. A per-item function is offered for C embedders who do not need work-groups. */
typedef struct dpk_host_work_group {
  uint32_t dims;
  uint64_t global_size[3];
  uint64_t local_size[3];
  uint64_t group_id[3];
  uint64_t num_groups[3];
} dpk_host_work_group_t;

typedef struct dpk_host_item {
  uint32_t dims;
  uint64_t global_id[3];
  uint64_t local_id[3];
  uint64_t group_id[3];
  uint64_t global_size[3];
  uint64_t local_size[3];
} dpk_host_item_t;

typedef void (*dpk_host_group_fn)(const dpk_host_work_group_t *group, void *const *args);
typedef void (*dpk_host_item_fn)(const dpk_host_item_t *item, void *const *args);

typedef enum dpk_host_kernel_kind {
  DPK_HOST_KERNEL_GROUP = 1, /* fn is a dpk_host_group_fn */
  DPK_HOST_KERNEL_ITEM = 2   /* fn is a dpk_host_item_fn; it may not use barriers */
} dpk_host_kernel_kind_t;

typedef struct dpk_host_kernel_entry {
  const char *name;
  dpk_host_kernel_kind_t kind;
  void (*fn)(void);
  /* Non-zero when the function was specialized for one work-group shape; the backend then
   * rejects launches with another local size and uses this one for Range launches. */
  uint64_t required_local_size[3];
} dpk_host_kernel_entry_t;

/* The data of a DPK_FORMAT_HOST_NATIVE artifact (size = sizeof(dpk_host_module_t)).
 * The functions must stay valid until the program is released. */
typedef struct dpk_host_module {
  size_t struct_size;
  uint32_t num_kernels;
  const dpk_host_kernel_entry_t *kernels;
} dpk_host_module_t;

/* ---- native handles (appended for native extensions, docs/extensions.md) ----------------- */

/* The API a queue's native handles belong to. */
typedef enum dpk_native_api {
  DPK_NATIVE_API_HOST = 1,       /* dpk's host backend: no native queue (arena: tbb::task_arena*) */
  DPK_NATIVE_API_OPENCL = 2,     /* platform, device, context, queue: cl_* handles */
  DPK_NATIVE_API_LEVEL_ZERO = 3, /* ze_driver, ze_device, ze_context, immediate ze_command_list */
  DPK_NATIVE_API_CUDA = 4        /* device: the CUdevice ordinal, context: CUcontext, queue: CUstream */
} dpk_native_api_t;

/* How a dpk device address is handed to native code on that API. */
typedef enum dpk_native_memory {
  DPK_NATIVE_MEMORY_HOST = 1,      /* plain host memory: dereference it */
  DPK_NATIVE_MEMORY_POINTER = 2,   /* a device pointer (CUdeviceptr, Level Zero USM) */
  DPK_NATIVE_MEMORY_CL_USM = 3,    /* cl_intel_unified_shared_memory: clSetKernelArgMemPointerINTEL */
  DPK_NATIVE_MEMORY_CL_SVM = 4,    /* OpenCL 2.0 SVM: clSetKernelArgSVMPointer */
  DPK_NATIVE_MEMORY_CL_BUFFER = 5  /* an address that names a cl_mem buffer; not passable by pointer */
} dpk_native_memory_t;

/* DPK_NATIVE_ORDER_*: what a native command enqueued on `queue` must do to run after the dpk
 * queue's earlier commands and before its later ones (docs/extensions.md, "Ordering"). */
typedef enum dpk_native_order {
  /* `queue` is in order and receives every command of the dpk queue: enqueue there, nothing
   * else (OpenCL in-order queues, CUDA streams). */
  DPK_NATIVE_ORDER_IN_ORDER = 1,
  /* append a barrier (zeCommandListAppendBarrier with no events) before and after the commands
   * (Level Zero immediate command lists, whose commands dpk chains by events). */
  DPK_NATIVE_ORDER_BARRIERS = 2,
  /* no native queue: wait for the dpk queue, then do the work before returning (host). */
  DPK_NATIVE_ORDER_WAIT_THEN_RUN = 3
} dpk_native_order_t;

/* The native handles behind one queue, filled by the plugin entry queue_get_native and the C
 * API's dpk_queue_get_native. Borrowed: valid while the dpk queue lives; do not release them.
 * Set struct_size to sizeof(dpk_native_queue_t); no more than struct_size bytes are written. */
typedef struct dpk_native_queue {
  size_t struct_size;
  dpk_native_api_t api;
  dpk_native_memory_t memory;
  dpk_native_order_t order;
  uint32_t reserved;
  void *platform; /* cl_platform_id, ze_driver_handle_t; NULL for CUDA and the host */
  void *device;   /* cl_device_id, ze_device_handle_t, (void *)(intptr_t)CUdevice; host: NULL */
  void *context;  /* cl_context, ze_context_handle_t, CUcontext; host: NULL */
  void *queue;    /* cl_command_queue, ze_command_list_handle_t, CUstream; host: NULL */
  void *arena;    /* host: the tbb::task_arena kernels run in (oneTBB's ABI); else NULL */
} dpk_native_queue_t;

/* ---- vendor GEMM (appended: plugin ABI 5, dpk_enqueue_gemm) ----------------------------- */

/* Element types a vendor GEMM takes. */
typedef enum dpk_gemm_type {
  DPK_GEMM_F32 = 1, /* float: sgemm */
  DPK_GEMM_F64 = 2  /* double: dgemm */
} dpk_gemm_type_t;

/* dpk_gemm_desc_t.flags: an operand stored transposed. */
enum {
  DPK_GEMM_TRANS_A = 1u << 0, /* A is stored K x M (row-major), op(A) = its transpose */
  DPK_GEMM_TRANS_B = 1u << 1  /* B is stored N x K (row-major), op(B) = its transpose */
};

/* One matrix product, or a batch of them, for the plugin entry enqueue_gemm and the C API's
 * dpk_enqueue_gemm: for every b in [0, batch),
 *   C_b = alpha * op(A_b) * op(B_b) + beta * C_b,   op(A_b): m x k, op(B_b): k x n, C_b: m x n,
 * every matrix row-major (the last index is contiguous) with its leading dimension (elements
 * from one stored row to the next: lda >= the stored row's length, at least 1). X_b starts
 * stride_x elements after X_(b-1); stride_a or stride_b 0 uses one matrix for the whole batch.
 * beta 0 does not read C (it may hold anything, NaN included). k 0 scales C by beta. Pointers
 * are addresses of the queue's device (or host memory the device reaches).
 * Set struct_size to sizeof(dpk_gemm_desc_t). */
typedef struct dpk_gemm_desc {
  size_t struct_size;
  dpk_gemm_type_t type;
  uint32_t flags; /* DPK_GEMM_TRANS_* */
  uint64_t m, n, k;
  uint64_t lda, ldb, ldc;
  double alpha, beta;       /* converted to the element type */
  uint64_t batch;           /* products; 0 is an empty command */
  uint64_t stride_a, stride_b, stride_c;
  const void *a;
  const void *b;
  void *c;
} dpk_gemm_desc_t;

#ifdef __cplusplus
}
#endif

#endif /* DPK_TYPES_H */

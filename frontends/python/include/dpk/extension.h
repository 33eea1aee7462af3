/* dpk/extension.h - the C ABI that native Python extensions use to work with dpk arrays,
 * devices and queues (docs/extensions.md).
 *
 * dpk's Python extension module, dpk._core, exports one PyCapsule, "dpk._core._C_API", holding a
 * dpk_ext_api_t: a versioned table of C function pointers. An extension imports it once
 * (dpk_ext_import() below) and calls through it, so it links neither libdpk.so nor _core and
 * works with any binding library (nanobind, pybind11, the bare C API). No C++ exception crosses
 * the table: every entry reports failure by its return value.
 *
 * Rules for the Python-level entries (is_array ... array_empty): call them with the GIL held;
 * on failure they return -1 (NULL for array_empty) with a Python exception set (dpk's own
 * classes: dpk.DeviceError, dpk.DTypeError, ...), which the caller propagates.
 * The runtime entries (queue_get_native ... queue_device) are dpk.h's functions: they
 * return a dpk_status_t and may be called without the GIL (queue_wait should be: it blocks).
 *
 * Compatibility: entries are only ever appended. `version` counts them (DPK_EXT_API_VERSION is
 * the version this header describes); an extension built against version N runs with any _core
 * whose version is >= N, and dpk_ext_import() refuses an older one. Structs passed in begin
 * with struct_size, set by the caller, and no more than struct_size bytes are written.
 */
#ifndef DPK_EXTENSION_H
#define DPK_EXTENSION_H

#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>

#include "dpk/dpk.h" /* handle and struct types only: nothing of libdpk.so is linked */

#ifdef __cplusplus
extern "C" {
#endif

#define DPK_EXT_API_CAPSULE "dpk._core._C_API"
#define DPK_EXT_API_VERSION 1u
/* The most dimensions an array view reports (NumPy's limit, NPY_MAXDIMS, is 32 or 64). */
#define DPK_EXT_MAX_NDIM 64

/* What an extension sees of one dpk.Array. */
typedef struct dpk_ext_array_view {
  size_t struct_size; /* set by the caller to sizeof(dpk_ext_array_view_t) */
  /* The address of element 0 (elements may lie before it with negative strides). It is an
   * address on `device`: pass it to native code as the queue's dpk_native_queue_t.memory says. */
  void *data;
  int32_t ndim;
  char kind;         /* NumPy's dtype kind: 'b' (bool), 'i', 'u', 'f', 'c' */
  uint8_t itemsize;  /* bytes per element */
  uint8_t read_only; /* 1: foreign memory lent read-only (do not write through data) */
  uint8_t reserved;
  char typestr[8];   /* NumPy's array-interface type string, e.g. "<f4" */
  int64_t shape[DPK_EXT_MAX_NDIM];
  int64_t strides[DPK_EXT_MAX_NDIM]; /* in elements (NumPy's are in bytes) */
  /* Borrowed handles, valid while the array object lives: its device, and the in-order queue
   * of that device that dpk's array operations and kernel launches use. Work that must be
   * ordered with dpk's work on the array goes to this queue. */
  dpk_device_t device;
  dpk_queue_t queue;
} dpk_ext_array_view_t;

typedef struct dpk_ext_api {
  size_t struct_size; /* sizeof(dpk_ext_api_t) as _core was built */
  uint32_t version;   /* DPK_EXT_API_VERSION of _core */

  /* 1 if obj is a dpk.Array, 0 if not (never fails). */
  int (*is_array)(PyObject *obj);
  /* Fills *out for a dpk.Array (TypeError otherwise). Runs the array's pending (fused, lazy)
   * work first and submits dpk's pending readers of its memory, since the caller may write. */
  int (*array_view)(PyObject *array, dpk_ext_array_view_t *out);
  /* The queue (and its device) that work given `where` goes to: a dpk.Queue is itself; a
   * dpk.Device, a dpk.Array (its device) and a filter string ("opencl:cpu") name the device's
   * queue, the one dpk's array operations use; None is the current device's. Borrowed handles,
   * valid while `where` lives (devices and their queues live as long as the process). Either
   * out-pointer may be NULL. */
  int (*queue_of)(PyObject *where, dpk_queue_t *queue, dpk_device_t *device);
  /* A new, uninitialized C-contiguous dpk.Array (a new reference) of `ndim` extents and NumPy
   * dtype string `dtype` ("float32", "<f8", ...) on the device `where` names (as queue_of);
   * allocated through dpk, freed by dpk when the array dies. NULL with an exception set. */
  PyObject *(*array_empty)(PyObject *where, int32_t ndim, const int64_t *shape,
                           const char *dtype);
  /* Sets the Python exception dpk raises for `status` (dpk.DeviceError, ...), with `message`
   * (NULL: dpk_last_error()); returns -1, so `return api->raise_status(s, NULL);` propagates. */
  int (*raise_status)(dpk_status_t status, const char *message);

  /* dpk.h's functions (no GIL needed): */
  dpk_status_t (*queue_get_native)(dpk_native_queue_t *out, dpk_queue_t queue);
  dpk_status_t (*queue_wait)(dpk_queue_t queue);
  const char *(*last_error)(void);
  dpk_status_t (*device_get_info)(dpk_device_info_t *out, dpk_device_t device);
  dpk_device_t (*queue_device)(dpk_queue_t queue);
} dpk_ext_api_t;

/* Imports dpk (so its array class and exception classes are set up) and returns the table, or
 * NULL with ImportError set (no dpk, or a _core older than this header). Cache the result: it
 * lives as long as the process. */
static inline const dpk_ext_api_t *dpk_ext_import(void) {
  PyObject *package = PyImport_ImportModule("dpk");
  if (!package)
    return NULL;
  Py_DECREF(package);
  const dpk_ext_api_t *api = (const dpk_ext_api_t *)PyCapsule_Import(DPK_EXT_API_CAPSULE, 0);
  if (!api)
    return NULL;
  if (api->version < DPK_EXT_API_VERSION || api->struct_size < sizeof(dpk_ext_api_t)) {
    PyErr_Format(PyExc_ImportError,
                 "dpk's native-extension API is version %u, this extension needs %u or newer "
                 "(rebuild the extension against the installed dpk, or upgrade dpk)",
                 (unsigned)api->version, (unsigned)DPK_EXT_API_VERSION);
    return NULL;
  }
  return api;
}

#ifdef __cplusplus
}
#endif

#endif /* DPK_EXTENSION_H */

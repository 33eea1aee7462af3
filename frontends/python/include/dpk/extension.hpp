// dpk/extension.hpp - C++ access to dpk arrays, devices and queues for native Python extensions
// (nanobind, pybind11 or the bare C API), over the C ABI of dpk/extension.h (docs/extensions.md).
//
//   #include <nanobind/nanobind.h>   // or <pybind11/pybind11.h>: include it first
//   #include <dpk/extension.hpp>
//
//   dpk::ext::Array scale(dpk::ext::Array x, double a) {     // takes a dpk.Array
//     dpk::ext::Array y = dpk::ext::Array::empty(x, {x.shape(0)}, "float64");
//     x.queue().run_on_host([&] { for (...) y.data<double>()[i] = a * x.data<double>()[i]; });
//     return y;                                              // returns a dpk.Array
//   }
//
// Header-only; links nothing of dpk: the functions come from the capsule dpk._core._C_API, looked
// up on first use. A failure of dpk's (a wrong argument type, a device error) sets a Python
// exception and is thrown as the binding library's own "error already set" exception
// (nanobind::python_error, pybind11::error_already_set; dpk::ext::python_error otherwise),
// which the library passes on to Python unchanged. With nanobind or pybind11 included first,
// Array and Queue convert from and to Python in function signatures (type casters below).
#ifndef DPK_EXTENSION_HPP
#define DPK_EXTENSION_HPP

#include "dpk/extension.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dpk::ext {

/// A Python exception is set (used when neither nanobind nor pybind11 is included).
class python_error : public std::runtime_error {
public:
  python_error() : std::runtime_error("a Python exception is set") {}
};

/// Throws the binding library's exception for the Python error that is set.
[[noreturn]] inline void throw_python_error() {
#if defined(NB_VERSION_MAJOR)
  throw nanobind::python_error();
#elif defined(PYBIND11_VERSION_MAJOR)
  throw pybind11::error_already_set();
#else
  throw python_error();
#endif
}

/// The C table, imported on first use (needs the GIL).
inline const dpk_ext_api_t &api() {
  static const dpk_ext_api_t *table = nullptr;
  if (!table) {
    table = dpk_ext_import();
    if (!table)
      throw_python_error();
  }
  return *table;
}

/// Sets dpk's exception for a failed status and throws it.
[[noreturn]] inline void throw_status(dpk_status_t status, const char *message = nullptr) {
  api().raise_status(status, message);
  throw_python_error();
}

/// Releases the GIL for a scope (blocking waits).
class gil_released {
public:
  gil_released() : state_(PyEval_SaveThread()) {}
  ~gil_released() { PyEval_RestoreThread(state_); }
  gil_released(const gil_released &) = delete;
  gil_released &operator=(const gil_released &) = delete;

private:
  PyThreadState *state_;
};

/// A dpk queue: the handle of a dpk.Queue or of a device's queue (borrowed: dpk keeps it alive
/// as long as the Python object it came from, and a device's queue as long as the process).
class Queue {
public:
  Queue() = default;
  Queue(dpk_queue_t handle, dpk_device_t device) : handle_(handle), device_(device) {}

  /// The queue of a dpk.Queue, dpk.Device, dpk.Array (its device's), filter string or None.
  static Queue from(PyObject *where) {
    dpk_queue_t queue = nullptr;
    dpk_device_t device = nullptr;
    if (api().queue_of(where, &queue, &device) != 0)
      throw_python_error();
    return Queue(queue, device);
  }

  dpk_queue_t handle() const { return handle_; }
  dpk_device_t device() const { return device_; }

  /// The native handles and the ordering rule (dpk_native_queue_t in dpk/dpk_types.h).
  dpk_native_queue_t native() const {
    dpk_native_queue_t handles;
    std::memset(&handles, 0, sizeof handles);
    handles.struct_size = sizeof handles;
    dpk_status_t status = api().queue_get_native(&handles, handle_);
    if (status != DPK_SUCCESS)
      throw_status(status);
    return handles;
  }

  /// The device's description: backend, name, filter string ("opencl:cpu:0"), limits.
  dpk_device_info_t device_info() const {
    dpk_device_info_t info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    dpk_status_t status = api().device_get_info(&info, device_);
    if (status != DPK_SUCCESS)
      throw_status(status);
    return info;
  }

  /// Waits (without the GIL) for every command submitted to the queue so far; raises the first
  /// failure as dpk's exception.
  void wait() const {
    dpk_status_t status;
    {
      gil_released release;
      status = api().queue_wait(handle_);
    }
    if (status != DPK_SUCCESS)
      throw_status(status);
  }

  /// Host work in order with the queue: waits for dpk's earlier commands, then runs `work` on
  /// this thread; dpk's later commands are submitted after it returned. Right for any backend
  /// (host code reading device memory needs host-accessible memory, i.e. the host backend or
  /// shared allocations). `work` runs with the GIL held; release it inside for long work.
  template <typename Work> void run_on_host(Work &&work) const {
    wait();
    std::forward<Work>(work)();
  }

  /// Native commands in order with the queue: calls `enqueue(native)`, which enqueues on
  /// native.queue. For DPK_NATIVE_ORDER_WAIT_THEN_RUN (host: no native queue) the queue is
  /// waited for first and `enqueue` must finish its work before returning; for
  /// DPK_NATIVE_ORDER_BARRIERS `enqueue` must put a barrier before and after its commands
  /// (zeCommandListAppendBarrier / clEnqueueBarrierWithWaitList), which this header cannot,
  /// as it links no vendor library; for DPK_NATIVE_ORDER_IN_ORDER nothing more is needed.
  template <typename Enqueue> void enqueue_native(Enqueue &&enqueue) const {
    dpk_native_queue_t handles = native();
    if (handles.order == DPK_NATIVE_ORDER_WAIT_THEN_RUN)
      wait();
    std::forward<Enqueue>(enqueue)(handles);
  }

private:
  dpk_queue_t handle_ = nullptr;
  dpk_device_t device_ = nullptr;
};

/// A dpk.Array: a strong reference to the Python object and what dpk_ext_api_t::array_view
/// reported (data address, shape, strides in elements, dtype, device, queue). The memory stays
/// valid while this object (or any other reference to the array) lives; commands enqueued in
/// order on the array's queue may use it even after that (docs/extensions.md, "Lifetime").
class Array {
public:
  Array() { view_.struct_size = sizeof view_; }
  /// From a borrowed reference; throws TypeError (as the binding's exception) for a non-array.
  explicit Array(PyObject *object) : Array() {
    if (api().array_view(object, &view_) != 0)
      throw_python_error();
    Py_INCREF(object);
    object_ = object;
  }
  Array(const Array &other) : object_(other.object_), view_(other.view_) { Py_XINCREF(object_); }
  Array(Array &&other) noexcept : object_(other.object_), view_(other.view_) {
    other.object_ = nullptr;
  }
  Array &operator=(Array other) noexcept {
    std::swap(object_, other.object_);
    std::swap(view_, other.view_);
    return *this;
  }
  ~Array() { Py_XDECREF(object_); }

  static bool check(PyObject *object) { return api().is_array(object) == 1; }

  /// A new, uninitialized C-contiguous array of `dtype` ("float32", "<i8", ...) on the device
  /// `where` names (a dpk.Array, dpk.Device, dpk.Queue, filter string or None).
  static Array empty(PyObject *where, const std::vector<int64_t> &shape, const char *dtype) {
    PyObject *created = api().array_empty(where, static_cast<int32_t>(shape.size()),
                                          shape.data(), dtype);
    if (!created)
      throw_python_error();
    Array array(created);
    Py_DECREF(created); // Array(created) took its own reference
    return array;
  }
  /// On the device of another array.
  static Array empty(const Array &like, const std::vector<int64_t> &shape, const char *dtype) {
    return empty(like.ptr(), shape, dtype);
  }

  PyObject *ptr() const { return object_; }
  /// Gives up the reference (for returning the array to Python).
  PyObject *release() {
    PyObject *object = object_;
    object_ = nullptr;
    return object;
  }
  bool valid() const { return object_ != nullptr; }

  void *data() const { return view_.data; }
  template <typename T> T *data() const { return static_cast<T *>(view_.data); }
  int ndim() const { return view_.ndim; }
  int64_t shape(int axis) const { return view_.shape[axis]; }
  const int64_t *shape() const { return view_.shape; }
  /// Strides in elements.
  int64_t stride(int axis) const { return view_.strides[axis]; }
  const int64_t *strides() const { return view_.strides; }
  int64_t size() const {
    int64_t n = 1;
    for (int i = 0; i < view_.ndim; ++i)
      n *= view_.shape[i];
    return n;
  }
  char kind() const { return view_.kind; }
  int itemsize() const { return view_.itemsize; }
  const char *typestr() const { return view_.typestr; }
  /// Whether the dtype is `kind` (NumPy's 'f', 'i', 'u', 'b', 'c') of `itemsize` bytes.
  bool is(char dtypeKind, int dtypeItemsize) const {
    return view_.kind == dtypeKind && view_.itemsize == dtypeItemsize;
  }
  bool read_only() const { return view_.read_only != 0; }
  bool is_c_contiguous() const {
    int64_t step = 1;
    for (int i = view_.ndim - 1; i >= 0; --i) {
      if (view_.shape[i] != 1 && view_.strides[i] != step)
        return false;
      step *= view_.shape[i];
    }
    return true;
  }
  dpk_device_t device() const { return view_.device; }
  /// The device's queue that dpk's array operations use: order work on the array with it.
  Queue queue() const { return Queue(view_.queue, view_.device); }
  const dpk_ext_array_view_t &view() const { return view_; }

private:
  PyObject *object_ = nullptr;
  dpk_ext_array_view_t view_{};
};

} // namespace dpk::ext

// ---- type casters: Array and Queue in nanobind / pybind11 signatures ---------------------------

#if defined(NB_VERSION_MAJOR)
namespace nanobind::detail {

template <> struct type_caster<dpk::ext::Array> {
  NB_TYPE_CASTER(dpk::ext::Array, const_name("dpk.Array"))

  bool from_python(handle src, uint8_t, cleanup_list *) noexcept {
    try {
      if (dpk::ext::api().is_array(src.ptr()) != 1)
        return false;
      value = dpk::ext::Array(src.ptr());
      return true;
    } catch (...) { // not importable, or the view failed: not a match for this overload
      PyErr_Clear();
      return false;
    }
  }
  static handle from_cpp(const dpk::ext::Array &array, rv_policy, cleanup_list *) noexcept {
    PyObject *object = array.ptr();
    Py_XINCREF(object);
    return object;
  }
};

template <> struct type_caster<dpk::ext::Queue> {
  NB_TYPE_CASTER(dpk::ext::Queue, const_name("dpk.Queue | dpk.Device | str | None"))

  bool from_python(handle src, uint8_t, cleanup_list *) noexcept {
    try {
      dpk_queue_t queue = nullptr;
      dpk_device_t device = nullptr;
      if (dpk::ext::api().queue_of(src.ptr(), &queue, &device) != 0) {
        PyErr_Clear();
        return false;
      }
      value = dpk::ext::Queue(queue, device);
      return true;
    } catch (...) {
      PyErr_Clear();
      return false;
    }
  }
  // A Queue is a borrowed handle: it does not go back to Python.
};

} // namespace nanobind::detail
#endif

#if defined(PYBIND11_VERSION_MAJOR)
namespace pybind11::detail {

template <> struct type_caster<dpk::ext::Array> {
  PYBIND11_TYPE_CASTER(dpk::ext::Array, const_name("dpk.Array"));

  bool load(handle src, bool) {
    if (dpk::ext::api().is_array(src.ptr()) != 1)
      return false;
    value = dpk::ext::Array(src.ptr());
    return true;
  }
  static handle cast(const dpk::ext::Array &array, return_value_policy, handle) {
    PyObject *object = array.ptr();
    Py_XINCREF(object);
    return object;
  }
};

template <> struct type_caster<dpk::ext::Queue> {
  PYBIND11_TYPE_CASTER(dpk::ext::Queue, const_name("dpk.Queue | dpk.Device | str | None"));

  bool load(handle src, bool) {
    dpk_queue_t queue = nullptr;
    dpk_device_t device = nullptr;
    if (dpk::ext::api().queue_of(src.ptr(), &queue, &device) != 0) {
      PyErr_Clear();
      return false;
    }
    value = dpk::ext::Queue(queue, device);
    return true;
  }
  static handle cast(const dpk::ext::Queue &, return_value_policy, handle) {
    PyErr_SetString(PyExc_TypeError, "a dpk::ext::Queue does not convert to Python");
    return nullptr;
  }
};

} // namespace pybind11::detail
#endif

#endif // DPK_EXTENSION_HPP

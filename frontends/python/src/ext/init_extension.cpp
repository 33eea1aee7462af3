// init_extension.cpp - the C ABI for native extensions: the capsule dpk._core._C_API holding a
// dpk_ext_api_t (frontends/python/include/dpk/extension.h, docs/extensions.md).
//
// Each entry is a plain C function: it catches everything (nanobind's python_error, StatusError,
// any C++ exception) and turns it into a Python exception and a -1/NULL return, so an extension
// built with another binding library, compiler or C++ runtime never sees a C++ exception.
// Arrays are Python objects (dpk.arrays.Array), read through their attributes; devices and
// queues through the handle classes of this module (handles.h).
#include "handles.h"

#include "dpk/extension.h"

#include <nanobind/stl/string.h>

#include <cstring>
#include <string>

namespace dpk::py {
namespace {

// dpk.Array, dpk.empty, dpk.select_device and dpk.Queue, looked up once when first used (dpk's
// package imports this module first, so they cannot be taken at module init).
struct PackageNames {
  nb::object arrayType, empty, selectDevice, queueType;
};

PackageNames &package() {
  static PackageNames *names = [] {
    nb::module_ dpk = nb::module_::import_("dpk");
    auto *n = new PackageNames{dpk.attr("Array"), dpk.attr("empty"), dpk.attr("select_device"),
                               dpk.attr("Queue")};
    return n; // never freed: the objects live as long as the interpreter
  }();
  return *names;
}

/// Runs `body`; any exception becomes the Python error, and `failed` is returned.
template <typename Result, typename Body> Result guarded(Result failed, Body &&body) noexcept {
  try {
    return body();
  } catch (nb::python_error &e) {
    e.restore();
  } catch (const StatusError &e) {
    PyErr_SetString(errorClassFor(e.status()), e.what());
  } catch (const nb::cast_error &) {
    PyErr_SetString(PyExc_TypeError, "dpk extension API: an argument has the wrong type");
  } catch (const std::bad_alloc &) {
    PyErr_NoMemory();
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "dpk extension API: unknown C++ exception");
  }
  return failed;
}

/// The _core.Queue of `where` (see dpk_ext_api_t::queue_of).
Queue &queueObject(nb::handle where) {
  if (nb::isinstance<Queue>(where))
    return nb::cast<Queue &>(where);
  PackageNames &names = package();
  if (nb::isinstance(where, names.queueType))
    return nb::cast<Queue &>(where.attr("_native"));
  // select_device takes a dpk.Device, a filter string or None, and raises TypeError otherwise.
  nb::object device = nb::isinstance(where, names.arrayType) ? where.attr("device")
                                                              : names.selectDevice(where);
  return nb::cast<Queue &>(device.attr("queue"));
}

int isArray(PyObject *obj) {
  int result = guarded(-1, [&] {
    return nb::isinstance(nb::handle(obj), package().arrayType) ? 1 : 0;
  });
  if (result < 0) {
    PyErr_Clear();
    return 0;
  }
  return result;
}

int arrayView(PyObject *obj, dpk_ext_array_view_t *out) {
  return guarded(-1, [&] {
    if (!out || out->struct_size == 0)
      throw nb::value_error("dpk extension API: array_view needs a view with struct_size set");
    nb::handle array(obj);
    if (!nb::isinstance(array, package().arrayType))
      throw nb::type_error(("expected a dpk.Array, not " +
                            nb::cast<std::string>(nb::str(
                                nb::handle((PyObject *)Py_TYPE(obj)).attr("__name__"))))
                               .c_str());
    dpk_ext_array_view_t view;
    std::memset(&view, 0, sizeof view);
    view.struct_size = sizeof view;
    // _ptr materializes a lazy array and submits lazy readers of its memory (the caller may
    // write it); only then are _strides known.
    view.data = (void *)nb::cast<uintptr_t>(array.attr("_ptr"));
    nb::tuple shape = nb::borrow<nb::tuple>(array.attr("_shape"));
    nb::tuple strides = nb::tuple(array.attr("_strides"));
    size_t ndim = nb::len(shape);
    if (ndim > DPK_EXT_MAX_NDIM)
      throw nb::value_error("dpk extension API: the array has more dimensions than "
                            "DPK_EXT_MAX_NDIM");
    view.ndim = (int32_t)ndim;
    for (size_t i = 0; i < ndim; ++i) {
      view.shape[i] = nb::cast<int64_t>(shape[i]);
      view.strides[i] = nb::cast<int64_t>(strides[i]);
    }
    nb::object dtype = array.attr("_dtype");
    std::string kind = nb::cast<std::string>(dtype.attr("kind"));
    std::string typestr = nb::cast<std::string>(dtype.attr("str"));
    view.kind = kind.empty() ? '?' : kind[0];
    view.itemsize = (uint8_t)nb::cast<int>(dtype.attr("itemsize"));
    std::strncpy(view.typestr, typestr.c_str(), sizeof view.typestr - 1);
    nb::object base = array.attr("_base");
    view.read_only = !base.is_none() && nb::cast<bool>(base.attr("read_only"));
    nb::object device = array.attr("_device");
    view.device = nb::cast<Device &>(device.attr("_dev")).handle;
    view.queue = nb::cast<Queue &>(device.attr("queue")).handle;
    size_t size = out->struct_size < sizeof view ? out->struct_size : sizeof view;
    size_t callerSize = out->struct_size;
    std::memcpy(out, &view, size);
    out->struct_size = callerSize;
    return 0;
  });
}

int queueOf(PyObject *where, dpk_queue_t *queue, dpk_device_t *device) {
  return guarded(-1, [&] {
    Queue &q = queueObject(nb::handle(where));
    if (queue)
      *queue = q.handle;
    if (device)
      *device = dpk_queue_device(q.handle);
    return 0;
  });
}

PyObject *arrayEmpty(PyObject *where, int32_t ndim, const int64_t *shape, const char *dtype) {
  return guarded((PyObject *)nullptr, [&]() -> PyObject * {
    if (ndim < 0 || (ndim > 0 && !shape) || !dtype)
      throw nb::value_error("dpk extension API: array_empty needs ndim >= 0, a shape and a "
                            "dtype");
    nb::list extents;
    for (int32_t i = 0; i < ndim; ++i)
      extents.append(shape[i]);
    nb::handle target(where);
    PackageNames &names = package();
    if (nb::isinstance<Queue>(target)) // a bare _core.Queue: no dpk.Device to name
      throw nb::type_error("array_empty takes a dpk.Queue, dpk.Device, dpk.Array, filter "
                           "string or None");
    nb::object device = nb::isinstance(target, names.arrayType) ? target.attr("device")
                                                                 : names.selectDevice(target);
    nb::object array = names.empty(nb::tuple(extents), "dtype"_a = dtype, "device"_a = device);
    return array.release().ptr();
  });
}

int raiseStatus(dpk_status_t status, const char *message) {
  std::string text = message ? message : dpk_last_error();
  if (text.empty())
    text = dpk_status_name(status);
  PyErr_SetString(errorClassFor(status), text.c_str());
  return -1;
}

const dpk_ext_api_t extensionApi = {
    sizeof(dpk_ext_api_t), DPK_EXT_API_VERSION, isArray,  arrayView,
    queueOf,               arrayEmpty,          raiseStatus, dpk_queue_get_native,
    dpk_queue_wait,        dpk_last_error,      dpk_device_get_info, dpk_queue_device,
};

} // namespace

void initExtension(nb::module_ &m) {
  PyObject *capsule =
      PyCapsule_New(const_cast<dpk_ext_api_t *>(&extensionApi), DPK_EXT_API_CAPSULE, nullptr);
  if (!capsule)
    throw nb::python_error();
  m.attr("_C_API") = nb::steal(capsule);
}

} // namespace dpk::py

// errors.cpp - the one place where dpk statuses become Python exceptions.
//
// dpk/_errors.py defines the exception classes (so that they can derive from ValueError,
// TypeError, ...) and registers them with _set_error_classes({status: class}). A status without a
// registered class raises the registered DPK_ERROR_GENERIC class, or RuntimeError before dpk's
// package has finished importing.
#include "common.h"

#include "dpk/dpk.h"

#include <nanobind/stl/string.h>

#include <mutex>
#include <unordered_map>

namespace dpk::py {

namespace {
// Owned references to the exception classes; they live as long as the module (never freed, so
// no destructor runs after the interpreter is gone).
std::unordered_map<int, PyObject *> *errorClasses = new std::unordered_map<int, PyObject *>();

} // namespace

PyObject *errorClassFor(dpk_status_t status) {
  auto it = errorClasses->find(static_cast<int>(status));
  if (it != errorClasses->end())
    return it->second;
  it = errorClasses->find(static_cast<int>(DPK_ERROR_GENERIC));
  if (it != errorClasses->end())
    return it->second;
  return PyExc_RuntimeError;
}

void check(dpk_status_t status, const char *what) {
  if (status == DPK_SUCCESS)
    return;
  std::string message = dpk_last_error();
  if (message.empty())
    message = std::string(what) + " failed: " + dpk_status_name(status);
  throw StatusError(status, message);
}

void initErrors(nb::module_ &m) {
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError &e) {
      PyErr_SetString(errorClassFor(e.status()), e.what());
    }
  });
  m.def(
      "_set_error_classes",
      [](nb::dict classes) {
        for (auto [key, value] : classes) {
          int status = nb::cast<int>(key);
          Py_INCREF(value.ptr());
          auto it = errorClasses->find(status);
          if (it != errorClasses->end())
            Py_DECREF(it->second);
          (*errorClasses)[status] = value.ptr();
        }
      },
      "classes"_a, "Registers the Python exception class raised for each dpk status.");
  m.def(
      "_raise_status",
      [](int status, const std::string &message) {
        throw StatusError(static_cast<dpk_status_t>(status), message);
      },
      "status"_a, "message"_a, "Raises the exception registered for `status` (for tests).");
}

} // namespace dpk::py

// common.h - what every binding file of dpk._core shares: the status-to-exception path.
//
// C++ code of the extension throws StatusError (a dpk status and a message); one translator in
// errors.cpp turns it into the Python class registered for that status (dpk.DpkError and its
// subclasses, defined in dpk/_errors.py and handed over at import time).
#ifndef DPK_PY_COMMON_H
#define DPK_PY_COMMON_H

#include <nanobind/nanobind.h>

#include "dpk/dpk_types.h"

#include <stdexcept>
#include <string>

namespace dpk::py {

namespace nb = nanobind;
using namespace nb::literals;

/// A failed dpk call (or a check of the extension) on its way to Python.
class StatusError : public std::runtime_error {
public:
  StatusError(dpk_status_t status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  dpk_status_t status() const { return status_; }

private:
  dpk_status_t status_;
};

/// The Python exception class registered for `status` (errors.cpp; borrowed).
PyObject *errorClassFor(dpk_status_t status);

/// Throws StatusError carrying dpk_last_error() when `status` is a failure.
void check(dpk_status_t status, const char *what);

/// Throws a DPK_ERROR_PARSE StatusError when a device filter holds a NUL character, which the
/// C API (and every C string) would silently take as its end (init_policy.cpp).
void checkFilterText(const std::string &filter);

/// Tells the launch fast path which class is dpk's array (init_launch.cpp).
void setLaunchArrayType(nb::handle type);

void initErrors(nb::module_ &m);
void initIr(nb::module_ &m);
void initRuntime(nb::module_ &m);
void initLaunch(nb::module_ &m);
void initImmediate(nb::module_ &m);
void initPolicy(nb::module_ &m);
void initDLPack(nb::module_ &m);
void initExtension(nb::module_ &m);

} // namespace dpk::py

#endif // DPK_PY_COMMON_H

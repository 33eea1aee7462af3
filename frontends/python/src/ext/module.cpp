// module.cpp - the dpk._core extension module: one init_<topic>() per binding file.
#include "common.h"

NB_MODULE(_core, m) {
  m.doc() = "dpk's native core: IR builder and runtime bindings (implementation detail of dpk)";
  // Kernels, devices and queues held in module globals are still alive when the interpreter
  // tears nanobind down at exit; that is expected, not a leak worth a warning.
  nanobind::set_leak_warnings(false);
  dpk::py::initErrors(m);
  dpk::py::initIr(m);
  dpk::py::initDLPack(m);
  dpk::py::initRuntime(m);
  dpk::py::initLaunch(m);
  dpk::py::initImmediate(m);
  dpk::py::initPolicy(m);
  dpk::py::initExtension(m);
}

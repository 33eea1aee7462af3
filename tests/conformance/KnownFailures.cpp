// KnownFailures.cpp - the table of expected failures per backend and device (see the header).
// Every entry needs a reason a reader can act on; delete an entry as soon as it passes.
#include "KnownFailures.h"

namespace dpk::conformance {
namespace {

const KnownFailure KnownFailures[] = {
    // Intel's SPIR-V reader lowers OpAtomicStore on f64 to the OpenCL 1.x builtin
    // atomic_xchg(volatile __global/__local double *, double), which its CPU builtin library does
    // not define: the program fails to link ("JIT session error: Symbols not found:
    // [ _Z11atomic_xchgPU3AS1Vdd, _Z11atomic_xchgPU3AS3Vdd ]"). One program holds both kernels,
    // so both fail. Fix in codegen: emit f64 atomic stores as i64 atomic stores of the bits.
    {"opencl", "[Intel", "spirv", "AtomicsGlobal",
     "Intel CPU runtime 2026.2 (SPIR-V): no atomic_xchg(double) for OpAtomicStore on f64"},
    {"opencl", "[Intel", "spirv", "AtomicsLocal",
     "Intel CPU runtime 2026.2 (SPIR-V): no atomic_xchg(double) for OpAtomicStore on f64 "
     "(same program as atomics_global)"},
};

} // namespace

const KnownFailure *findKnownFailure(const std::string &backend, const std::string &deviceName,
                                     const std::string &input, const std::string &test) {
  for (const KnownFailure &entry : KnownFailures) {
    if (std::string(entry.backend) != "*" && backend != entry.backend)
      continue;
    if (deviceName.find(entry.deviceName) == std::string::npos || test != entry.test)
      continue;
    if (*entry.input && input != entry.input)
      continue;
    return &entry;
  }
  return nullptr;
}

} // namespace dpk::conformance

// KnownFailures.cpp - the table of expected failures per backend and device (see the header).
// Every entry needs a reason a reader can act on; delete an entry as soon as it passes.
#include "KnownFailures.h"

#include <vector>

namespace dpk::conformance {
namespace {

// Each entry: backend, device-name substring ("[Vendor" matches the vendor), input format ("" =
// any), test name, reason. A listed test that passes fails the run, so fixed gaps get removed.
//
// Empty today. The last entries (Intel's CPU runtime 2026.2 could not link SPIR-V
// OpAtomicStore on f64: it lowers it to atomic_xchg(double), which its builtin library lacks)
// were removed when the SPIR-V target began storing f64 atomics as i64 bit patterns.
const std::vector<KnownFailure> KnownFailures = {};

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

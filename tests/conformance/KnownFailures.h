// KnownFailures.h - expected gaps of one backend/device, declared in KnownFailures.cpp.
//
// A test that hits a known failure still runs: if it fails, the failure becomes a visible skip
// ("known failure on <device>: <reason>"); if it passes, the test fails loudly so the entry is
// removed. Matching is by backend name, a substring of "<device name> [<vendor>]" (Intel's CPU
// runtime names the CPU, e.g. "AMD EPYC", so its vendor "Intel" tells it apart) and the test name.
#ifndef DPK_TESTS_CONFORMANCE_KNOWNFAILURES_H
#define DPK_TESTS_CONFORMANCE_KNOWNFAILURES_H

#include <string>

namespace dpk::conformance {

struct KnownFailure {
  /// "opencl", "host", "cuda", ...; "*" for any backend.
  const char *backend;
  /// A substring of "<device name> [<vendor>]"; "" for any device of the backend.
  const char *deviceName;
  /// The artifact the device gets: "spirv", "opencl-c", "ptx", "host"; "" for any.
  const char *input;
  /// The test's name without suite and parameter ("MathF64").
  const char *test;
  /// Why, for people: the vendor's gap or the dpk issue, and what would fix it.
  const char *reason;
};

/// The entry for this test on this device and input, or null.
const KnownFailure *findKnownFailure(const std::string &backend, const std::string &deviceName,
                                     const std::string &input, const std::string &test);

} // namespace dpk::conformance

#endif // DPK_TESTS_CONFORMANCE_KNOWNFAILURES_H

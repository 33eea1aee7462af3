// FuzzSupport.h - what every fuzz target shares: the entry point libFuzzer calls, and a check
// that aborts (so libFuzzer, or the replay driver, reports the input) when a promise breaks.
#ifndef DPK_TESTS_FUZZ_FUZZSUPPORT_H
#define DPK_TESTS_FUZZ_FUZZSUPPORT_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace dpk::fuzz {

/// Aborts with `what` and the start of the input when `condition` is false.
inline void check(bool condition, const char *what, const std::string &input,
                  const std::string &detail = {}) {
  if (condition)
    return;
  std::fprintf(stderr, "fuzz: %s%s%s\n  input (%zu bytes): %.300s\n", what,
               detail.empty() ? "" : ": ", detail.c_str(), input.size(), input.c_str());
  std::abort();
}

} // namespace dpk::fuzz

#endif // DPK_TESTS_FUZZ_FUZZSUPPORT_H

// StressSupport.h - what the stress and fault tests share: the devices (the conformance suite's
// enumeration), the IR kernels they launch with the results they must give, the sizes of the
// short and the long run (DPK_STRESS_LONG=1), scratch directories and child-process plumbing.
#ifndef DPK_TESTS_STRESS_STRESSSUPPORT_H
#define DPK_TESTS_STRESS_STRESSSUPPORT_H

#include "Conformance.h" // allDevices(), lastError(): the conformance suite's device list
#include "DpkTest.h"
#include "Subprocess.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace dpk::stress {

using conformance::DeviceParam;

/// Whether the long sweep was asked for (DPK_STRESS_LONG=1).
inline bool longRun() {
  const char *value = std::getenv("DPK_STRESS_LONG");
  return value && *value && std::string(value) != "0";
}
/// `shortValue` in the default run, `longValue` under DPK_STRESS_LONG=1.
inline int scaled(int shortValue, int longValue) { return longRun() ? longValue : shortValue; }

/// Every device of this process's runtime, as the conformance suite lists them.
inline std::vector<DeviceParam> devices() { return conformance::allDevices(); }

/// "y[i] = x[i] * k + y[i] + <bias>" on i32: exact on every device. Each distinct bias is a
/// distinct IR text, so a distinct cache entry.
inline std::string axpyIr(const std::string &name, int bias) {
  return "kernel @" + name +
         "(%x: ptr<global, i32>, %y: ptr<global, i32>, %k: i32) {\n"
         "  %i = global_id 0 : i64\n"
         "  %a = load %x[%i] : i32\n"
         "  %b = load %y[%i] : i32\n"
         "  %m = mul %a, %k : i32\n"
         "  %s = add %m, %b : i32\n"
         "  %c = const " +
         std::to_string(bias) +
         " : i32\n"
         "  %r = add %s, %c : i32\n"
         "  store %y[%i], %r\n"
         "  return\n"
         "}\n";
}
inline int32_t axpyExpected(int32_t x, int32_t y, int32_t k, int32_t bias) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(k) +
                              static_cast<uint32_t>(y) + static_cast<uint32_t>(bias));
}

/// An IR program with one kernel; null (and `error` set) on failure.
inline dpk_program_t irProgram(const std::string &text, const std::string &label,
                               std::string &error) {
  dpk_program_t program = nullptr;
  dpk_status_t status =
      dpk_program_create_from_ir(&program, text.data(), text.size(), label.c_str());
  if (status != DPK_SUCCESS) {
    error = label + ": " + conformance::lastError(status);
    return nullptr;
  }
  return program;
}

/// A fresh, empty directory under TMPDIR (removed by the caller with removeTree).
std::string makeScratchDirectory(const std::string &what);
/// rm -rf, restoring write permission on the way.
void removeTree(const std::string &path);
/// Regular files under `directory`, recursively (relative paths), and what else is there.
struct TreeListing {
  std::vector<std::string> regularFiles;
  std::vector<std::string> others; // directories below the shards, links, FIFOs, ...
};
TreeListing listTree(const std::string &directory);

/// Runs `testName` of this binary in a child with `environment` and a deadline; fails the
/// calling test (naming `what`) when the child hangs, crashes or fails.
bool childPasses(const std::string &what, const std::string &testName,
                 const std::vector<std::pair<std::string, std::string>> &environment,
                 int deadlineSeconds, test::ChildResult *result = nullptr);

} // namespace dpk::stress

#endif // DPK_TESTS_STRESS_STRESSSUPPORT_H

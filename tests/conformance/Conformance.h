// Conformance.h - the fixture every conformance test runs in: one instance per dpk device (C API
// dpk_device_count/dpk_device_get), with memory, corpus and launch helpers, and the
// known-failure guard (KnownFailures.h).
//
// Write a test as
//   CONFORMANCE_TEST(VectorAdd) { ... t.upload(...); t.launch(...); ... }
// where `t` is the fixture. Tests are named Devices/Conformance.<Name>/<filter string>.
#ifndef DPK_TESTS_CONFORMANCE_CONFORMANCE_H
#define DPK_TESTS_CONFORMANCE_CONFORMANCE_H

#include "dpk/dpk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace dpk::conformance {

/// One device as the suite's parameter.
struct DeviceParam {
  uint32_t index;
  std::string filter;  // "opencl:cpu:1"
  std::string backend; // "opencl"
  std::string name;    // the device's name
  std::string vendor;  // the device's vendor ("Intel(R) Corporation" for Intel's CPU runtime)
  std::string input;   // what the runtime compiles for it: "host", "ptx", "spirv", "opencl-c"
};
std::ostream &operator<<(std::ostream &out, const DeviceParam &param);

/// Every device the runtime exposes (empty if dpk_device_count fails; the RuntimeHasDevices test
/// reports why).
std::vector<DeviceParam> allDevices();
/// "opencl:cpu:1" -> "opencl_cpu_1" for test names.
std::string testNameOf(const ::testing::TestParamInfo<DeviceParam> &info);

/// The artifact the runtime hands the device: "host", "ptx", "spirv" or "opencl-c".
std::string inputOf(const dpk_device_info_t &info);

/// The message of the last C API failure, with the status name.
std::string lastError(dpk_status_t status);

class Conformance : public ::testing::TestWithParam<DeviceParam> {
public:
  void SetUp() override;
  void TearDown() override;

  /// Runs `body`; a known failure of this test on this device turns into a skip if the body
  /// fails and into a failure if it passes.
  void runGuarded(const char *test, const std::function<void()> &body);

  bool hasAspect(uint32_t aspect) const { return (info.aspects & aspect) != 0; }
  /// Skips the test (from the test body) when the device lacks fp64.
  bool lacksFp64() const { return !hasAspect(DPK_ASPECT_FP64); }

  /// A device allocation freed at tear-down.
  void *alloc(size_t bytes, dpk_mem_kind_t kind = DPK_MEM_DEVICE);
  void copy(void *dst, const void *src, size_t bytes);
  template <typename T> void *upload(const std::vector<T> &values) {
    void *ptr = alloc(values.size() * sizeof(T));
    if (ptr)
      copy(ptr, values.data(), values.size() * sizeof(T));
    return ptr;
  }
  template <typename T> std::vector<T> download(const void *ptr, size_t count) {
    std::vector<T> values(count);
    if (ptr)
      copy(values.data(), ptr, count * sizeof(T));
    return values;
  }

  /// The IR text of tests/ir/corpus/<file>; fails the test naming the path when it is missing.
  std::string corpusText(const std::string &file);
  /// Kernel `kernelName` of corpus file `file` (e.g. "vector_add.dpkir"); null after a failure
  /// that was already reported.
  dpk_kernel_t corpusKernel(const std::string &file, const std::string &kernelName);
  /// Kernel `kernelName` of the IR program `text` (named `label` in messages); null after a
  /// failure that was already reported.
  dpk_kernel_t irKernel(const std::string &text, const std::string &kernelName,
                        const std::string &label = "inline");

  /// Launches and waits; returns the launch's (or the wait's) status.
  dpk_status_t launch(dpk_kernel_t kernel, const dpk_launch_config_t &range,
                      const std::vector<dpk_arg_t> &args);

  static dpk_arg_t pointer(const void *ptr) { return {DPK_ARG_POINTER, sizeof(void *), ptr}; }
  template <typename T> static dpk_arg_t scalar(const T &value) {
    return {DPK_ARG_SCALAR, sizeof(T), &value};
  }
  static dpk_arg_t local(size_t bytes) { return {DPK_ARG_LOCAL, bytes, nullptr}; }
  static dpk_arg_t view(const dpk_view_arg_t &value) {
    return {DPK_ARG_VIEW, sizeof value, &value};
  }
  static dpk_launch_config_t range1(uint64_t n) { return {1, {n, 0, 0}, {0, 0, 0}}; }
  static dpk_launch_config_t ndRange1(uint64_t n, uint64_t l) { return {1, {n, 0, 0}, {l, 0, 0}}; }

  dpk_device_t device = nullptr;
  dpk_device_info_t info{};
  dpk_queue_t queue = nullptr;

private:
  std::vector<void *> allocations;
  std::vector<dpk_program_t> programs;
  std::vector<dpk_kernel_t> kernels;
};

/// |actual - expected| within `ulps` units of the expected value's magnitude (at least 1), or
/// both NaN, or equal infinities.
template <typename T> bool closeUlps(T actual, T expected, double ulps) {
  if (std::isnan(expected))
    return std::isnan(actual);
  if (std::isinf(expected))
    return actual == expected;
  double scale = std::max(1.0, std::fabs(static_cast<double>(expected)));
  return std::fabs(static_cast<double>(actual) - static_cast<double>(expected)) <=
         ulps * std::numeric_limits<T>::epsilon() * scale;
}

} // namespace dpk::conformance

#define CONFORMANCE_TEST(Name)                                                                     \
  static void Name##Body(::dpk::conformance::Conformance &t);                                      \
  TEST_P(Conformance, Name) {                                                                      \
    runGuarded(#Name, [this] { Name##Body(*this); });                                              \
  }                                                                                                \
  static void Name##Body([[maybe_unused]] ::dpk::conformance::Conformance &t)

#endif // DPK_TESTS_CONFORMANCE_CONFORMANCE_H

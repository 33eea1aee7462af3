// DpkTest.h - helpers for tests written against the C API: status checks that print the last
// error, device lookup, and small host kernels.
#ifndef DPK_TESTS_SUPPORT_DPKTEST_H
#define DPK_TESTS_SUPPORT_DPKTEST_H

#include "dpk/dpk.h"

#include <gtest/gtest.h>

#include <string>

#define DPK_ASSERT_OK(expr)                                                                      \
  do {                                                                                           \
    dpk_status_t dpkStatus_ = (expr);                                                            \
    ASSERT_EQ(dpkStatus_, DPK_SUCCESS) << #expr << ": " << dpk_status_name(dpkStatus_) << ": "  \
                                       << dpk_last_error();                                      \
  } while (0)

#define DPK_EXPECT_STATUS(expr, status)                                                          \
  do {                                                                                           \
    dpk_status_t dpkStatus_ = (expr);                                                            \
    EXPECT_EQ(dpkStatus_, status) << #expr << ": " << dpk_status_name(dpkStatus_) << ": "       \
                                  << dpk_last_error();                                           \
  } while (0)

namespace dpk::test {

/// The device with this filter, or null (the caller skips).
inline dpk_device_t findDevice(const char *filter) {
  dpk_device_t device = nullptr;
  if (dpk_device_select(&device, filter) != DPK_SUCCESS)
    return nullptr;
  dpk_device_info_t info{};
  info.struct_size = sizeof(info);
  if (dpk_device_get_info(&info, device) != DPK_SUCCESS)
    return nullptr;
  // A fallback may hand out the host for a filter that matched nothing.
  std::string wanted = filter;
  if (std::string(info.filter_string).rfind(wanted.substr(0, wanted.find(':')), 0) != 0)
    return nullptr;
  return device;
}

inline bool lastErrorHas(const std::string &text) {
  return std::string(dpk_last_error()).find(text) != std::string::npos;
}

} // namespace dpk::test

#define DPK_REQUIRE_DEVICE(var, filter)                                                          \
  dpk_device_t var = ::dpk::test::findDevice(filter);                                            \
  if (!var)                                                                                      \
  GTEST_SKIP() << "no device '" << (filter) << "': " << dpk_last_error()

#endif // DPK_TESTS_SUPPORT_DPKTEST_H

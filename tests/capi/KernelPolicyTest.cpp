// KernelPolicyTest.cpp - the policy's `kernels:` rules govern launches, not only dpk-ls --explain
// (issue 15, C). Each case runs in a child process with its own policy file.
#include "DpkTest.h"
#include "HostKernels.h"
#include "Subprocess.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace dpk::test;

namespace {

constexpr uint64_t N = 1024;

std::string writePolicy(const std::string &body) {
  char pattern[] = "/tmp/dpk-kernel-policy-XXXXXX";
  std::string folder = ::mkdtemp(pattern);
  std::string path = folder + "/policy.yaml";
  std::ofstream(path) << body;
  return path;
}

/// Launches iota on a queue of `filter`'s device over device memory of that device and reads
/// the result back; returns the launch status and leaves the message in `error`.
dpk_status_t launchIotaOn(const char *filter, std::vector<int32_t> &out, std::string &error) {
  dpk_device_t device = findDevice(filter);
  if (!device) {
    error = std::string("no device ") + filter;
    return DPK_ERROR_NO_DEVICE;
  }
  dpk_program_t program;
  dpk_kernel_t iota;
  dpk_queue_t queue;
  void *x = nullptr;
  if (dpk_program_create_from_host(&program, TestKernels, NumTestKernels) ||
      dpk_kernel_get(&iota, program, "iota") || dpk_queue_create(&queue, device, 0) ||
      dpk_mem_alloc(&x, device, DPK_MEM_DEVICE, N * 4)) {
    error = dpk_last_error();
    return DPK_ERROR_GENERIC;
  }
  int32_t sentinel = -1;
  dpk_enqueue_fill(nullptr, queue, x, &sentinel, 4, N * 4, 0, nullptr);
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(N);
  dpk_status_t status = dpk_enqueue_launch(nullptr, queue, iota, &range, 1, &arg, 0, nullptr);
  if (status != DPK_SUCCESS)
    error = dpk_last_error();
  if (status == DPK_SUCCESS)
    status = dpk_queue_wait(queue);
  out.assign(N, 0);
  dpk_enqueue_copy(nullptr, queue, out.data(), x, N * 4, 0, nullptr);
  dpk_queue_wait(queue);
  dpk_mem_free(x);
  dpk_queue_release(queue);
  dpk_kernel_release(iota);
  dpk_program_release(program);
  return status;
}

} // namespace

TEST(KernelPolicyChild, IotaOnTheFaultDeviceIsCorrect) {
  DPK_CHILD_ONLY();
  std::vector<int32_t> out;
  std::string error;
  ASSERT_EQ(launchIotaOn("fault", out, error), DPK_SUCCESS) << error;
  for (uint64_t i = 0; i < N; ++i)
    ASSERT_EQ(out[i], static_cast<int32_t>(i)) << "at " << i;
}

TEST(KernelPolicyChild, IotaOnTheHostIsAPlacementError) {
  DPK_CHILD_ONLY();
  std::vector<int32_t> out;
  std::string error;
  ASSERT_EQ(launchIotaOn("host", out, error), DPK_ERROR_PLACEMENT) << error;
  EXPECT_NE(error.find("kernels[0] 'io*'"), std::string::npos) << error;
  EXPECT_NE(error.find("fault:gpu:0"), std::string::npos) << error;
  for (uint64_t i = 0; i < N; ++i)
    ASSERT_EQ(out[i], -1) << "nothing may be written, at " << i;
}

TEST(KernelPolicy, ARuleThatNamesTheHostRunsTheKernelThere) {
  std::string policy = writePolicy("version: 1\nkernels:\n  - match: \"io*\"\n    devices: host\n");
  ChildResult child = runChildTest("KernelPolicyChild.IotaOnTheFaultDeviceIsCorrect",
                                   {{"DPK_CONFIG", policy}, {"DPK_DIAGNOSTICS", "1"}});
  ASSERT_EQ(child.exitCode, 0) << child.output;
  EXPECT_NE(child.output.find("policy.route"), std::string::npos) << child.output;
  EXPECT_NE(child.output.find("host:cpu:0"), std::string::npos) << child.output;
}

TEST(KernelPolicy, WithoutAMatchingRuleTheQueueDeviceRunsIt) {
  std::string policy = writePolicy("version: 1\nkernels:\n  - match: \"other*\"\n    devices: host\n");
  ChildResult child = runChildTest("KernelPolicyChild.IotaOnTheFaultDeviceIsCorrect",
                                   {{"DPK_CONFIG", policy}, {"DPK_DIAGNOSTICS", "1"}});
  ASSERT_EQ(child.exitCode, 0) << child.output;
  EXPECT_EQ(child.output.find("policy.route"), std::string::npos) << child.output;
}

TEST(KernelPolicy, ARuleThatExcludesTheQueueDeviceForAnotherDeviceIsAnError) {
  std::string policy = writePolicy("version: 1\nkernels:\n  - match: \"io*\"\n    devices: fault\n");
  ChildResult child = runChildTest("KernelPolicyChild.IotaOnTheHostIsAPlacementError",
                                   {{"DPK_CONFIG", policy}});
  ASSERT_EQ(child.exitCode, 0) << child.output;
}

// FallbackTest.cpp - fallback to the host under injected failures of the fault test plugin, in
// all three modes. Each case runs in a child process (the policy is read once per process).
#include "DpkTest.h"
#include "HostKernels.h"
#include "Subprocess.h"
#include "TextCount.h"

#include <cstring>
#include <string>
#include <vector>

using namespace dpk::test;

namespace {

constexpr uint64_t N = 4096;
constexpr int32_t Sentinel = -7;

/// Runs iota twice then add(3) on the fault device, on device memory of the fault device.
/// Returns the launch status of the first failing launch (or success) and the data read back.
dpk_status_t runOnFaultDevice(std::vector<int32_t> &out, std::string &error) {
  dpk_device_t fault = findDevice("fault");
  if (!fault) {
    error = "no fault device";
    return DPK_ERROR_NO_DEVICE;
  }
  dpk_program_t program;
  dpk_kernel_t iota, add;
  dpk_queue_t queue;
  void *x = nullptr;
  if (dpk_program_create_from_host(&program, TestKernels, NumTestKernels) ||
      dpk_kernel_get(&iota, program, "iota") || dpk_kernel_get(&add, program, "add") ||
      dpk_queue_create(&queue, fault, 0) || dpk_mem_alloc(&x, fault, DPK_MEM_DEVICE, N * 4)) {
    error = dpk_last_error();
    return DPK_ERROR_GENERIC;
  }
  int32_t sentinel = Sentinel;
  dpk_enqueue_fill(nullptr, queue, x, &sentinel, 4, N * 4, 0, nullptr);
  dpk_arg_t arg = pointerArg(x);
  int32_t three = 3;
  dpk_arg_t addArgs[] = {pointerArg(x), scalarArg(&three)};
  dpk_launch_config_t range = range1d(N);
  dpk_status_t status = DPK_SUCCESS;
  for (int round = 0; round < 2 && status == DPK_SUCCESS; ++round)
    status = dpk_enqueue_launch(nullptr, queue, iota, &range, 1, &arg, 0, nullptr);
  if (status == DPK_SUCCESS)
    status = dpk_enqueue_launch(nullptr, queue, add, &range, 2, addArgs, 0, nullptr);
  if (status != DPK_SUCCESS)
    error = dpk_last_error();
  if (status == DPK_SUCCESS)
    status = dpk_queue_wait(queue);
  out.assign(N, 0);
  ::unsetenv("DPK_FAULT_INJECT"); // read the data back whatever was injected
  dpk_enqueue_copy(nullptr, queue, out.data(), x, N * 4, 0, nullptr);
  dpk_queue_wait(queue);
  dpk_mem_free(x);
  dpk_queue_release(queue);
  dpk_kernel_release(iota);
  dpk_kernel_release(add);
  dpk_program_release(program);
  return status;
}

} // namespace

// ---- children ------------------------------------------------------------------------------

TEST(FallbackChild, KernelRunsAndResultIsCorrect) {
  DPK_CHILD_ONLY();
  std::vector<int32_t> out;
  std::string error;
  ASSERT_EQ(runOnFaultDevice(out, error), DPK_SUCCESS) << error;
  for (uint64_t i = 0; i < N; ++i)
    ASSERT_EQ(out[i], static_cast<int32_t>(i + 3)) << "at " << i;
}

TEST(FallbackChild, DeniedFailureIsATypedErrorAndLeavesNoOutput) {
  DPK_CHILD_ONLY();
  std::vector<int32_t> out;
  std::string error;
  dpk_status_t status = runOnFaultDevice(out, error);
  const char *expected = std::getenv("EXPECT_STATUS");
  ASSERT_STREQ(dpk_status_name(status), expected) << error;
  EXPECT_NE(error.find("'iota'"), std::string::npos) << error;
  EXPECT_NE(error.find("fault:gpu:0"), std::string::npos) << error;
  EXPECT_NE(error.find("injected"), std::string::npos) << error;
  for (uint64_t i = 0; i < N; ++i)
    ASSERT_EQ(out[i], Sentinel) << "partial output at " << i;
}

TEST(FallbackChild, NoMatchingDevice) {
  DPK_CHILD_ONLY();
  dpk_device_t device = nullptr;
  dpk_status_t status = dpk_device_select(&device, nullptr);
  ASSERT_STREQ(dpk_status_name(status), std::getenv("EXPECT_STATUS")) << dpk_last_error();
  if (status != DPK_SUCCESS)
    return;
  dpk_device_info_t info{};
  info.struct_size = sizeof(info);
  DPK_ASSERT_OK(dpk_device_get_info(&info, device));
  EXPECT_STREQ(info.backend, "host");
}

// ---- parents ------------------------------------------------------------------------------

TEST(Fallback, CompileFailureUnderWarnRunsOnHostWithOneWarning) {
  ChildResult child = runChildTest("FallbackChild.KernelRunsAndResultIsCorrect",
                                   {{"DPK_FALLBACK", "warn"}, {"DPK_FAULT_INJECT", "compile"}});
  ASSERT_EQ(child.exitCode, 0) << child.output;
  // Two kernels failed (iota twice, add once): one warning per (kernel, device, reason).
  EXPECT_EQ(countOf(child.output, "dpk warning:"), 2u) << child.output;
  EXPECT_NE(child.output.find("iota"), std::string::npos) << child.output;
}

TEST(Fallback, LaunchFailureUnderAllowRunsSilently) {
  ChildResult child = runChildTest("FallbackChild.KernelRunsAndResultIsCorrect",
                                   {{"DPK_FALLBACK", "allow"}, {"DPK_FAULT_INJECT", "launch"}});
  ASSERT_EQ(child.exitCode, 0) << child.output;
  EXPECT_EQ(countOf(child.output, "dpk warning:"), 0u) << child.output;
}

TEST(Fallback, LaunchFailureUnderWarnAtDiagnosticsLevelOneRecordsEveryLaunch) {
  ChildResult child = runChildTest("FallbackChild.KernelRunsAndResultIsCorrect",
                                   {{"DPK_FALLBACK", "warn"}, {"DPK_FAULT_INJECT", "launch"},
                                    {"DPK_DIAGNOSTICS", "1"}});
  ASSERT_EQ(child.exitCode, 0) << child.output;
  EXPECT_GE(countOf(child.output, "kernel.launch"), 3u) << child.output;
  EXPECT_NE(child.output.find("fallback"), std::string::npos) << child.output;
}

TEST(Fallback, CompileFailureUnderDenyIsATypedError) {
  ChildResult child =
      runChildTest("FallbackChild.DeniedFailureIsATypedErrorAndLeavesNoOutput",
                   {{"DPK_FALLBACK", "deny"}, {"DPK_FAULT_INJECT", "compile"},
                    {"EXPECT_STATUS", "DPK_ERROR_COMPILE"}});
  EXPECT_EQ(child.exitCode, 0) << child.output;
}

TEST(Fallback, LaunchFailureUnderDenyIsATypedError) {
  ChildResult child =
      runChildTest("FallbackChild.DeniedFailureIsATypedErrorAndLeavesNoOutput",
                   {{"DPK_FALLBACK", "deny"}, {"DPK_FAULT_INJECT", "launch"},
                    {"EXPECT_STATUS", "DPK_ERROR_LAUNCH"}});
  EXPECT_EQ(child.exitCode, 0) << child.output;
}

// The default selection (a NULL filter: where work goes when the caller names no device) falls
// back to the host when the policy's own selector matches nothing and its fallback allows it.
TEST(Fallback, NoMatchingDeviceFallsBackToTheHostOrFails) {
  ChildResult warn = runChildTest("FallbackChild.NoMatchingDevice",
                                  {{"DPK_DEVICE_SELECTOR", "cuda:gpu"}, {"DPK_FALLBACK", "warn"},
                                   {"EXPECT_STATUS", "DPK_SUCCESS"}});
  EXPECT_EQ(warn.exitCode, 0) << warn.output;
  EXPECT_EQ(countOf(warn.output, "dpk warning:"), 1u) << warn.output;
  EXPECT_NE(warn.output.find("no device for work selected by default"), std::string::npos)
      << warn.output;
  EXPECT_EQ(warn.output.find("kernel '(device selection)'"), std::string::npos) << warn.output;
  ChildResult deny = runChildTest("FallbackChild.NoMatchingDevice",
                                  {{"DPK_DEVICE_SELECTOR", "cuda:gpu"}, {"DPK_FALLBACK", "deny"},
                                   {"EXPECT_STATUS", "DPK_ERROR_NO_DEVICE"}});
  EXPECT_EQ(deny.exitCode, 0) << deny.output;
}

// ---- IR kernels fall back too (compiled again, for the host) --------------------------------

TEST(FallbackChild, IrKernelRunsAndResultIsCorrect) {
  DPK_CHILD_ONLY();
  const char *ir = "kernel @twice(%x: ptr<global, i32>) {\n"
                   "  %i = global_id 0 : i64\n"
                   "  %v = load %x[%i] : i32\n"
                   "  %w = add %v, %v : i32\n"
                   "  store %x[%i], %w\n"
                   "  return\n"
                   "}\n";
  DPK_REQUIRE_DEVICE(fault, "fault");
  dpk_program_t program;
  dpk_kernel_t kernel;
  dpk_queue_t queue;
  void *x = nullptr;
  DPK_ASSERT_OK(dpk_program_create_from_ir(&program, ir, std::strlen(ir), "twice.dpkir"));
  DPK_ASSERT_OK(dpk_kernel_get(&kernel, program, "twice"));
  DPK_ASSERT_OK(dpk_queue_create(&queue, fault, 0));
  DPK_ASSERT_OK(dpk_mem_alloc(&x, fault, DPK_MEM_DEVICE, N * 4));
  std::vector<int32_t> in(N), out(N);
  for (uint64_t i = 0; i < N; ++i)
    in[i] = static_cast<int32_t>(i);
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, queue, x, in.data(), N * 4, 0, nullptr));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t config = ndRange1d(N, 64);
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, kernel, &config, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, queue, out.data(), x, N * 4, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  for (uint64_t i = 0; i < N; ++i)
    ASSERT_EQ(out[i], static_cast<int32_t>(2 * i)) << "at " << i;
  dpk_mem_free(x);
  dpk_queue_release(queue);
  dpk_kernel_release(kernel);
  dpk_program_release(program);
}

TEST(Fallback, IrKernelCompileFailureUnderWarnRunsOnHost) {
  ChildResult child = runChildTest("FallbackChild.IrKernelRunsAndResultIsCorrect",
                                   {{"DPK_FALLBACK", "warn"}, {"DPK_FAULT_INJECT", "compile"}});
  ASSERT_EQ(child.exitCode, 0) << child.output;
  EXPECT_EQ(countOf(child.output, "dpk warning:"), 1u) << child.output;
  EXPECT_NE(child.output.find("'twice'"), std::string::npos) << child.output;
}

// ---- diagnostics records of the runtime, through the C callback ----------------------------

namespace {
void collectRecord(int, const char *json, void *payload) {
  static_cast<std::vector<std::string> *>(payload)->push_back(json);
}
} // namespace

TEST(DiagnosticsChild, LaunchAndTransferRecordsAtLevelThree) {
  DPK_CHILD_ONLY();
  std::vector<std::string> records;
  DPK_ASSERT_OK(dpk_diagnostics_set_callback(&collectRecord, &records));
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_program_t program;
  dpk_kernel_t iota;
  dpk_queue_t queue;
  void *x = nullptr;
  DPK_ASSERT_OK(dpk_program_create_from_host(&program, TestKernels, NumTestKernels));
  DPK_ASSERT_OK(dpk_kernel_get(&iota, program, "iota"));
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  DPK_ASSERT_OK(dpk_mem_alloc(&x, host, DPK_MEM_DEVICE, 256 * 4));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t config = ndRange1d(256, 32);
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, iota, &config, 1, &arg, 0, nullptr));
  std::vector<int32_t> out(256);
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, queue, out.data(), x, 256 * 4, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  DPK_ASSERT_OK(dpk_diagnostics_set_callback(nullptr, nullptr));
  bool sawLaunch = false, sawTransfer = false;
  for (const std::string &record : records) {
    if (record.find("\"event\":\"kernel.launch\"") != std::string::npos) {
      sawLaunch = true;
      EXPECT_NE(record.find("\"kernel\":\"iota\""), std::string::npos) << record;
      EXPECT_NE(record.find("\"device\":\"host:cpu:0\""), std::string::npos) << record;
      EXPECT_NE(record.find("\"global\":\"256\""), std::string::npos) << record;
      EXPECT_NE(record.find("\"local\":\"32\""), std::string::npos) << record;
      EXPECT_NE(record.find("\"time_ms\":"), std::string::npos) << record;
    }
    if (record.find("\"event\":\"transfer\"") != std::string::npos) {
      sawTransfer = true;
      EXPECT_NE(record.find("\"direction\":\"d2h\""), std::string::npos) << record;
      EXPECT_NE(record.find("\"bytes\":1024"), std::string::npos) << record;
    }
  }
  EXPECT_TRUE(sawLaunch);
  EXPECT_TRUE(sawTransfer);
  dpk_mem_free(x);
  dpk_queue_release(queue);
  dpk_kernel_release(iota);
  dpk_program_release(program);
}

TEST(Diagnostics, LaunchAndTransferRecordsAtLevelThree) {
  ChildResult child = runChildTest("DiagnosticsChild.LaunchAndTransferRecordsAtLevelThree",
                                   {{"DPK_DIAGNOSTICS", "3"}});
  EXPECT_EQ(child.exitCode, 0) << child.output;
}

// ---- a filter naming a backend whose plugin failed to load ---------------------------------

TEST(FallbackChild, SelectBackendWhosePluginFailed) {
  DPK_CHILD_ONLY();
  dpk_device_t device = nullptr;
  dpk_status_t status = dpk_device_select(&device, "missingdep");
  ASSERT_STREQ(dpk_status_name(status), std::getenv("EXPECT_STATUS")) << dpk_last_error();
  if (status != DPK_SUCCESS) {
    EXPECT_TRUE(lastErrorHas("missing dependency libdpk_test_unreachable.so")) << dpk_last_error();
    return;
  }
  dpk_device_info_t info{};
  info.struct_size = sizeof(info);
  DPK_ASSERT_OK(dpk_device_get_info(&info, device));
  EXPECT_STREQ(info.backend, "host");
}

TEST(Fallback, PluginLoadFailureNamesTheMissingLibraryOrFallsBack) {
  std::string plugins = std::string(DPK_REAL_PLUGIN_DIR) + "/libdpk_backend_host.so:" +
                        DPK_TEST_PLUGIN_DIR + "/libdpk_backend_missingdep.so";
  ChildResult deny = runChildTest("FallbackChild.SelectBackendWhosePluginFailed",
                                  {{"DPK_FORCE_PLUGINS", plugins}, {"DPK_FALLBACK", "deny"},
                                   {"EXPECT_STATUS", "DPK_ERROR_PLUGIN_LOAD"}});
  EXPECT_EQ(deny.exitCode, 0) << deny.output;
  // Naming a backend is asking for it: fallback governs where work runs, not which device
  // exists, so the answer is the same under warn (and nothing is printed).
  ChildResult warn = runChildTest("FallbackChild.SelectBackendWhosePluginFailed",
                                  {{"DPK_FORCE_PLUGINS", plugins}, {"DPK_FALLBACK", "warn"},
                                   {"EXPECT_STATUS", "DPK_ERROR_PLUGIN_LOAD"}});
  EXPECT_EQ(warn.exitCode, 0) << warn.output;
  EXPECT_EQ(countOf(warn.output, "dpk warning:"), 0u) << warn.output;
}

// ---- explicit selection of a device that does not exist -----------------------------------

TEST(FallbackChild, NamedFilterMatchesNothing) {
  DPK_CHILD_ONLY();
  for (const char *filter : {"accelerator", "host:cpu:1", "fault:gpu:5", "opencl:cpu:5",
                             "cuda:gpu"}) {
    SCOPED_TRACE(filter);
    dpk_device_t device = nullptr;
    DPK_EXPECT_STATUS(dpk_device_select(&device, filter), DPK_ERROR_NO_DEVICE);
    EXPECT_EQ(device, nullptr); // untouched
    // The message says what was asked and lists the devices present, as dpctl does.
    EXPECT_TRUE(lastErrorHas(std::string("no device matches '") + filter + "'"))
        << dpk_last_error();
    EXPECT_TRUE(lastErrorHas("host:cpu:0")) << dpk_last_error();
    EXPECT_TRUE(lastErrorHas("fault:gpu:0")) << dpk_last_error();
  }
  // Devices that exist are still found, by every form of filter.
  for (const char *filter : {"host", "HOST", "gpu,cpu", "fault:gpu:0", "!fault:*"}) {
    dpk_device_t device = nullptr;
    DPK_EXPECT_STATUS(dpk_device_select(&device, filter), DPK_SUCCESS);
  }
}

TEST(Fallback, ExplicitSelectionOfAMissingDeviceIsNoDeviceUnderEveryMode) {
  for (const char *mode : {"warn", "allow", "deny"}) {
    ChildResult child = runChildTest("FallbackChild.NamedFilterMatchesNothing",
                                     {{"DPK_FALLBACK", mode}});
    EXPECT_EQ(child.exitCode, 0) << mode << ": " << child.output;
    EXPECT_EQ(countOf(child.output, "dpk warning:"), 0u) << child.output;
    EXPECT_EQ(child.output.find("(device selection)"), std::string::npos) << child.output;
  }
}

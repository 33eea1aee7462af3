// CudaFakeDriverCapiTest.cpp - the C API on the CUDA plugin over the fake driver: the device is
// found, a program built from dpk IR (the core's PTX, loaded by the fake's cuModuleLoadDataEx)
// launches and is waited for, planned launches still reach the driver, and argument errors,
// launch refusals and asynchronous faults come back with their messages.
#include "FakeDriverTestSupport.h"

#include "dpk/dpk.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

using fake_driver_test::FakeDriver;

namespace {

const char *const EmptyIr =
    "kernel @empty(%a: ptr<global, f32>, %b: ptr<global, f32>, %c: ptr<global, f32>,"
    " %d: ptr<global, f32>) {\n  return\n}\n";

constexpr int CudaErrorIllegalAddress = 700;
constexpr int CudaErrorLaunchFailed = 719;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// A queue on the fake CUDA device and the empty kernel built from IR, with four buffers.
class FakeCudaCapi : public ::testing::Test {
protected:
  FakeDriver driver;
  dpk_device_t device = nullptr;
  dpk_queue_t queue = nullptr;
  dpk_program_t program = nullptr;
  dpk_kernel_t kernel = nullptr;
  void *buffers[4] = {};
  dpk_arg_t args[4] = {};
  dpk_launch_config_t range{1, {1000, 1, 1}, {0, 0, 0}};

  void SetUp() override {
    ASSERT_EQ(dpk_device_select(&device, "cuda:gpu"), DPK_SUCCESS) << dpk_last_error();
    dpk_device_info_t info{};
    info.struct_size = sizeof(info);
    ASSERT_EQ(dpk_device_get_info(&info, device), DPK_SUCCESS) << dpk_last_error();
    ASSERT_STREQ(info.filter_string, "cuda:gpu:0");
    driver = FakeDriver::find();
    ASSERT_TRUE(driver.loaded()) << "the plugin did not load " DPK_FAKE_CUDA_PATH;
    ASSERT_EQ(dpk_queue_create(&queue, device, DPK_QUEUE_IN_ORDER), DPK_SUCCESS)
        << dpk_last_error();
    ASSERT_EQ(dpk_program_create_from_ir(&program, EmptyIr, std::strlen(EmptyIr), "empty"),
              DPK_SUCCESS)
        << dpk_last_error();
    ASSERT_EQ(dpk_kernel_get(&kernel, program, "empty"), DPK_SUCCESS) << dpk_last_error();
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(dpk_mem_alloc(&buffers[i], device, DPK_MEM_DEVICE, 256), DPK_SUCCESS)
          << dpk_last_error();
      args[i] = {DPK_ARG_POINTER, 0, buffers[i]};
    }
  }

  void TearDown() override {
    for (void *buffer : buffers)
      if (buffer)
        dpk_mem_free(buffer);
    if (kernel)
      dpk_kernel_release(kernel);
    if (program)
      dpk_program_release(program);
    if (queue)
      dpk_queue_release(queue);
  }

  dpk_status_t launch(uint32_t count = 4, const dpk_arg_t *given = nullptr) {
    return dpk_enqueue_launch(nullptr, queue, kernel, &range, count, given ? given : args, 0,
                              nullptr);
  }
};

TEST_F(FakeCudaCapi, IrKernelLaunchesAndIsWaitedFor) {
  ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
  ASSERT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
  FakeCudaLaunch last = driver.lastLaunch();
  EXPECT_STREQ(last.function, "empty"); // the .entry of the core's PTX
  EXPECT_EQ(last.num_params, 4u);
  EXPECT_EQ(uint64_t(last.grid[0]) * last.block[0], 1000u);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(last.param_values[i], reinterpret_cast<uintptr_t>(buffers[i]));

  // Launches with a plan (the same shape again) reach the driver as the first did.
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
  ASSERT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
  EXPECT_EQ(driver.lastLaunch().count, last.count + 3);
  dpk_event_t event = nullptr;
  ASSERT_EQ(dpk_enqueue_launch(&event, queue, kernel, &range, 4, args, 0, nullptr), DPK_SUCCESS)
      << dpk_last_error();
  EXPECT_EQ(dpk_event_wait(1, &event), DPK_SUCCESS) << dpk_last_error();
  dpk_event_release(event);
}

// An NdRange launch gets PTX built for its work-group shape (`.maxntid`: ptxas fits the
// registers to it), a Range launch the generic build.
TEST_F(FakeCudaCapi, NdRangeLaunchesGetPtxForTheirGroupShape) {
  ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
  ASSERT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
  std::string generic = driver.lastModule();
  EXPECT_TRUE(contains(generic, ".entry empty")) << generic;
  EXPECT_FALSE(contains(generic, ".maxntid")) << generic;
  range.local_size[0] = 250;
  ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
  ASSERT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
  std::string shaped = driver.lastModule();
  EXPECT_TRUE(contains(shaped, ".maxntid 250, 1, 1")) << shaped;
  EXPECT_EQ(driver.lastLaunch().block[0], 250u);
}

TEST_F(FakeCudaCapi, SubGroupsAreWarps) {
  uint32_t size = 0;
  ASSERT_EQ(dpk_device_get_sub_group_size(&size, device), DPK_SUCCESS) << dpk_last_error();
  EXPECT_EQ(size, 32u);
}

TEST_F(FakeCudaCapi, ArgumentErrorsAreReportedBeforeAndAfterAPlan) {
  for (int round = 0; round < 2; ++round) { // round 1: the kernel has a plan for this shape
    EXPECT_EQ(launch(3), DPK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(dpk_last_error()),
              "dpk_enqueue_launch: kernel 'empty' takes 4 parameters (4 launch arguments with views expanded), but 3 "
              "arguments were given (3 expanded)");
    int32_t scalar = 7;
    dpk_arg_t wrongKind[4] = {args[0], {DPK_ARG_SCALAR, sizeof(scalar), &scalar}, args[2],
                              args[3]};
    EXPECT_EQ(launch(4, wrongKind), DPK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(dpk_last_error()),
              "dpk_enqueue_launch: kernel 'empty': argument 1 for parameter 1 ('b': "
              "ptr<global, f32>) must be a pointer, got a scalar");
    ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
    ASSERT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
  }
}

TEST_F(FakeCudaCapi, AsynchronousFaultComesBackAtTheWaitNamingTheKernel) {
  ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
  ASSERT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
  ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
  driver.failNext("cuStreamSynchronize", CudaErrorIllegalAddress);
  EXPECT_EQ(dpk_queue_wait(queue), DPK_ERROR_DEVICE);
  std::string message = dpk_last_error();
  EXPECT_TRUE(contains(message, "CUDA_ERROR_ILLEGAL_ADDRESS")) << message;
  EXPECT_TRUE(contains(message, "'empty'")) << message;
  std::printf("fault: %s\n", message.c_str());
}

TEST_F(FakeCudaCapi, CopiesWithoutAnEventStillReportFaultsAtTheWait) {
  // A copy nobody asks an event for gets no plugin event (core/runtime/Transfer.h); a read is
  // such a copy and a wait. The data still lands, and a fault of the work before it still comes
  // back at the wait, naming the kernel; a copy with an out-event still gets a waitable one.
  uint32_t value = 0x1234567u, got = 0;
  ASSERT_EQ(dpk_enqueue_copy(nullptr, queue, buffers[0], &value, 4, 0, nullptr), DPK_SUCCESS);
  ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
  ASSERT_EQ(dpk_enqueue_copy(nullptr, queue, &got, buffers[0], 4, 0, nullptr), DPK_SUCCESS);
  EXPECT_EQ(got, value);
  driver.failNext("cuStreamSynchronize", CudaErrorIllegalAddress);
  EXPECT_EQ(dpk_queue_wait(queue), DPK_ERROR_DEVICE);
  EXPECT_TRUE(contains(dpk_last_error(), "'empty'")) << dpk_last_error();
  dpk_event_t event = nullptr;
  got = 0;
  ASSERT_EQ(dpk_enqueue_copy(&event, queue, &got, buffers[0], 4, 0, nullptr), DPK_SUCCESS);
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(dpk_event_wait(1, &event), DPK_SUCCESS) << dpk_last_error();
  EXPECT_EQ(got, value);
  EXPECT_EQ(dpk_event_release(event), DPK_SUCCESS);
  EXPECT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
}

TEST_F(FakeCudaCapi, DriverRefusalAtLaunchIsReported) {
  ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
  driver.failNext("cuLaunchKernel", CudaErrorLaunchFailed);
  dpk_status_t status = launch();
  std::string message = dpk_last_error();
  // Only the CUDA plugin is loaded, so the policy's host fallback has nowhere to run.
  EXPECT_EQ(status, DPK_ERROR_DEVICE); // CUDA_ERROR_LAUNCH_FAILED is a device fault
  EXPECT_TRUE(contains(message, "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED (719)")) << message;
  EXPECT_TRUE(contains(message, "kernel 'empty'")) << message;
  std::printf("refused launch: %s: %s\n", dpk_status_name(status), message.c_str());
  ASSERT_EQ(launch(), DPK_SUCCESS) << dpk_last_error();
  ASSERT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
}

} // namespace

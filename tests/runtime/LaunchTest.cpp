// LaunchTest.cpp - range validation (each message names the dimension and the numbers),
// NdRange launches of work-group kernels, and device limits.
#include "DpkTest.h"
#include "HostKernels.h"

#include <cstdlib>
#include <vector>

using namespace dpk::test;

namespace {

class Launch : public ::testing::Test {
protected:
  void SetUp() override {
    host_ = findDevice("host");
    if (!host_)
      GTEST_SKIP() << "no host device: " << dpk_last_error();
    DPK_ASSERT_OK(dpk_program_create_from_host(&program_, TestKernels, NumTestKernels));
    DPK_ASSERT_OK(dpk_kernel_get(&iota_, program_, "iota"));
    DPK_ASSERT_OK(dpk_kernel_get(&groups_, program_, "group_ids"));
    DPK_ASSERT_OK(dpk_queue_create(&queue_, host_, 0));
    DPK_ASSERT_OK(dpk_mem_alloc(&buffer_, host_, DPK_MEM_SHARED, 1 << 20));
  }
  void TearDown() override {
    if (buffer_)
      dpk_mem_free(buffer_);
    if (queue_)
      dpk_queue_release(queue_);
    if (iota_)
      dpk_kernel_release(iota_);
    if (groups_)
      dpk_kernel_release(groups_);
    if (program_)
      dpk_program_release(program_);
  }
  dpk_status_t launch(dpk_kernel_t kernel, const dpk_launch_config_t &config) {
    dpk_arg_t arg = pointerArg(buffer_);
    return dpk_enqueue_launch(nullptr, queue_, kernel, &config, 1, &arg, 0, nullptr);
  }

  dpk_device_t host_ = nullptr;
  dpk_program_t program_ = nullptr;
  dpk_kernel_t iota_ = nullptr, groups_ = nullptr;
  dpk_queue_t queue_ = nullptr;
  void *buffer_ = nullptr;
};

} // namespace

TEST_F(Launch, NdRangeRunsEveryWorkGroup) {
  DPK_ASSERT_OK(launch(groups_, ndRange1d(1024, 64)));
  DPK_ASSERT_OK(dpk_queue_wait(queue_));
  const int32_t *out = static_cast<const int32_t *>(buffer_);
  for (uint64_t g = 0; g < 16; ++g)
    for (uint64_t l = 0; l < 64; ++l)
      ASSERT_EQ(out[g * 64 + l], static_cast<int32_t>(g * 1000 + l));
}

TEST_F(Launch, TwoAndThreeDimensionalRanges) {
  dpk_launch_config_t two = {2, {16, 32, 0}, {0, 0, 0}};
  DPK_ASSERT_OK(launch(iota_, two));
  dpk_launch_config_t three = {3, {4, 8, 16}, {2, 4, 8}};
  DPK_ASSERT_OK(launch(iota_, three));
  DPK_ASSERT_OK(dpk_queue_wait(queue_));
  const int32_t *out = static_cast<const int32_t *>(buffer_);
  for (int i = 0; i < 4 * 8 * 16; ++i)
    ASSERT_EQ(out[i], i);
}

TEST_F(Launch, BadDimensionsAreRejected) {
  dpk_launch_config_t none = {0, {1, 1, 1}, {0, 0, 0}};
  DPK_EXPECT_STATUS(launch(iota_, none), DPK_ERROR_INVALID_RANGE);
  EXPECT_TRUE(lastErrorHas("dims is 0")) << dpk_last_error();
  dpk_launch_config_t four = {4, {1, 1, 1}, {0, 0, 0}};
  DPK_EXPECT_STATUS(launch(iota_, four), DPK_ERROR_INVALID_RANGE);
}

// An empty range (a global size of 0, as SYCL and kapi allow) is a launch of no work-items: it
// succeeds, runs nothing and its event is complete. Range and NdRange, 1 to 3 dimensions.
TEST_F(Launch, EmptyRangesRunNothingAndSucceed) {
  int32_t sentinel = -5;
  DPK_ASSERT_OK(dpk_enqueue_fill(nullptr, queue_, buffer_, &sentinel, 4, 4096, 0, nullptr));
  const dpk_launch_config_t empties[] = {
      {1, {0, 0, 0}, {0, 0, 0}},  {2, {8, 0, 0}, {0, 0, 0}},  {3, {0, 4, 4}, {0, 0, 0}},
      {1, {0, 0, 0}, {4, 0, 0}},  {2, {0, 8, 0}, {2, 4, 0}},  {3, {2, 2, 0}, {1, 1, 1}},
  };
  for (const dpk_launch_config_t &range : empties) {
    dpk_event_t event = nullptr;
    dpk_arg_t arg = pointerArg(buffer_);
    DPK_ASSERT_OK(dpk_enqueue_launch(&event, queue_, iota_, &range, 1, &arg, 0, nullptr));
    ASSERT_NE(event, nullptr);
    dpk_event_status_t status;
    DPK_ASSERT_OK(dpk_event_status(&status, event));
    EXPECT_EQ(status, DPK_EVENT_COMPLETE);
    DPK_EXPECT_STATUS(dpk_event_wait(1, &event), DPK_SUCCESS);
    DPK_ASSERT_OK(dpk_event_release(event));
    DPK_ASSERT_OK(launch(groups_, range)); // without an out-event too
  }
  DPK_ASSERT_OK(dpk_queue_wait(queue_));
  const int32_t *out = static_cast<const int32_t *>(buffer_);
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(out[i], sentinel) << "an empty launch wrote element " << i;
}

TEST_F(Launch, EmptyRangesAreStillCheckedAndOrdered) {
  // The other rules still hold: local sizes all or none, dividing the global size.
  dpk_launch_config_t partialLocal = {2, {0, 8, 0}, {4, 0, 0}};
  DPK_EXPECT_STATUS(launch(iota_, partialLocal), DPK_ERROR_INVALID_RANGE);
  dpk_launch_config_t notDividing = {2, {0, 10, 0}, {1, 3, 0}};
  DPK_EXPECT_STATUS(launch(iota_, notDividing), DPK_ERROR_INVALID_RANGE);
  EXPECT_TRUE(lastErrorHas("local size 3 does not divide global size 10")) << dpk_last_error();
  dpk_launch_config_t empty = range1d(0);
  // Its event completes after everything before it on the (in-order) queue.
  dpk_event_t before = nullptr, after = nullptr;
  dpk_arg_t arg = pointerArg(buffer_);
  dpk_launch_config_t full = range1d(1 << 18);
  DPK_ASSERT_OK(dpk_enqueue_launch(&before, queue_, iota_, &full, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_launch(&after, queue_, iota_, &empty, 1, &arg, 1, &before));
  dpk_event_status_t status;
  DPK_ASSERT_OK(dpk_event_status(&status, before));
  EXPECT_EQ(status, DPK_EVENT_COMPLETE);
  DPK_ASSERT_OK(dpk_event_release(before));
  DPK_ASSERT_OK(dpk_event_release(after));
}

TEST(EmptyLaunch, NeverReachesThePlugin) {
  // With every launch of the fault device failing, an empty one still succeeds: no plugin sees
  // an empty range (the plugin boundary rejects them).
  DPK_REQUIRE_DEVICE(fault, "fault");
  dpk_program_t program;
  dpk_kernel_t iota;
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_program_create_from_host(&program, TestKernels, NumTestKernels));
  DPK_ASSERT_OK(dpk_kernel_get(&iota, program, "iota"));
  DPK_ASSERT_OK(dpk_queue_create(&queue, fault, 0));
  void *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&x, fault, DPK_MEM_DEVICE, 64));
  ::setenv("DPK_FAULT_INJECT", "launch", 1); // read by the plugin at each call
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t empty = {2, {0, 16, 0}, {0, 0, 0}};
  dpk_event_t event = nullptr;
  dpk_status_t status = dpk_enqueue_launch(&event, queue, iota, &empty, 1, &arg, 0, nullptr);
  ::unsetenv("DPK_FAULT_INJECT");
  DPK_EXPECT_STATUS(status, DPK_SUCCESS);
  if (event)
    DPK_EXPECT_STATUS(dpk_event_wait(1, &event), DPK_SUCCESS);
  dpk_event_release(event);
  DPK_EXPECT_STATUS(dpk_queue_wait(queue), DPK_SUCCESS);
  dpk_mem_free(x);
  dpk_queue_release(queue);
  dpk_kernel_release(iota);
  dpk_program_release(program);
}

TEST_F(Launch, LocalSizeMustDivideGlobalSize) {
  dpk_launch_config_t config = {2, {64, 10, 0}, {8, 3, 0}};
  DPK_EXPECT_STATUS(launch(iota_, config), DPK_ERROR_INVALID_RANGE);
  EXPECT_TRUE(lastErrorHas("local size 3 does not divide global size 10 in dimension 1"))
      << dpk_last_error();
  EXPECT_TRUE(lastErrorHas("kernel 'iota'")) << dpk_last_error();
}

TEST_F(Launch, LocalSizesAreAllOrNothing) {
  dpk_launch_config_t config = {2, {64, 64, 0}, {8, 0, 0}};
  DPK_EXPECT_STATUS(launch(iota_, config), DPK_ERROR_INVALID_RANGE);
  EXPECT_TRUE(lastErrorHas("local size of dimension 1 is 0")) << dpk_last_error();
}

TEST_F(Launch, DeviceLimitsAreChecked) {
  dpk_device_info_t info{};
  info.struct_size = sizeof(info);
  DPK_ASSERT_OK(dpk_device_get_info(&info, host_));
  uint64_t tooWide = info.max_work_item_sizes[0] * 2;
  dpk_launch_config_t wide = {1, {tooWide * 2, 0, 0}, {tooWide, 0, 0}};
  DPK_EXPECT_STATUS(launch(iota_, wide), DPK_ERROR_INVALID_RANGE);
  EXPECT_TRUE(lastErrorHas("exceeds the device's maximum")) << dpk_last_error();

  dpk_arg_t args[] = {pointerArg(buffer_), {DPK_ARG_LOCAL, info.local_mem_size + 1, nullptr}};
  dpk_launch_config_t range = range1d(64);
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue_, iota_, &range, 2, args, 0, nullptr),
                    DPK_ERROR_INVALID_RANGE);
  EXPECT_TRUE(lastErrorHas("local memory")) << dpk_last_error();
}

// The placement check skips its lookup while at most one device holds device memory
// (AllocationTable's owner summary): it must still catch a foreign pointer as allocations come
// and go on one device, then on two, then on one again.
TEST_F(Launch, PlacementCheckFollowsWhichDevicesHoldMemory) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  dpk_queue_t faultQueue;
  DPK_ASSERT_OK(dpk_queue_create(&faultQueue, fault, 0));
  dpk_launch_config_t range = range1d(64);
  auto launchOn = [&](dpk_queue_t queue, void *pointer) {
    dpk_arg_t arg = pointerArg(pointer);
    dpk_status_t status = dpk_enqueue_launch(nullptr, queue, iota_, &range, 1, &arg, 0, nullptr);
    return status == DPK_SUCCESS ? dpk_queue_wait(queue) : status;
  };
  void *onHost = nullptr, *onFault = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&onFault, fault, DPK_MEM_DEVICE, 256));
  DPK_EXPECT_STATUS(launchOn(faultQueue, onFault), DPK_SUCCESS); // the only owner: no lookup
  DPK_ASSERT_OK(dpk_mem_alloc(&onHost, host_, DPK_MEM_DEVICE, 256));
  DPK_EXPECT_STATUS(launchOn(faultQueue, onHost), DPK_ERROR_PLACEMENT); // two owners
  DPK_EXPECT_STATUS(launchOn(faultQueue, onFault), DPK_SUCCESS);
  DPK_ASSERT_OK(dpk_mem_free(onFault));
  DPK_EXPECT_STATUS(launchOn(faultQueue, onHost), DPK_ERROR_PLACEMENT); // the host alone owns
  DPK_EXPECT_STATUS(launchOn(queue_, onHost), DPK_SUCCESS);
  DPK_ASSERT_OK(dpk_mem_free(onHost));
  DPK_ASSERT_OK(dpk_queue_release(faultQueue));
}

TEST_F(Launch, ArgumentInAnotherDevicesMemoryIsAPlacementError) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  // The fault device accepts host-native code, so this runs; a placement error names the
  // argument when the data lives on another device.
  dpk_queue_t faultQueue;
  DPK_ASSERT_OK(dpk_queue_create(&faultQueue, fault, 0));
  void *hostDeviceMemory = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&hostDeviceMemory, host_, DPK_MEM_DEVICE, 256));
  dpk_arg_t arg = pointerArg(hostDeviceMemory);
  dpk_launch_config_t range = range1d(64);
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, faultQueue, iota_, &range, 1, &arg, 0, nullptr),
                    DPK_ERROR_PLACEMENT);
  EXPECT_TRUE(lastErrorHas("argument 0 points to device memory of")) << dpk_last_error();
  DPK_ASSERT_OK(dpk_mem_free(hostDeviceMemory));
  DPK_ASSERT_OK(dpk_queue_release(faultQueue));
}

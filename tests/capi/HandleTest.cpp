// HandleTest.cpp - released, double-released and forged handles of every table-managed object
// (queue, event, program, kernel) are DPK_ERROR_INVALID_HANDLE, never a use of freed memory, and
// the runtime goes on working after such a mistake (issue 15, G).
#include "DpkTest.h"
#include "HostKernels.h"

#include <cstdint>
#include <thread>
#include <vector>

using namespace dpk::test;

namespace {

template <typename Handle> Handle forged(uintptr_t value) {
  return reinterpret_cast<Handle>(value);
}

} // namespace

// The reproducer: launch with an out event, wait, release it twice, launch 100 more,
// wait for the queue. Before the handle table the second release returned success and the queue
// later read the freed event (a deadlock on the host, heap corruption on OpenCL).
TEST(Handles, EventDoubleReleaseIsAnErrorAndTheQueueGoesOn) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  dpk_program_t program;
  DPK_ASSERT_OK(dpk_program_create_from_host(&program, TestKernels, NumTestKernels));
  dpk_kernel_t iota;
  DPK_ASSERT_OK(dpk_kernel_get(&iota, program, "iota"));
  void *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&x, host, DPK_MEM_SHARED, 64 * sizeof(int32_t)));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(64);

  dpk_event_t event = nullptr;
  DPK_ASSERT_OK(dpk_enqueue_launch(&event, queue, iota, &range, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_event_wait(1, &event));
  DPK_ASSERT_OK(dpk_event_release(event));
  DPK_EXPECT_STATUS(dpk_event_release(event), DPK_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(lastErrorHas("already released")) << dpk_last_error();
  DPK_EXPECT_STATUS(dpk_event_wait(1, &event), DPK_ERROR_INVALID_HANDLE);
  dpk_event_status_t status;
  DPK_EXPECT_STATUS(dpk_event_status(&status, event), DPK_ERROR_INVALID_HANDLE);
  DPK_EXPECT_STATUS(dpk_event_retain(event), DPK_ERROR_INVALID_HANDLE);
  for (int i = 0; i < 100; ++i)
    DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, iota, &range, 1, &arg, 0, nullptr));
  // A dependency on the released event is rejected, not waited on.
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue, iota, &range, 1, &arg, 1, &event),
                    DPK_ERROR_INVALID_HANDLE);
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  const int32_t *values = static_cast<const int32_t *>(x);
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(values[i], i);

  DPK_ASSERT_OK(dpk_kernel_release(iota));
  DPK_EXPECT_STATUS(dpk_kernel_release(iota), DPK_ERROR_INVALID_HANDLE);
  DPK_ASSERT_OK(dpk_program_release(program));
  DPK_EXPECT_STATUS(dpk_program_release(program), DPK_ERROR_INVALID_HANDLE);
  dpk_kernel_t again = nullptr;
  DPK_EXPECT_STATUS(dpk_kernel_get(&again, program, "iota"), DPK_ERROR_INVALID_HANDLE);
  EXPECT_EQ(again, nullptr);
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_queue_release(queue));
  DPK_EXPECT_STATUS(dpk_queue_release(queue), DPK_ERROR_INVALID_HANDLE);
  DPK_EXPECT_STATUS(dpk_queue_wait(queue), DPK_ERROR_INVALID_HANDLE);
  EXPECT_EQ(dpk_queue_device(queue), nullptr);
}

TEST(Handles, RetainCountsUserReferences) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  DPK_ASSERT_OK(dpk_queue_retain(queue));
  DPK_ASSERT_OK(dpk_queue_release(queue));
  DPK_ASSERT_OK(dpk_queue_wait(queue)); // one reference left: still live
  DPK_ASSERT_OK(dpk_queue_release(queue));
  DPK_EXPECT_STATUS(dpk_queue_wait(queue), DPK_ERROR_INVALID_HANDLE);
}

TEST(Handles, ARecycledSlotDoesNotReviveAnOldHandle) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t first;
  DPK_ASSERT_OK(dpk_queue_create(&first, host, 0));
  DPK_ASSERT_OK(dpk_queue_release(first));
  // The next queue may reuse the slot; the old handle still names nothing.
  dpk_queue_t second;
  DPK_ASSERT_OK(dpk_queue_create(&second, host, 0));
  EXPECT_NE(first, second);
  DPK_EXPECT_STATUS(dpk_queue_wait(first), DPK_ERROR_INVALID_HANDLE);
  DPK_EXPECT_STATUS(dpk_queue_release(first), DPK_ERROR_INVALID_HANDLE);
  DPK_ASSERT_OK(dpk_queue_wait(second));
  DPK_ASSERT_OK(dpk_queue_release(second));
}

TEST(Handles, ForgedValuesAreRejected) {
  for (uintptr_t value : {uintptr_t(1), uintptr_t(0xdeadbeef), ~uintptr_t(0),
                          uintptr_t(0x7fff00001234)}) {
    DPK_EXPECT_STATUS(dpk_queue_wait(forged<dpk_queue_t>(value)), DPK_ERROR_INVALID_HANDLE);
    DPK_EXPECT_STATUS(dpk_queue_release(forged<dpk_queue_t>(value)), DPK_ERROR_INVALID_HANDLE);
    DPK_EXPECT_STATUS(dpk_event_release(forged<dpk_event_t>(value)), DPK_ERROR_INVALID_HANDLE);
    DPK_EXPECT_STATUS(dpk_program_release(forged<dpk_program_t>(value)),
                      DPK_ERROR_INVALID_HANDLE);
    DPK_EXPECT_STATUS(dpk_kernel_release(forged<dpk_kernel_t>(value)), DPK_ERROR_INVALID_HANDLE);
  }
}

TEST(Handles, ManyThreadsCreateAndReleaseWhileOthersLaunch) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_program_t program;
  DPK_ASSERT_OK(dpk_program_create_from_host(&program, TestKernels, NumTestKernels));
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      dpk_queue_t queue;
      dpk_kernel_t iota;
      if (dpk_queue_create(&queue, host, 0) || dpk_kernel_get(&iota, program, "iota")) {
        ++failures[t];
        return;
      }
      std::vector<int32_t> out(32);
      dpk_arg_t arg = pointerArg(out.data());
      dpk_launch_config_t range = range1d(32);
      for (int i = 0; i < 200; ++i) {
        dpk_event_t event = nullptr;
        failures[t] += dpk_enqueue_launch(&event, queue, iota, &range, 1, &arg, 0, nullptr) != 0;
        failures[t] += dpk_event_wait(1, &event) != 0;
        failures[t] += dpk_event_release(event) != 0;
        failures[t] += dpk_event_release(event) != DPK_ERROR_INVALID_HANDLE;
      }
      failures[t] += dpk_queue_wait(queue) != 0;
      for (int i = 0; i < 32; ++i)
        failures[t] += out[i] != i;
      dpk_kernel_release(iota);
      dpk_queue_release(queue);
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  DPK_ASSERT_OK(dpk_program_release(program));
}

// EventTest.cpp - dependencies between commands on an out-of-order queue, event status, and
// profiling times.
#include "Conformance.h"

namespace dpk::conformance {
namespace {

CONFORMANCE_TEST(OutOfOrderDependencies) {
  constexpr size_t N = 1 << 16;
  dpk_kernel_t kernel = t.corpusKernel("vector_add.dpkir", "vector_add");
  ASSERT_NE(kernel, nullptr);
  dpk_queue_t queue = nullptr;
  dpk_status_t status =
      dpk_queue_create(&queue, t.device, DPK_QUEUE_OUT_OF_ORDER | DPK_QUEUE_PROFILING);
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  void *a = t.alloc(N * 4), *b = t.alloc(N * 4), *c = t.alloc(N * 4);
  float one = 1.0f, two = 2.0f;
  dpk_event_t fillA = nullptr, fillB = nullptr, added = nullptr, addedAgain = nullptr;
  ASSERT_EQ(dpk_enqueue_fill(&fillA, queue, a, &one, 4, N * 4, 0, nullptr), DPK_SUCCESS)
      << dpk_last_error();
  ASSERT_EQ(dpk_enqueue_fill(&fillB, queue, b, &two, 4, N * 4, 0, nullptr), DPK_SUCCESS)
      << dpk_last_error();
  dpk_event_t fills[] = {fillA, fillB};
  dpk_arg_t args[] = {t.pointer(a), t.pointer(b), t.pointer(c)};
  dpk_launch_config_t range = t.range1(N);
  ASSERT_EQ(dpk_enqueue_launch(&added, queue, kernel, &range, 3, args, 2, fills), DPK_SUCCESS)
      << dpk_last_error();
  // c = c + b reads the first launch's result: it must wait for it.
  dpk_arg_t again[] = {t.pointer(c), t.pointer(b), t.pointer(c)};
  ASSERT_EQ(dpk_enqueue_launch(&addedAgain, queue, kernel, &range, 3, again, 1, &added),
            DPK_SUCCESS)
      << dpk_last_error();
  std::vector<float> out(N, -1.0f);
  dpk_event_t copied = nullptr;
  ASSERT_EQ(dpk_enqueue_copy(&copied, queue, out.data(), c, N * 4, 1, &addedAgain), DPK_SUCCESS)
      << dpk_last_error();
  ASSERT_EQ(dpk_event_wait(1, &copied), DPK_SUCCESS) << dpk_last_error();
  for (size_t i = 0; i < N; ++i)
    ASSERT_EQ(out[i], 5.0f) << "at " << i;
  dpk_event_status_t state = DPK_EVENT_QUEUED;
  EXPECT_EQ(dpk_event_status(&state, added), DPK_SUCCESS);
  EXPECT_EQ(state, DPK_EVENT_COMPLETE);
  uint64_t ns = 0;
  EXPECT_EQ(dpk_event_elapsed_ns(&ns, added), DPK_SUCCESS) << dpk_last_error();
  for (dpk_event_t event : {fillA, fillB, added, addedAgain, copied})
    EXPECT_EQ(dpk_event_release(event), DPK_SUCCESS);
  EXPECT_EQ(dpk_queue_wait(queue), DPK_SUCCESS);
  dpk_queue_release(queue);
}

CONFORMANCE_TEST(InOrderQueueOrders) {
  constexpr size_t N = 4096;
  void *ptr = t.alloc(N * 4);
  ASSERT_NE(ptr, nullptr);
  // Later commands on an in-order queue see earlier ones without explicit dependencies.
  for (uint32_t value = 1; value <= 5; ++value)
    ASSERT_EQ(dpk_enqueue_fill(nullptr, t.queue, ptr, &value, 4, N * 4, 0, nullptr), DPK_SUCCESS);
  std::vector<uint32_t> out = t.download<uint32_t>(ptr, N);
  EXPECT_EQ(out, std::vector<uint32_t>(N, 5u));
}

} // namespace
} // namespace dpk::conformance

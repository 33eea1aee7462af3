// GemmTest.cpp - dpk_enqueue_gemm through the C API: a product on the host in the queue's order
// with a launch before it, operands checked against their allocations (bounds, another
// device's memory), the argument errors, and DPK_ERROR_UNSUPPORTED where the backend has no BLAS
// (the fault plugin; the host with DPK_HOST_BLAS=none, in a child process). Shapes and types on
// every real plugin: tests/plugin_abi/GemmTest.cpp.
#include "DpkTest.h"
#include "Subprocess.h"

#include <vector>

using namespace dpk::test;

namespace {

/// C (m x n) = A (m x k) B (k x n), row-major and packed, as a descriptor.
dpk_gemm_desc_t packed(dpk_gemm_type_t type, uint64_t m, uint64_t n, uint64_t k, const void *a,
                       const void *b, void *c) {
  dpk_gemm_desc_t d{};
  d.struct_size = sizeof d;
  d.type = type;
  d.m = m;
  d.n = n;
  d.k = k;
  d.lda = k;
  d.ldb = n;
  d.ldc = n;
  d.alpha = 1;
  d.batch = 1;
  d.a = a;
  d.b = b;
  d.c = c;
  return d;
}

/// Skips the calling test when the host has no BLAS library (what plugin_abi also reports).
bool hostHasBlas(dpk_queue_t queue) {
  double a = 2, b = 3, c = 0;
  dpk_gemm_desc_t d = packed(DPK_GEMM_F64, 1, 1, 1, &a, &b, &c);
  dpk_event_t event = nullptr;
  dpk_status_t status = dpk_enqueue_gemm(&event, queue, &d, 0, nullptr);
  if (event)
    dpk_event_release(event);
  return status == DPK_SUCCESS;
}

} // namespace

TEST(Gemm, HostProductInTheQueuesOrder) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  if (!hostHasBlas(queue))
    GTEST_SKIP() << "no host BLAS: " << dpk_last_error();
  const uint64_t m = 5, n = 3, k = 4;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&a), host, DPK_MEM_DEVICE, m * k * 4));
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&b), host, DPK_MEM_DEVICE, k * n * 4));
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&c), host, DPK_MEM_DEVICE, m * n * 4));
  for (uint64_t i = 0; i < m * k; ++i)
    a[i] = float(i % 5);
  // B is filled by a command before the GEMM on the same queue: the GEMM must see it.
  float two = 2;
  dpk_event_t filled = nullptr, done = nullptr;
  DPK_ASSERT_OK(dpk_enqueue_fill(&filled, queue, b, &two, sizeof two, k * n * 4, 0, nullptr));
  dpk_gemm_desc_t d = packed(DPK_GEMM_F32, m, n, k, a, b, c);
  DPK_ASSERT_OK(dpk_enqueue_gemm(&done, queue, &d, 1, &filled));
  DPK_ASSERT_OK(dpk_event_wait(1, &done));
  for (uint64_t i = 0; i < m; ++i) {
    float rowSum = 0;
    for (uint64_t p = 0; p < k; ++p)
      rowSum += a[i * k + p];
    for (uint64_t j = 0; j < n; ++j)
      EXPECT_EQ(c[i * n + j], 2 * rowSum) << i << "," << j;
  }
  // An operand past its allocation, and A as C's alias at an offset that overruns.
  dpk_gemm_desc_t over = packed(DPK_GEMM_F32, m + 1, n, k, a, b, c);
  DPK_EXPECT_STATUS(dpk_enqueue_gemm(nullptr, queue, &over, 0, nullptr), DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("past its allocation")) << dpk_last_error();
  DPK_ASSERT_OK(dpk_event_release(filled));
  DPK_ASSERT_OK(dpk_event_release(done));
  for (float *p : {a, b, c})
    DPK_ASSERT_OK(dpk_mem_free(p));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST(Gemm, ArgumentsAreChecked) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  float x = 1;
  dpk_gemm_desc_t d = packed(DPK_GEMM_F32, 1, 1, 1, &x, &x, &x);
  DPK_EXPECT_STATUS(dpk_enqueue_gemm(nullptr, nullptr, &d, 0, nullptr), DPK_ERROR_INVALID_HANDLE);
  DPK_EXPECT_STATUS(dpk_enqueue_gemm(nullptr, queue, nullptr, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  dpk_gemm_desc_t unsized = d;
  unsized.struct_size = 0;
  DPK_EXPECT_STATUS(dpk_enqueue_gemm(nullptr, queue, &unsized, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("struct_size")) << dpk_last_error();
  dpk_gemm_desc_t badLd = d;
  badLd.k = 2;
  badLd.lda = 1;
  DPK_EXPECT_STATUS(dpk_enqueue_gemm(nullptr, queue, &badLd, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("leading dimension of A")) << dpk_last_error();
  DPK_EXPECT_STATUS(dpk_enqueue_gemm(nullptr, queue, &d, 1, nullptr), DPK_ERROR_INVALID_ARGUMENT);
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

// The fault plugin has no BLAS: UNSUPPORTED with its reason; and its device memory is not the
// host queue's to use.
TEST(Gemm, BackendWithoutBlasIsUnsupportedAndForeignMemoryIsRefused) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  DPK_REQUIRE_DEVICE(host, "host");
  float *a = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&a), fault, DPK_MEM_DEVICE, 64));
  float c[4] = {};
  dpk_queue_t faultQueue, hostQueue;
  DPK_ASSERT_OK(dpk_queue_create(&faultQueue, fault, 0));
  DPK_ASSERT_OK(dpk_queue_create(&hostQueue, host, 0));
  dpk_gemm_desc_t d = packed(DPK_GEMM_F32, 2, 2, 2, a, a, c);
  DPK_EXPECT_STATUS(dpk_enqueue_gemm(nullptr, faultQueue, &d, 0, nullptr), DPK_ERROR_UNSUPPORTED);
  EXPECT_TRUE(lastErrorHas("no BLAS")) << dpk_last_error();
  EXPECT_TRUE(lastErrorHas("dpk_enqueue_gemm")) << dpk_last_error();
  DPK_EXPECT_STATUS(dpk_enqueue_gemm(nullptr, hostQueue, &d, 0, nullptr), DPK_ERROR_PLACEMENT);
  EXPECT_TRUE(lastErrorHas("operand A")) << dpk_last_error();
  DPK_ASSERT_OK(dpk_queue_release(faultQueue));
  DPK_ASSERT_OK(dpk_queue_release(hostQueue));
  DPK_ASSERT_OK(dpk_mem_free(a));
}

TEST(GemmChild, HostWithoutBlasIsUnsupported) {
  DPK_CHILD_ONLY();
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  EXPECT_FALSE(hostHasBlas(queue));
  EXPECT_TRUE(lastErrorHas("DPK_HOST_BLAS=none")) << dpk_last_error();
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST(Gemm, HostBlasCanBeSwitchedOff) {
  ChildResult child = runChildTest("GemmChild.HostWithoutBlasIsUnsupported",
                                   {{"DPK_HOST_BLAS", "none"}});
  EXPECT_EQ(child.exitCode, 0) << child.output;
}

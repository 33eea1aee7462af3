// RangeTest.cpp - launch ranges on every device: every work-item of a Range runs exactly once,
// whatever its size (on SPIR-V and OpenCL C devices the core runs Range launches in a fixed
// work-group shape, as whole work-groups plus guarded remainders, compiler/RangeGuard.h); an
// NdRange keeps the caller's local size; ranges
// beyond a device's limits are refused with DPK_ERROR_INVALID_RANGE before any plugin sees them
// (runtime/LaunchRange.h; docs/reliability.md, "Launch ranges").
#include "Conformance.h"

#include <cstring>

namespace dpk::conformance {
namespace {

// hits[linear id] += 1 and sizes[linear id] = the number of work-items the kernel sees.
const char *kCountKernels = R"(
kernel @count1(%hits: ptr<global, i32>, %sizes: ptr<global, i64>) {
  %i = global_id 0 : i64
  %n = global_size 0 : i64
  %one = const 1 : i32
  %h = load %hits[%i] : i32
  %h1 = add %h, %one : i32
  store %hits[%i], %h1
  store %sizes[%i], %n
  return
}
kernel @count2(%hits: ptr<global, i32>, %sizes: ptr<global, i64>) {
  %i = global_id 0 : i64
  %j = global_id 1 : i64
  %n0 = global_size 0 : i64
  %n1 = global_size 1 : i64
  %row = mul %i, %n1 : i64
  %k = add %row, %j : i64
  %n = mul %n0, %n1 : i64
  %one = const 1 : i32
  %h = load %hits[%k] : i32
  %h1 = add %h, %one : i32
  store %hits[%k], %h1
  store %sizes[%k], %n
  return
}
kernel @count3(%hits: ptr<global, i32>, %sizes: ptr<global, i64>) {
  %i = global_id 0 : i64
  %j = global_id 1 : i64
  %l = global_id 2 : i64
  %n0 = global_size 0 : i64
  %n1 = global_size 1 : i64
  %n2 = global_size 2 : i64
  %a = mul %i, %n1 : i64
  %b = add %a, %j : i64
  %c = mul %b, %n2 : i64
  %k = add %c, %l : i64
  %m = mul %n0, %n1 : i64
  %n = mul %m, %n2 : i64
  %one = const 1 : i32
  %h = load %hits[%k] : i32
  %h1 = add %h, %one : i32
  store %hits[%k], %h1
  store %sizes[%k], %n
  return
}
)";

// Kernels the range guard does not apply to: global_size read in a device function, and a
// local_size read (which lets a work-item see its work-group). Their Range launches keep
// work-groups that divide the global size.
const char *kUnguardedKernels = R"(
func @size0() -> i64 {
  %n = global_size 0 : i64
  return %n
}
kernel @count_via_func(%hits: ptr<global, i32>, %sizes: ptr<global, i64>) {
  %i = global_id 0 : i64
  %n = call @size0() : i64
  %one = const 1 : i32
  %h = load %hits[%i] : i32
  %h1 = add %h, %one : i32
  store %hits[%i], %h1
  store %sizes[%i], %n
  return
}
kernel @record_local(%hits: ptr<global, i32>, %locals: ptr<global, i64>) {
  %i = global_id 0 : i64
  %l = local_size 0 : i64
  %one = const 1 : i32
  %h = load %hits[%i] : i32
  %h1 = add %h, %one : i32
  store %hits[%i], %h1
  store %locals[%i], %l
  return
}
)";

const char *kNoop = R"(
kernel @noop(%out: ptr<global, i32>) {
  return
}
)";

/// Sizes of the correctness sweep: 1..300 and primes around work-group sizes and beyond.
std::vector<uint64_t> sweepSizes() {
  std::vector<uint64_t> sizes;
  for (uint64_t n = 1; n <= 300; ++n)
    sizes.push_back(n);
  for (uint64_t n : {509u, 1021u, 1031u, 4093u, 4099u, 65537u, 1000003u})
    sizes.push_back(n);
  return sizes;
}

/// Launches `kernel` over `config` on zeroed buffers of `capacity` entries and checks that each
/// of the first `items` entries was hit once and saw `items` work-items (or `expectedLocal` as
/// its local size when that is non-zero), and that nothing past them was touched.
void checkCoverage(Conformance &t, dpk_kernel_t kernel, const dpk_launch_config_t &config,
                   uint64_t items, void *hits, void *values, size_t capacity,
                   int64_t expectedLocal = 0) {
  std::vector<int32_t> zeros32(capacity, 0);
  std::vector<int64_t> zeros64(capacity, -1);
  t.copy(hits, zeros32.data(), capacity * sizeof(int32_t));
  t.copy(values, zeros64.data(), capacity * sizeof(int64_t));
  dpk_status_t status = t.launch(kernel, config, {t.pointer(hits), t.pointer(values)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<int32_t> hit = t.download<int32_t>(hits, capacity);
  std::vector<int64_t> seen = t.download<int64_t>(values, capacity);
  int64_t expected = expectedLocal ? expectedLocal : static_cast<int64_t>(items);
  for (size_t k = 0; k < capacity; ++k) {
    int32_t want = k < items ? 1 : 0;
    ASSERT_EQ(hit[k], want) << "entry " << k << " of a launch of " << items << " work-items";
    if (k < items)
      ASSERT_EQ(seen[k], expected) << "entry " << k << " of a launch of " << items;
    else
      ASSERT_EQ(seen[k], -1) << "entry " << k << " past a launch of " << items;
  }
}

CONFORMANCE_TEST(RangeEverySize1D) {
  dpk_kernel_t kernel = t.irKernel(kCountKernels, "count1");
  ASSERT_NE(kernel, nullptr);
  std::vector<uint64_t> sizes = sweepSizes();
  // Room past the largest size for a padded launch's extra work-items to show up if unguarded.
  size_t capacity = 1000003 + 2048;
  void *hits = t.alloc(capacity * sizeof(int32_t));
  void *values = t.alloc(capacity * sizeof(int64_t));
  for (uint64_t n : sizes) {
    SCOPED_TRACE("Range(" + std::to_string(n) + ")");
    size_t checked = static_cast<size_t>(std::min<uint64_t>(capacity, n + 2048));
    checkCoverage(t, kernel, t.range1(n), n, hits, values, checked);
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

CONFORMANCE_TEST(RangeOnAnOutOfOrderQueue) {
  // Without in-order execution a Range runs as one guarded launch instead of pieces.
  dpk_kernel_t count1 = t.irKernel(kCountKernels, "count1");
  dpk_kernel_t count2 = t.irKernel(kCountKernels, "count2");
  ASSERT_NE(count1, nullptr);
  ASSERT_NE(count2, nullptr);
  dpk_queue_t outOfOrder = nullptr;
  dpk_status_t status = dpk_queue_create(&outOfOrder, t.device, DPK_QUEUE_OUT_OF_ORDER);
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  dpk_queue_t inOrder = t.queue;
  t.queue = outOfOrder; // the fixture's copies and launches wait for each command
  size_t capacity = 8192;
  void *hits = t.alloc(capacity * sizeof(int32_t));
  void *values = t.alloc(capacity * sizeof(int64_t));
  for (uint64_t n : {1u, 255u, 1024u, 1025u, 4099u}) {
    SCOPED_TRACE("Range(" + std::to_string(n) + ") out of order");
    checkCoverage(t, count1, t.range1(n), n, hits, values, n + 2048);
    if (::testing::Test::HasFatalFailure())
      break;
  }
  if (!::testing::Test::HasFatalFailure()) {
    dpk_launch_config_t config{2, {37, 101, 0}, {0, 0, 0}};
    checkCoverage(t, count2, config, 37 * 101, hits, values, 37 * 101 + 2048);
  }
  t.queue = inOrder;
  dpk_queue_release(outOfOrder);
}

CONFORMANCE_TEST(RangeEverySizeMultiDim) {
  dpk_kernel_t count2 = t.irKernel(kCountKernels, "count2");
  dpk_kernel_t count3 = t.irKernel(kCountKernels, "count3");
  ASSERT_NE(count2, nullptr);
  ASSERT_NE(count3, nullptr);
  // Large shapes too: a Range of more than 64 work-groups runs in pieces (whole work-groups,
  // then a guarded remainder per dimension), smaller ones as one guarded launch.
  size_t capacity = 400000 + 4096;
  void *hits = t.alloc(capacity * sizeof(int32_t));
  void *values = t.alloc(capacity * sizeof(int64_t));
  const uint64_t shapes2[][2] = {{1, 1},    {1, 7},     {7, 1},      {3, 5},   {2, 257},
                                 {257, 2},  {17, 31},   {100, 3},    {3, 1000}, {1, 4099},
                                 {131, 509}, {50, 1500}, {100000, 4}, {4, 100000}};
  for (const auto &shape : shapes2) {
    SCOPED_TRACE("Range(" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + ")");
    dpk_launch_config_t config{2, {shape[0], shape[1], 0}, {0, 0, 0}};
    uint64_t items = shape[0] * shape[1];
    checkCoverage(t, count2, config, items, hits, values,
                  std::min<size_t>(capacity, items + 4096));
    if (::testing::Test::HasFatalFailure())
      return;
  }
  const uint64_t shapes3[][3] = {{1, 1, 1},    {2, 3, 5},    {7, 1, 300},  {3, 11, 13},
                                 {1, 257, 3},  {5, 2, 1021}, {31, 37, 41}, {20, 3, 3000},
                                 {3000, 3, 20}, {9, 4099, 2}};
  for (const auto &shape : shapes3) {
    SCOPED_TRACE("Range(" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + ", " +
                 std::to_string(shape[2]) + ")");
    dpk_launch_config_t config{3, {shape[0], shape[1], shape[2]}, {0, 0, 0}};
    uint64_t items = shape[0] * shape[1] * shape[2];
    checkCoverage(t, count3, config, items, hits, values,
                  std::min<size_t>(capacity, items + 4096));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

CONFORMANCE_TEST(RangeOfUnguardedKernels) {
  dpk_kernel_t viaFunc = t.irKernel(kUnguardedKernels, "count_via_func");
  dpk_kernel_t recordLocal = t.irKernel(kUnguardedKernels, "record_local");
  ASSERT_NE(viaFunc, nullptr);
  ASSERT_NE(recordLocal, nullptr);
  size_t capacity = 4099 + 2048;
  void *hits = t.alloc(capacity * sizeof(int32_t));
  void *values = t.alloc(capacity * sizeof(int64_t));
  for (uint64_t n : {1u, 2u, 3u, 64u, 255u, 257u, 1000u, 1021u, 4099u}) {
    SCOPED_TRACE("Range(" + std::to_string(n) + ")");
    checkCoverage(t, viaFunc, t.range1(n), n, hits, values, n + 2048);
    if (::testing::Test::HasFatalFailure())
      return;
    // A work-group of the launch divides it: its local size is a divisor of n.
    std::vector<int32_t> zeros32(capacity, 0);
    t.copy(hits, zeros32.data(), capacity * sizeof(int32_t));
    dpk_status_t status = t.launch(recordLocal, t.range1(n), {t.pointer(hits), t.pointer(values)});
    ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
    std::vector<int32_t> hit = t.download<int32_t>(hits, n + 2048);
    std::vector<int64_t> local = t.download<int64_t>(values, n);
    for (size_t k = 0; k < n + 2048; ++k)
      ASSERT_EQ(hit[k], k < n ? 1 : 0) << "entry " << k;
    // Where the core picks the shape (SPIR-V and OpenCL C devices), a work-group of the launch
    // divides it; the host runs Range launches in partial groups of its own.
    std::string input = t.GetParam().input;
    if (input != "spirv" && input != "opencl-c")
      continue;
    for (size_t k = 0; k < n; ++k)
      ASSERT_TRUE(local[k] > 0 && n % local[k] == 0) << "local size " << local[k] << " at " << k;
  }
}

CONFORMANCE_TEST(NdRangeKeepsTheCallersLocalSize) {
  dpk_kernel_t recordLocal = t.irKernel(kUnguardedKernels, "record_local");
  dpk_kernel_t count2 = t.irKernel(kCountKernels, "count2");
  ASSERT_NE(recordLocal, nullptr);
  ASSERT_NE(count2, nullptr);
  size_t capacity = 4096;
  void *hits = t.alloc(capacity * sizeof(int32_t));
  void *values = t.alloc(capacity * sizeof(int64_t));
  for (uint64_t local : {1u, 3u, 12u, 20u, 60u}) {
    SCOPED_TRACE("NdRange(60, " + std::to_string(local) + ")");
    checkCoverage(t, recordLocal, t.ndRange1(60, local), 60, hits, values, 60 + 1024,
                  static_cast<int64_t>(local));
    if (::testing::Test::HasFatalFailure())
      return;
  }
  // An NdRange's global sizes are the kernel's, not padded ones.
  dpk_launch_config_t nd{2, {6, 10, 0}, {3, 5, 0}};
  checkCoverage(t, count2, nd, 60, hits, values, 60 + 1024);
}

CONFORMANCE_TEST(RangeWithLargePrivateArrays) {
  // 16 KiB of private memory a work-item: OpenCL CPU runtimes hold a work-group's on a thread's
  // stack, so the work-groups dpk picks shrink (PoCL crashed with 1024 of them).
  const char *text = R"(
kernel @private_sum(%out: ptr<global, i64>) {
  %i = global_id 0 : i64
  %zero = const 0 : i64
  %one = const 1 : i64
  %count = const 2048 : i64
  %buf = alloca 2048 : ptr<private, i64>
  for %k = %zero to %count step %one {
    %v = add %i, %k : i64
    store %buf[%k], %v
  }
  %acc = alloca 1 : ptr<private, i64>
  store %acc[%zero], %zero
  for %m = %zero to %count step %one {
    %e = load %buf[%m] : i64
    %a = load %acc[%zero] : i64
    %s = add %a, %e : i64
    store %acc[%zero], %s
  }
  %total = load %acc[%zero] : i64
  store %out[%i], %total
  return
}
)";
  if (t.GetParam().backend == "host")
    GTEST_SKIP() << "the host backend crashes on this kernel (a work-group function of 1024 "
                    "work-items keeps each one's 16 KiB array on the stack; not fixed here)";
  dpk_kernel_t kernel = t.irKernel(text, "private_sum");
  ASSERT_NE(kernel, nullptr);
  for (uint64_t n : {16u, 1000u, 100003u}) {
    SCOPED_TRACE("Range(" + std::to_string(n) + ")");
    std::vector<int64_t> init(n, -1);
    void *out = t.upload(init);
    dpk_status_t status = t.launch(kernel, t.range1(n), {t.pointer(out)});
    ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
    std::vector<int64_t> result = t.download<int64_t>(out, n);
    for (uint64_t i = 0; i < n; ++i)
      ASSERT_EQ(result[i], static_cast<int64_t>(2048 * i + 2047 * 2048 / 2)) << "entry " << i;
  }
}

bool isCpu(const Conformance &t) { return t.info.type == DPK_DEVICE_TYPE_CPU; }

/// Launches a range that must be refused and checks the status and a fragment of the message.
void expectRefused(Conformance &t, dpk_kernel_t kernel, const dpk_launch_config_t &config,
                   const char *fragment, void *out) {
  dpk_status_t status = t.launch(kernel, config, {t.pointer(out)});
  EXPECT_EQ(status, DPK_ERROR_INVALID_RANGE) << lastError(status);
  std::string message = dpk_last_error();
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
}

CONFORMANCE_TEST(HugeRangesAreRefused) {
  dpk_kernel_t noop = t.irKernel(kNoop, "noop");
  ASSERT_NE(noop, nullptr);
  void *out = t.alloc(64);
  const uint64_t big = uint64_t(1) << 32;
  // Kernels number work-items with signed 64-bit ids: 2^63 of them never run, on any device.
  expectRefused(t, noop, t.range1(uint64_t(1) << 63), "2^63", out);
  expectRefused(t, noop, {2, {big, big / 2, 0}, {0, 0, 0}}, "2^63", out);
  expectRefused(t, noop, {3, {1 << 21, 1 << 21, 1 << 21}, {0, 0, 0}}, "2^63", out);
  expectRefused(t, noop, {2, {big, big / 2, 0}, {1, 1, 0}}, "2^63", out);
  if (isCpu(t)) {
    // A CPU device runs at most 2^44 work-items in one launch (the host used to run this for
    // days; PoCL aborted in `assert (max_wgs > 0)` or ran a fraction of the work-groups).
    expectRefused(t, noop, t.range1((uint64_t(1) << 44) + 1), "2^44", out);
    expectRefused(t, noop, {2, {1 << 22, 1 << 23, 0}, {0, 0, 0}}, "2^44", out);
    expectRefused(t, noop, {2, {big / 2, big / 2, 0}, {1, 1, 0}}, "2^44", out);
  }
  if (t.GetParam().name.rfind("pthread", 0) == 0) {
    // PoCL's CPU driver counts a launch's work-groups in 32 bits: 2^42 work-items in groups of
    // 1024 are 2^32 groups.
    expectRefused(t, noop, t.range1(uint64_t(1) << 42), "work-groups", out);
    expectRefused(t, noop, {1, {big * 2, 0, 0}, {2, 0, 0}}, "4294967295", out);
  }
  if (t.GetParam().backend == "cuda") {
    // CUDA grids: at most 65535 blocks in y and z, 2^31 - 1 in x.
    expectRefused(t, noop, {2, {65536 * 2, 32, 0}, {1, 32, 0}}, "65535", out);
    expectRefused(t, noop, t.range1(uint64_t(1) << 45), "work-groups", out);
  }
}

CONFORMANCE_TEST(LargeRangesRunToTheLastItem) {
  // Past 2^32 work-items ids need 64 bits on every device: the last work-item writes.
  const char *text = R"(
kernel @last(%out: ptr<global, i64>, %n: i64) {
  %i = global_id 0 : i64
  %one = const 1 : i64
  %last = sub %n, %one : i64
  %is_last = cmp eq %i, %last : bool
  if %is_last {
    %zero = const 0 : i64
    %size = global_size 0 : i64
    store %out[%zero], %i
    store %out[%one], %size
  }
  return
}
)";
  if (t.GetParam().backend == "cuda" || t.info.type != DPK_DEVICE_TYPE_CPU)
    GTEST_SKIP() << "checked on CPU devices (a GPU runs it too; this keeps the GPU run short)";
  dpk_kernel_t kernel = t.irKernel(text, "last");
  ASSERT_NE(kernel, nullptr);
  std::vector<int64_t> init = {-1, -1};
  void *out = t.upload(init);
  const int64_t n = (int64_t(1) << 32) + 3;
  dpk_status_t status = t.launch(kernel, t.range1(static_cast<uint64_t>(n)),
                                 {t.pointer(out), t.scalar(n)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<int64_t> result = t.download<int64_t>(out, 2);
  EXPECT_EQ(result[0], n - 1);
  EXPECT_EQ(result[1], n);
}

} // namespace
} // namespace dpk::conformance

// AtomicsTest.cpp - atomics_all.dpkir: every atomic op on 32/64-bit ints and floats, in global
// memory (@atomics_global) and in local memory at work-group scope (@atomics_local).
#include "Conformance.h"

namespace dpk::conformance {
namespace {

bool needsAtomic64(const Conformance &t) {
  return !t.hasAspect(DPK_ASPECT_ATOMIC64) || !t.hasAspect(DPK_ASPECT_FP64);
}

/// The integer slots after N work-items, given initial values (see the file's header).
template <typename T> std::vector<T> expectedInts(std::vector<T> initial, int64_t n) {
  constexpr int Bits = sizeof(T) * 8;
  std::vector<T> out = initial;
  out[0] = T(initial[0] + n);
  out[1] = T(initial[1] - n);
  out[2] = std::min<T>(initial[2], 0);
  out[3] = std::max<T>(initial[3], T(n - 1));
  for (int64_t g = 0; g < n; ++g) {
    T m = T(T(1) << (g % Bits));
    out[4] &= T(~m);
    out[5] |= m;
    out[6] ^= m;
  }
  out[8] = T(initial[8] + n);
  return out;
}

CONFORMANCE_TEST(AtomicsGlobal) {
  if (needsAtomic64(t))
    GTEST_SKIP() << "device lacks 64-bit atomics or fp64";
  constexpr int64_t N = 1000;
  dpk_kernel_t kernel = t.corpusKernel("atomics_all.dpkir", "atomics_global");
  ASSERT_NE(kernel, nullptr);
  std::vector<int32_t> ints32 = {10, 10, 5, 5, -1, 0, 0x0f0f0f0f, -1, 10, -1};
  std::vector<int64_t> ints64 = {10, 10, 5, 5, -1, 0, 0x0f0f0f0f0f0f0f0fll, -1, 10, -1};
  std::vector<float> flts32 = {0.5f, 0.5f, 3.0f, 3.0f, -1.0f, 0.25f, -1.0f};
  std::vector<double> flts64 = {0.5, 0.5, 3.0, 3.0, -1.0, 0.25, -1.0};
  void *d32 = t.upload(ints32), *d64 = t.upload(ints64), *df32 = t.upload(flts32),
       *df64 = t.upload(flts64), *dloaded = t.alloc(N * sizeof(int32_t));
  dpk_status_t status = t.launch(
      kernel, t.range1(N),
      {t.pointer(d32), t.pointer(d64), t.pointer(df32), t.pointer(df64), t.pointer(dloaded)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);

  auto checkInts = [&](auto got, auto initial, const char *what) {
    auto expected = expectedInts(initial, N);
    for (int s : {0, 1, 2, 3, 4, 5, 6, 8})
      EXPECT_EQ(got[s], expected[s]) << what << "[" << s << "]";
    for (int s : {7, 9})
      EXPECT_TRUE(got[s] >= 0 && got[s] < N) << what << "[" << s << "] = " << got[s];
  };
  checkInts(t.download<int32_t>(d32, 10), ints32, "ints32");
  checkInts(t.download<int64_t>(d64, 10), ints64, "ints64");
  auto checkFloats = [&](auto got, auto initial, const char *what) {
    EXPECT_EQ(got[0], initial[0] + N) << what << "[0]";
    EXPECT_EQ(got[1], initial[1] - N) << what << "[1]";
    EXPECT_EQ(got[2], 0) << what << "[2]";
    EXPECT_EQ(got[3], N - 1) << what << "[3]";
    EXPECT_TRUE(got[4] >= 0 && got[4] < N && got[4] == std::floor(got[4]))
        << what << "[4] = " << got[4];
    EXPECT_EQ(got[5], initial[5] + N) << what << "[5]";
    EXPECT_TRUE(got[6] >= 0 && got[6] < N) << what << "[6] = " << got[6];
  };
  checkFloats(t.download<float>(df32, 7), flts32, "flts32");
  checkFloats(t.download<double>(df64, 7), flts64, "flts64");
  std::vector<int32_t> loaded = t.download<int32_t>(dloaded, N);
  for (int64_t g = 0; g < N; ++g)
    ASSERT_TRUE(loaded[g] >= ints32[0] + 1 && loaded[g] <= ints32[0] + N)
        << "loaded[" << g << "] = " << loaded[g];
}

CONFORMANCE_TEST(AtomicsLocal) {
  if (needsAtomic64(t))
    GTEST_SKIP() << "device lacks 64-bit atomics or fp64";
  constexpr int64_t L = 64, G = 8, N = L * G;
  dpk_kernel_t kernel = t.corpusKernel("atomics_all.dpkir", "atomics_local");
  ASSERT_NE(kernel, nullptr);
  void *d32 = t.alloc(2 * G * sizeof(int32_t)), *d64 = t.alloc(G * sizeof(int64_t));
  void *df32 = t.alloc(G * sizeof(float)), *df64 = t.alloc(G * sizeof(double));
  dpk_status_t status = t.launch(
      kernel, t.ndRange1(N, L), {t.pointer(d32), t.pointer(d64), t.pointer(df32), t.pointer(df64)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<int32_t> out32 = t.download<int32_t>(d32, 2 * G);
  std::vector<int64_t> out64 = t.download<int64_t>(d64, G);
  std::vector<float> outf32 = t.download<float>(df32, G);
  std::vector<double> outf64 = t.download<double>(df64, G);
  for (int64_t q = 0; q < G; ++q) {
    EXPECT_EQ(out32[2 * q], L) << "group " << q << ": add";
    EXPECT_EQ(out32[2 * q + 1], L) << "group " << q << ": compare-exchange";
    EXPECT_EQ(out64[q], L - 1) << "group " << q << ": max";
    EXPECT_EQ(outf32[q], float(L)) << "group " << q << ": f32 add";
    EXPECT_EQ(outf64[q], double(L) / 2) << "group " << q << ": f64 add";
  }
}

} // namespace
} // namespace dpk::conformance

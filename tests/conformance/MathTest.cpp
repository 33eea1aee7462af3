// MathTest.cpp - math_all.dpkir: every IR float math function in f32 and f64 against <cmath>,
// within a tolerance of a few ulp (device math libraries are not correctly rounded), and
// popcount.dpkir: popcount in every integer type, exactly.
#include "Conformance.h"
#include "MathReference.h"
#include "PopcountReference.h"

#include <cmath>

namespace dpk::conformance {
namespace {

constexpr int NumFunctions = 39;
const char *const FunctionNames[NumFunctions] = {
    "fabs",   "exp",    "expm1", "exp2",  "log",   "log10",    "log1p", "log2", "sqrt", "sin",
    "cos",    "tan",    "asin",  "acos",  "atan",  "atan2",    "sinh",  "cosh", "tanh", "asinh",
    "acosh",  "atanh",  "floor", "ceil",  "trunc", "copysign", "pow",   "fmod", "erf",  "erfc",
    "tgamma", "lgamma", "ldexp", "hypot", "isnan", "isinf",    "min",   "max",  "abs"};

/// The OpenCL full-profile limits are 16 ulp or less for all of these; allow that much.
constexpr double Ulps = 16;

template <typename T> void runMath(Conformance &t, const char *kernelName) {
  constexpr size_t N = 64;
  dpk_kernel_t kernel = t.corpusKernel("math_all.dpkir", kernelName);
  ASSERT_NE(kernel, nullptr);
  std::vector<T> x(N), y(N);
  std::vector<int32_t> e(N);
  for (size_t i = 0; i < N; ++i) { // the inputs math_all.dpkir suggests
    x[i] = T(0.1) + T(0.8) * T(i) / T(N - 1);
    y[i] = T(0.5) + T(1.5) * T((i * 13) % N) / T(N - 1);
    e[i] = int32_t(i % 9) - 4;
  }
  void *dx = t.upload(x), *dy = t.upload(y), *de = t.upload(e);
  void *dout = t.alloc(NumFunctions * N * sizeof(T));
  dpk_status_t status =
      t.launch(kernel, t.range1(N), {t.pointer(dx), t.pointer(dy), t.pointer(de), t.pointer(dout)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<T> out = t.download<T>(dout, NumFunctions * N);
  for (int k = 0; k < NumFunctions; ++k) {
    int wrong = 0;
    for (size_t i = 0; i < N; ++i) {
      T expected = dpk::test::mathReference<T>(k, x[i], y[i], e[i]);
      T actual = out[k * N + i];
      if (closeUlps(actual, expected, Ulps))
        continue;
      if (++wrong <= 3)
        ADD_FAILURE() << FunctionNames[k] << "(x=" << x[i] << ", y=" << y[i] << ", e=" << e[i]
                      << ") = " << actual << ", expected " << expected;
    }
  }
}

CONFORMANCE_TEST(MathF32) { runMath<float>(t, "math_all_f32"); }

CONFORMANCE_TEST(MathF64) {
  if (t.lacksFp64())
    GTEST_SKIP() << "device has no fp64";
  runMath<double>(t, "math_all_f64");
}

// popcount.dpkir: the bits set in every integer type (host: llvm.ctpop, CUDA: popc, SPIR-V:
// OpBitCount, OpenCL C: popcount()), negatives and the extremes included; exact.
CONFORMANCE_TEST(Popcount) {
  dpk::test::forEachPopcountType([&](auto zero, const char *type) {
    using T = decltype(zero);
    SCOPED_TRACE(type);
    constexpr size_t N = 256;
    dpk_kernel_t kernel = t.corpusKernel("popcount.dpkir", std::string("popcount_") + type);
    ASSERT_NE(kernel, nullptr);
    std::vector<T> x = dpk::test::popcountInputs<T>(N);
    void *dx = t.upload(x), *dout = t.upload(std::vector<T>(N, T(-1)));
    dpk_status_t status = t.launch(kernel, t.range1(N), {t.pointer(dx), t.pointer(dout)});
    ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
    std::vector<T> out = t.download<T>(dout, N);
    for (size_t i = 0; i < N; ++i)
      ASSERT_EQ(int64_t(out[i]), int64_t(dpk::test::popcountReference(x[i])))
          << "popcount of " << int64_t(x[i]) << " at " << i;
  });
}

} // namespace
} // namespace dpk::conformance

// MathTest.cpp - math_all.dpkir: every IR math function in f32 and f64 against <cmath>, within a
// tolerance of a few ulp (device math libraries are not correctly rounded).
#include "Conformance.h"

#include <cmath>

namespace dpk::conformance {
namespace {

constexpr int NumFunctions = 39;
const char *const FunctionNames[NumFunctions] = {
    "fabs",   "exp",    "expm1", "exp2",  "log",   "log10",    "log1p", "log2", "sqrt", "sin",
    "cos",    "tan",    "asin",  "acos",  "atan",  "atan2",    "sinh",  "cosh", "tanh", "asinh",
    "acosh",  "atanh",  "floor", "ceil",  "trunc", "copysign", "pow",   "fmod", "erf",  "erfc",
    "tgamma", "lgamma", "ldexp", "hypot", "isnan", "isinf",    "min",   "max",  "abs"};

/// f_k as math_all.dpkir's header orders them.
template <typename T> T reference(int k, T x, T y, int e) {
  switch (k) {
  case 0: return std::fabs(x);
  case 1: return std::exp(x);
  case 2: return std::expm1(x);
  case 3: return std::exp2(x);
  case 4: return std::log(x);
  case 5: return std::log10(x);
  case 6: return std::log1p(x);
  case 7: return std::log2(x);
  case 8: return std::sqrt(x);
  case 9: return std::sin(x);
  case 10: return std::cos(x);
  case 11: return std::tan(x);
  case 12: return std::asin(x);
  case 13: return std::acos(x);
  case 14: return std::atan(x);
  case 15: return std::atan2(x, y);
  case 16: return std::sinh(x);
  case 17: return std::cosh(x);
  case 18: return std::tanh(x);
  case 19: return std::asinh(x);
  case 20: return std::acosh(x);
  case 21: return std::atanh(x);
  case 22: return std::floor(x);
  case 23: return std::ceil(x);
  case 24: return std::trunc(x);
  case 25: return std::copysign(x, y);
  case 26: return std::pow(x, y);
  case 27: return std::fmod(x, y);
  case 28: return std::erf(x);
  case 29: return std::erfc(x);
  case 30: return std::tgamma(x);
  case 31: return std::lgamma(x);
  case 32: return std::ldexp(x, e);
  case 33: return std::hypot(x, y);
  case 34: return std::isnan(x) ? T(1) : T(0);
  case 35: return std::isinf(x) ? T(1) : T(0);
  case 36: return std::fmin(x, y);
  case 37: return std::fmax(x, y);
  case 38: return std::fabs(x);
  }
  return T(0);
}

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
      T expected = reference<T>(k, x[i], y[i], e[i]);
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

} // namespace
} // namespace dpk::conformance

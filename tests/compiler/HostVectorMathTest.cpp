// HostVectorMathTest.cpp - math functions that host code calls through glibc's vector math
// (libmvec, HostVectorMath.cpp): the work-item loop of a kernel calling one of them must be
// vectorized with the libmvec symbol, and the results must stay within a few ulp of <cmath>.
#include "HostHarness.h"
#include "compiler/Targets.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace dpk::test {
namespace {

struct Function {
  const char *name;
  bool binary;
  double (*f64)(double, double);
  float (*f32)(float, float);
  double low, high; // an input range inside the domain
};

#define UNARY(fn, lo, hi)                                                                                      \
  Function { #fn, false, [](double x, double) { return std::fn(x); }, [](float x, float) { return std::fn(x); }, \
             lo, hi }
#define BINARY(fn, lo, hi)                                                                                     \
  Function { #fn, true, [](double x, double y) { return std::fn(x, y); },                                      \
             [](float x, float y) { return std::fn(x, y); }, lo, hi }

const Function kFunctions[] = {
    UNARY(tan, -1.5, 1.5),    UNARY(asin, -0.99, 0.99), UNARY(acos, -0.99, 0.99), UNARY(atan, -20, 20),
    UNARY(sinh, -5, 5),       UNARY(cosh, -5, 5),       UNARY(tanh, -5, 5),       UNARY(asinh, -20, 20),
    UNARY(acosh, 1.01, 20),   UNARY(atanh, -0.99, 0.99), UNARY(expm1, -3, 3),     UNARY(log1p, -0.9, 20),
    UNARY(exp2, -20, 20),     UNARY(log2, 0.01, 100),   UNARY(log10, 0.01, 100),  UNARY(erf, -4, 4),
    UNARY(erfc, -4, 4),       BINARY(atan2, -5, 5),     BINARY(hypot, -100, 100),
};

bool libmvecHas(const std::string &symbol) {
  static void *library = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  return library && dlsym(library, symbol.c_str());
}

std::string kernelText(const Function &fn, const char *type) {
  std::string t = type;
  std::string text = "kernel @k(%x: ptr<global, " + t + ">, %y: ptr<global, " + t + ">, %out: ptr<global, " + t +
                     ">) {\n  %i = global_id 0 : i64\n  %a = load %x[%i] : " + t + "\n  %b = load %y[%i] : " + t +
                     "\n";
  text += std::string("  %r = math ") + fn.name + (fn.binary ? " %a, %b : " : " %a : ") + t + "\n";
  return text + "  store %out[%i], %r\n  return\n}\n";
}

/// |got - want| within `ulps` units in the last place of want (relative for normal values).
template <typename T> bool closeInUlps(T got, T want, double ulps) {
  if (std::isnan(want)) return std::isnan(got);
  double scale = std::max<double>(std::fabs(want), std::numeric_limits<T>::min());
  return std::fabs(double(got) - double(want)) <= ulps * std::numeric_limits<T>::epsilon() * scale;
}

template <typename T> void checkFunction(const Function &fn, const char *type, const char *suffix) {
  SCOPED_TRACE(std::string(fn.name) + " " + type);
  auto module = parse(kernelText(fn, type));
  ASSERT_TRUE(module);

  // The vector symbol appears in the code when this machine's libmvec has it (AVX2 width).
  const unsigned lanes = sizeof(T) == 8 ? 4 : 8;
  std::string symbol = "_ZGVdN" + std::to_string(lanes) + (fn.binary ? "vv_" : "v_") + fn.name + suffix;
  compiler::CompileOptions options;
  options.localSize = {64, 1, 1};
  options.dims = 1;
  auto assembly = compiler::compileHost(*module, options, compiler::Output::Assembly);
  ASSERT_TRUE(bool(assembly)) << assembly.error().message();
  std::string text(assembly->begin(), assembly->end());
  if (libmvecHas(symbol)) {
    EXPECT_NE(text.find(symbol), std::string::npos) << "the work-item loop did not call " << symbol;
  }

  const size_t n = 1024;
  std::vector<T> x(n), y(n), out(n, T(-7));
  for (size_t i = 0; i < n; ++i) {
    x[i] = T(fn.low + (fn.high - fn.low) * double(i) / double(n - 1));
    y[i] = T(fn.low + (fn.high - fn.low) * double((i * 37) % n) / double(n - 1));
  }
  HostKernels kernels = compileForHost(*module, {64, 0, 0}, 1);
  void *px = x.data(), *py = y.data(), *pout = out.data();
  runGroups(kernels.lookup("k"), 1, {n, 1, 1}, {64, 1, 1}, {&px, &py, &pout});
  for (size_t i = 0; i < n; ++i) {
    T want = sizeof(T) == 8 ? T(fn.f64(double(x[i]), double(y[i]))) : T(fn.f32(float(x[i]), float(y[i])));
    // glibc documents libmvec at 4 ulp or better; allow that over the scalar libm result (itself
    // within 1-2 ulp of the exact value).
    ASSERT_TRUE(closeInUlps(out[i], want, 6)) << fn.name << "(" << x[i] << ", " << y[i] << ") = " << out[i]
                                              << ", <cmath> says " << want;
  }
}

TEST(HostVectorMath, VectorizedCallsMatchCmathInF64) {
  for (const Function &fn : kFunctions) checkFunction<double>(fn, "f64", "");
}

TEST(HostVectorMath, VectorizedCallsMatchCmathInF32) {
  for (const Function &fn : kFunctions) checkFunction<float>(fn, "f32", "f");
}

} // namespace
} // namespace dpk::test

// HostCorpusTest.cpp - every corpus kernel compiled for the host, run, and checked against C++.
#include "HostHarness.h"
#include "PopcountReference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <deque>
#include <functional>
#include <numeric>
#include <vector>

namespace dpk::test {
namespace {

/// Owns argument values; args() gives the pointers a work-group function takes.
class Args {
public:
  template <typename T> Args &pointer(T *p) { return scalar(static_cast<void *>(p)); }
  template <typename T> Args &scalar(T v) {
    storage_.emplace_back(sizeof(T));
    std::memcpy(storage_.back().data(), &v, sizeof(T));
    return *this;
  }
  std::vector<void *> args() {
    std::vector<void *> out;
    for (auto &s : storage_) out.push_back(s.data());
    return out;
  }

private:
  std::deque<std::vector<unsigned char>> storage_;
};

/// Both code shapes: generic (sizes read at run time) and specialized on the local size.
class HostCorpus : public ::testing::TestWithParam<bool> {
protected:
  HostKernels compile(const ir::Module &m, std::array<uint64_t, 3> local, unsigned dims) {
    return compileForHost(m, GetParam() ? local : std::array<uint64_t, 3>{0, 0, 0}, dims);
  }
};

TEST_P(HostCorpus, VectorAdd) {
  auto m = parse(readCorpus("vector_add.dpkir"));
  ASSERT_TRUE(m);
  const size_t n = 1024;
  auto k = compile(*m, {128, 0, 0}, 1);
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (size_t i = 0; i < n; ++i) a[i] = 0.5f * i, b[i] = 3.0f - i;
  Args args;
  args.pointer(a.data()).pointer(b.data()).pointer(c.data());
  runGroups(k.lookup("vector_add"), 1, {n, 1, 1}, {128, 1, 1}, args.args());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST_P(HostCorpus, Triad) {
  auto m = parse(readCorpus("triad.dpkir"));
  ASSERT_TRUE(m);
  const size_t n = 1000, global = 1024;
  auto k = compile(*m, {256, 0, 0}, 1);
  std::vector<double> a(global, -7.0), b(n), c(n);
  for (size_t i = 0; i < n; ++i) b[i] = 1.0 + i, c[i] = 0.25 * i;
  double s = 3.0;
  Args args;
  args.pointer(a.data()).pointer(b.data()).pointer(c.data()).scalar(s).scalar<int64_t>(n);
  runGroups(k.lookup("triad"), 1, {global, 1, 1}, {256, 1, 1}, args.args());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], b[i] + s * c[i]) << i;
  for (size_t i = n; i < global; ++i) ASSERT_EQ(a[i], -7.0) << i;
}

TEST_P(HostCorpus, PairwiseDistance) {
  auto m = parse(readCorpus("pairwise_distance.dpkir"));
  ASSERT_TRUE(m);
  struct Shape {
    int64_t n;
    std::array<uint64_t, 3> local;
  };
  for (Shape shape : {Shape{48, {4, 16, 1}}, Shape{45, {3, 5, 1}}}) {
    const int64_t n = shape.n, d = 3;
    auto k = compile(*m, shape.local, 2);
    std::vector<float> x(n * d), dist(n * n, -1.0f);
    for (int64_t i = 0; i < n * d; ++i) x[i] = std::sin(0.37f * i) * 4.0f;
    Args args;
    args.pointer(x.data()).scalar(n).scalar(d).scalar(d).scalar<int64_t>(1);
    args.pointer(dist.data()).scalar(n).scalar(n).scalar(n).scalar<int64_t>(1);
    runGroups(k.lookup("pairwise_distance"), 2, {uint64_t(n), uint64_t(n), 1}, shape.local,
              args.args());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int64_t c = 0; c < d; ++c) {
          float diff = x[i * d + c] - x[j * d + c];
          acc += diff * diff;
        }
        ASSERT_NEAR(dist[i * n + j], std::sqrt(acc), 1e-5f * (1.0f + std::sqrt(acc)))
            << "n=" << n << " at " << i << "," << j;
      }
  }
}

TEST_P(HostCorpus, PairwiseDistanceColumnMajorViews) {
  // x and dist in column-major order (strides {1, n}): the leading stride is the unit one and
  // the last one is not, so the vectorized work-item loop takes the paths the row-major test
  // does not (lane-by-lane loads of x[j, k] with a unit leading stride, the versioned store of
  // dist with a last stride of n).
  auto m = parse(readCorpus("pairwise_distance.dpkir"));
  ASSERT_TRUE(m);
  const int64_t n = 72, d = 3;
  auto k = compile(*m, {1, 24, 1}, 2);
  std::vector<float> x(n * d), dist(n * n, -1.0f);
  for (int64_t i = 0; i < n * d; ++i) x[i] = std::cos(0.29f * i) * 3.0f; // x[i, c] = x[c * n + i]
  Args args;
  args.pointer(x.data()).scalar(n).scalar(d).scalar<int64_t>(1).scalar(n);
  args.pointer(dist.data()).scalar(n).scalar(n).scalar<int64_t>(1).scalar(n);
  runGroups(k.lookup("pairwise_distance"), 2, {uint64_t(n), uint64_t(n), 1}, {1, 24, 1},
            args.args());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t c = 0; c < d; ++c) {
        float diff = x[c * n + i] - x[c * n + j];
        acc += diff * diff;
      }
      ASSERT_NEAR(dist[j * n + i], std::sqrt(acc), 1e-5f * (1.0f + std::sqrt(acc)))
          << i << "," << j;
    }
}

TEST_P(HostCorpus, TiledMatmul) {
  auto m = parse(readCorpus("tiled_matmul.dpkir"));
  ASSERT_TRUE(m);
  const int64_t n = 64;
  auto k = compile(*m, {16, 16, 0}, 2);
  std::vector<float> a(n * n), b(n * n), c(n * n, -1.0f);
  for (int64_t i = 0; i < n * n; ++i) a[i] = float(i % 7) - 3.0f, b[i] = float(i % 5) * 0.5f;
  Args args;
  args.pointer(a.data()).pointer(b.data()).pointer(c.data()).scalar(n);
  runGroups(k.lookup("tiled_matmul"), 2, {uint64_t(n), uint64_t(n), 1}, {16, 16, 1}, args.args());
  for (int64_t r = 0; r < n; ++r)
    for (int64_t col = 0; col < n; ++col) {
      float acc = 0.0f;
      for (int64_t kk = 0; kk < n; ++kk) acc += a[r * n + kk] * b[kk * n + col];
      ASSERT_NEAR(c[r * n + col], acc, 1e-4f * (1.0f + std::fabs(acc))) << r << "," << col;
    }
}

TEST_P(HostCorpus, WorkGroupReduction) {
  auto m = parse(readCorpus("wg_reduction.dpkir"));
  ASSERT_TRUE(m);
  for (uint64_t L : {2u, 64u, 256u}) {
    const uint64_t n = 1024, groups = n / L;
    auto k = compile(*m, {L, 0, 0}, 1);
    std::vector<float> in(n), partial(groups, -1.0f);
    for (uint64_t i = 0; i < n; ++i) in[i] = float(i % 13);
    Args args;
    args.pointer(in.data()).pointer(partial.data());
    runGroups(k.lookup("wg_reduction"), 1, {n, 1, 1}, {L, 1, 1}, args.args());
    for (uint64_t g = 0; g < groups; ++g) {
      float expect = 0.0f;
      for (uint64_t l = 0; l < L; ++l) expect += in[g * L + l];
      ASSERT_EQ(partial[g], expect) << "L=" << L << " group " << g;
    }
  }
}

TEST_P(HostCorpus, AtomicHistogram) {
  auto m = parse(readCorpus("atomic_histogram.dpkir"));
  ASSERT_TRUE(m);
  const int64_t n = 1000, bins = 16;
  auto k = compile(*m, {64, 0, 0}, 1);
  std::vector<int32_t> data(n), hist(bins, 0), expect(bins, 0);
  for (int64_t i = 0; i < n; ++i) data[i] = int32_t((i * 7 + i / 3) % bins), ++expect[data[i]];
  Args args;
  args.pointer(data.data()).pointer(hist.data()).scalar(n);
  runGroups(k.lookup("atomic_histogram"), 1, {1024, 1, 1}, {64, 1, 1}, args.args());
  EXPECT_EQ(hist, expect);
}

TEST_P(HostCorpus, DeviceFunctionCall) {
  auto m = parse(readCorpus("device_func_call.dpkir"));
  ASSERT_TRUE(m);
  const size_t n = 256;
  auto k = compile(*m, {32, 0, 0}, 1);
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (size_t i = 0; i < n; ++i) x[i] = 0.01f * i - 0.5f, y[i] = 0.3f - 0.002f * i;
  float a = 1.5f;
  Args args;
  args.pointer(x.data()).pointer(y.data()).pointer(out.data()).scalar(a);
  runGroups(k.lookup("device_func_call"), 1, {n, 1, 1}, {32, 1, 1}, args.args());
  for (size_t i = 0; i < n; ++i) {
    float v = a * x[i] + y[i];
    ASSERT_FLOAT_EQ(out[i], std::fmin(std::fmax(v, 0.0f), 1.0f)) << i;
  }
}

TEST_P(HostCorpus, PrivateArray) {
  auto m = parse(readCorpus("private_array.dpkir"));
  ASSERT_TRUE(m);
  const size_t n = 128;
  auto k = compile(*m, {16, 0, 0}, 1);
  std::vector<int32_t> in(8 * n), out(n, -1);
  for (size_t i = 0; i < 8 * n; ++i) in[i] = int32_t(i % 11) - 5;
  Args args;
  args.pointer(in.data()).pointer(out.data());
  runGroups(k.lookup("private_array"), 1, {n, 1, 1}, {16, 1, 1}, args.args());
  for (size_t i = 0; i < n; ++i) {
    int32_t expect = 0;
    for (int kk = 0; kk < 8; ++kk) expect += (kk + 1) * in[8 * i + (7 - kk)];
    ASSERT_EQ(out[i], expect) << i;
  }
}

TEST_P(HostCorpus, BlackScholes) {
  auto m = parse(readCorpus("black_scholes.dpkir"));
  ASSERT_TRUE(m);
  const size_t n = 256;
  auto k = compile(*m, {64, 0, 0}, 1);
  std::vector<double> price(n), strike(n), t(n), call(n), put(n);
  for (size_t i = 0; i < n; ++i)
    price[i] = 10.0 + 0.1 * i, strike[i] = 20.0 - 0.03 * i, t[i] = 0.5 + 0.01 * i;
  double r = 0.02, v = 0.3;
  Args args;
  args.pointer(price.data()).pointer(strike.data()).pointer(t.data()).pointer(call.data());
  args.pointer(put.data()).scalar(r).scalar(v);
  runGroups(k.lookup("black_scholes"), 1, {n, 1, 1}, {64, 1, 1}, args.args());
  auto N = [](double x) { return 0.5 * (1.0 + std::erf(x * (1.0 / std::sqrt(2.0)))); };
  for (size_t i = 0; i < n; ++i) {
    double s = price[i], kk = strike[i], tt = t[i];
    double d1 = (std::log(s / kk) + (r + v * v / 2) * tt) / (v * std::sqrt(tt));
    double d2 = d1 - v * std::sqrt(tt);
    double c = s * N(d1) - kk * std::exp(-r * tt) * N(d2);
    double p = kk * std::exp(-r * tt) * N(-d2) - s * N(-d1);
    ASSERT_NEAR(call[i], c, 1e-10 * (1.0 + std::fabs(c))) << i;
    ASSERT_NEAR(put[i], p, 1e-10 * (1.0 + std::fabs(p))) << i;
  }
}

template <typename T> void checkMath(const std::string &kernel, HostKernels &k, size_t n) {
  std::vector<T> x(n), y(n), out(39 * n, T(-123));
  std::vector<int32_t> e(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = T(0.1 + 0.8 * double(i) / double(n - 1));
    y[i] = T(0.5 + 1.5 * double(i % 17) / 16.0);
    e[i] = int32_t(i % 9) - 4;
  }
  Args args;
  args.pointer(x.data()).pointer(y.data()).pointer(e.data()).pointer(out.data());
  runGroups(k.lookup(kernel), 1, {n, 1, 1}, {16, 1, 1}, args.args());
  using F = std::function<T(T, T, int)>;
  const std::vector<F> fns = {
      [](T a, T, int) { return std::fabs(a); }, [](T a, T, int) { return std::exp(a); },
      [](T a, T, int) { return std::expm1(a); }, [](T a, T, int) { return std::exp2(a); },
      [](T a, T, int) { return std::log(a); }, [](T a, T, int) { return std::log10(a); },
      [](T a, T, int) { return std::log1p(a); }, [](T a, T, int) { return std::log2(a); },
      [](T a, T, int) { return std::sqrt(a); }, [](T a, T, int) { return std::sin(a); },
      [](T a, T, int) { return std::cos(a); }, [](T a, T, int) { return std::tan(a); },
      [](T a, T, int) { return std::asin(a); }, [](T a, T, int) { return std::acos(a); },
      [](T a, T, int) { return std::atan(a); }, [](T a, T b, int) { return std::atan2(a, b); },
      [](T a, T, int) { return std::sinh(a); }, [](T a, T, int) { return std::cosh(a); },
      [](T a, T, int) { return std::tanh(a); }, [](T a, T, int) { return std::asinh(a); },
      [](T a, T, int) { return std::acosh(a); }, [](T a, T, int) { return std::atanh(a); },
      [](T a, T, int) { return std::floor(a); }, [](T a, T, int) { return std::ceil(a); },
      [](T a, T, int) { return std::trunc(a); }, [](T a, T b, int) { return std::copysign(a, b); },
      [](T a, T b, int) { return std::pow(a, b); }, [](T a, T b, int) { return std::fmod(a, b); },
      [](T a, T, int) { return std::erf(a); }, [](T a, T, int) { return std::erfc(a); },
      [](T a, T, int) { return std::tgamma(a); }, [](T a, T, int) { return std::lgamma(a); },
      [](T a, T, int ex) { return std::ldexp(a, ex); }, [](T a, T b, int) { return std::hypot(a, b); },
      [](T a, T, int) { return T(std::isnan(a) ? 1 : 0); },
      [](T a, T, int) { return T(std::isinf(a) ? 1 : 0); },
      [](T a, T b, int) { return std::fmin(a, b); }, [](T a, T b, int) { return std::fmax(a, b); },
      [](T a, T, int) { return std::fabs(a); }};
  const double tolerance = sizeof(T) == 4 ? 4e-6 : 1e-14;
  for (size_t f = 0; f < fns.size(); ++f)
    for (size_t i = 0; i < n; ++i) {
      T expect = fns[f](x[i], y[i], e[i]);
      T got = out[f * n + i];
      if (std::isnan(expect)) {
        ASSERT_TRUE(std::isnan(got)) << kernel << " function " << f << " at " << i;
        continue;
      }
      ASSERT_NEAR(double(got), double(expect), tolerance * (1.0 + std::fabs(double(expect))))
          << kernel << " function " << f << " at " << i << " x=" << x[i] << " y=" << y[i];
    }
}

TEST_P(HostCorpus, MathAll) {
  auto m = parse(readCorpus("math_all.dpkir"));
  ASSERT_TRUE(m);
  auto k = compile(*m, {16, 0, 0}, 1);
  checkMath<float>("math_all_f32", k, 64);
  checkMath<double>("math_all_f64", k, 64);
}

// popcount in every integer type, negatives, 0 and the extremes included; the specialized shape
// runs the vectorized work-item loop.
TEST_P(HostCorpus, Popcount) {
  auto m = parse(readCorpus("popcount.dpkir"));
  ASSERT_TRUE(m);
  const size_t n = 256;
  auto k = compile(*m, {64, 0, 0}, 1);
  forEachPopcountType([&](auto zero, const char *type) {
    using T = decltype(zero);
    SCOPED_TRACE(type);
    std::vector<T> x = popcountInputs<T>(n), out(n, T(-1));
    Args args;
    args.pointer(x.data()).pointer(out.data());
    auto fn = k.lookup(std::string("popcount_") + type);
    ASSERT_NE(fn, nullptr);
    runGroups(fn, 1, {n, 1, 1}, {64, 1, 1}, args.args());
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(int64_t(out[i]), int64_t(popcountReference(x[i])))
          << "popcount of " << int64_t(x[i]) << " at " << i;
  });
}

TEST_P(HostCorpus, AtomicsGlobal) {
  auto m = parse(readCorpus("atomics_all.dpkir"));
  ASSERT_TRUE(m);
  const int64_t N = 256;
  auto k = compile(*m, {32, 0, 0}, 1);
  std::vector<int32_t> i32(10, 100), loaded(N, -1);
  std::vector<int64_t> i64(10, 100);
  std::vector<float> f32(7, 10.0f);
  std::vector<double> f64(7, 10.0);
  Args args;
  args.pointer(i32.data()).pointer(i64.data()).pointer(f32.data()).pointer(f64.data());
  args.pointer(loaded.data());
  runGroups(k.lookup("atomics_global"), 1, {uint64_t(N), 1, 1}, {32, 1, 1}, args.args());
  EXPECT_EQ(i32[0], 100 + N);
  EXPECT_EQ(i32[1], 100 - N);
  EXPECT_EQ(i32[2], 0);
  EXPECT_EQ(i32[3], std::max<int32_t>(100, N - 1));
  EXPECT_EQ(i32[4], 0);
  EXPECT_EQ(i32[5], -1);
  EXPECT_EQ(i64[4], 0);
  EXPECT_EQ(i64[5], -1);
  EXPECT_EQ(i64[6], 100);
  EXPECT_EQ(i32[8], 100 + N);
  EXPECT_EQ(i64[0], 100 + N);
  EXPECT_EQ(i64[1], 100 - N);
  EXPECT_EQ(i64[8], 100 + N);
  EXPECT_TRUE(i32[7] >= 0 && i32[7] < N);
  EXPECT_TRUE(i32[9] >= 0 && i32[9] < N);
  EXPECT_EQ(f32[0], 10.0f + N);
  EXPECT_EQ(f32[1], 10.0f - N);
  EXPECT_EQ(f32[2], 0.0f);
  EXPECT_EQ(f32[3], float(N - 1));
  EXPECT_EQ(f32[5], 10.0f + N);
  EXPECT_EQ(f64[0], 10.0 + N);
  EXPECT_EQ(f64[1], 10.0 - N);
  EXPECT_EQ(f64[3], double(N - 1));
  EXPECT_EQ(f64[5], 10.0 + N);
  for (int64_t g = 0; g < N; ++g) EXPECT_TRUE(loaded[g] >= 101 && loaded[g] <= 100 + N) << g;
  // xor: every bit position toggled N / 32 (i32) or N / 64 (i64) times.
  EXPECT_EQ(i32[6], 100 ^ 0);
}

TEST_P(HostCorpus, AtomicsLocal) {
  auto m = parse(readCorpus("atomics_all.dpkir"));
  ASSERT_TRUE(m);
  const uint64_t L = 64, G = 4;
  auto k = compile(*m, {L, 0, 0}, 1);
  std::vector<int32_t> out32(2 * G, -1);
  std::vector<int64_t> out64(G, -1);
  std::vector<float> outf32(G, -1);
  std::vector<double> outf64(G, -1);
  Args args;
  args.pointer(out32.data()).pointer(out64.data()).pointer(outf32.data()).pointer(outf64.data());
  runGroups(k.lookup("atomics_local"), 1, {L * G, 1, 1}, {L, 1, 1}, args.args());
  for (uint64_t q = 0; q < G; ++q) {
    EXPECT_EQ(out32[2 * q], int32_t(L));
    EXPECT_EQ(out32[2 * q + 1], int32_t(L));
    EXPECT_EQ(out64[q], int64_t(L - 1));
    EXPECT_EQ(outf32[q], float(L));
    EXPECT_EQ(outf64[q], double(L) / 2);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, HostCorpus, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "Specialized" : "Generic";
                         });

} // namespace
} // namespace dpk::test

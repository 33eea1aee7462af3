// CorpusTest.cpp - the IR kernel corpus (tests/ir/corpus, parameters as each file's header
// documents them) on every device, each checked against a reference computed here in C++.
#include "Conformance.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dpk::conformance {
namespace {

std::vector<float> ramp(size_t n, float scale, float offset) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = offset + scale * float(i % 97) + 0.125f * float(i % 7);
  return values;
}

CONFORMANCE_TEST(VectorAdd) {
  constexpr size_t N = 10000;
  dpk_kernel_t kernel = t.corpusKernel("vector_add.dpkir", "vector_add");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> a = ramp(N, 0.5f, 1.0f), b = ramp(N, -0.25f, 3.0f);
  void *da = t.upload(a), *db = t.upload(b), *dc = t.alloc(N * sizeof(float));
  dpk_status_t status =
      t.launch(kernel, t.range1(N), {t.pointer(da), t.pointer(db), t.pointer(dc)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<float> c = t.download<float>(dc, N);
  for (size_t i = 0; i < N; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
}

CONFORMANCE_TEST(Triad) {
  if (t.lacksFp64())
    GTEST_SKIP() << "device has no fp64";
  constexpr size_t N = 5000;
  dpk_kernel_t kernel = t.corpusKernel("triad.dpkir", "triad");
  ASSERT_NE(kernel, nullptr);
  std::vector<double> b(N), c(N), a(N + 64, -1.0);
  for (size_t i = 0; i < N; ++i) {
    b[i] = 1.0 / double(i + 1);
    c[i] = std::sqrt(double(i));
  }
  void *da = t.upload(a), *db = t.upload(b), *dc = t.upload(c);
  double s = 3.25;
  int64_t n = N;
  // g > n: the work-items past n must leave a[n..] alone.
  dpk_status_t status =
      t.launch(kernel, t.range1(N + 64),
               {t.pointer(da), t.pointer(db), t.pointer(dc), t.scalar(s), t.scalar(n)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<double> out = t.download<double>(da, N + 64);
  for (size_t i = 0; i < N; ++i)
    ASSERT_TRUE(closeUlps(out[i], b[i] + (s * c[i]), 1)) << "at " << i << ": " << out[i];
  for (size_t i = N; i < N + 64; ++i)
    ASSERT_EQ(out[i], -1.0) << "work-item " << i << " wrote past n";
}

CONFORMANCE_TEST(PairwiseDistance) {
  constexpr int64_t N = 67, D = 5; // not a multiple of any work-group size
  dpk_kernel_t kernel = t.corpusKernel("pairwise_distance.dpkir", "pairwise_distance");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> x(N * D);
  for (int64_t i = 0; i < N * D; ++i)
    x[i] = float((i * 37) % 101) / 10.0f;
  void *dx = t.upload(x), *dd = t.alloc(N * N * sizeof(float));
  dpk_view_arg_t xView{dx, 2, {N, D, 0}, {D, 1, 0}};
  dpk_view_arg_t distView{dd, 2, {N, N, 0}, {N, 1, 0}};
  dpk_launch_config_t range{2, {uint64_t(N), uint64_t(N), 0}, {0, 0, 0}};
  dpk_status_t status = t.launch(kernel, range, {t.view(xView), t.view(distView)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<float> dist = t.download<float>(dd, N * N);
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float sum = 0.0f;
      for (int64_t k = 0; k < D; ++k) {
        float diff = x[i * D + k] - x[j * D + k];
        sum += diff * diff;
      }
      float expected = std::sqrt(sum);
      ASSERT_NEAR(dist[i * N + j], expected, 1e-5f * std::max(1.0f, expected))
          << "dist[" << i << ", " << j << "]";
    }
}

CONFORMANCE_TEST(TiledMatmul) {
  constexpr int64_t N = 64;
  dpk_kernel_t kernel = t.corpusKernel("tiled_matmul.dpkir", "tiled_matmul");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> a(N * N), b(N * N);
  for (int64_t i = 0; i < N * N; ++i) {
    a[i] = float((i * 7) % 13) - 6.0f;
    b[i] = float((i * 5) % 11) * 0.5f;
  }
  void *da = t.upload(a), *db = t.upload(b), *dc = t.alloc(N * N * sizeof(float));
  int64_t n = N;
  dpk_launch_config_t range{2, {uint64_t(N), uint64_t(N), 0}, {16, 16, 0}};
  dpk_status_t status =
      t.launch(kernel, range, {t.pointer(da), t.pointer(db), t.pointer(dc), t.scalar(n)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<float> c = t.download<float>(dc, N * N);
  for (int64_t r = 0; r < N; ++r)
    for (int64_t col = 0; col < N; ++col) {
      float expected = 0.0f;
      for (int64_t k = 0; k < N; ++k)
        expected += a[r * N + k] * b[k * N + col];
      ASSERT_NEAR(c[r * N + col], expected, 1e-4f * std::max(1.0f, std::fabs(expected)))
          << "c[" << r << ", " << col << "]";
    }
}

CONFORMANCE_TEST(WorkGroupReduction) {
  constexpr uint64_t G = 40;
  dpk_kernel_t kernel = t.corpusKernel("wg_reduction.dpkir", "wg_reduction");
  ASSERT_NE(kernel, nullptr);
  // 256 exceeds the third dimension's limit of GPUs (64 on NVIDIA): a 1-D launch must be checked
  // against the first dimension's limit, which a 3-D-ordered max_work_item_sizes gets wrong.
  for (uint64_t l : {2, 64, 256}) {
    if (l > t.info.max_work_group_size)
      continue;
    SCOPED_TRACE("local size " + std::to_string(l));
    std::vector<float> in(l * G);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = float(int(i % 17) - 8); // small integers: every order sums exactly
    void *din = t.upload(in), *dpartial = t.alloc(G * sizeof(float));
    dpk_status_t status =
        t.launch(kernel, t.ndRange1(l * G, l), {t.pointer(din), t.pointer(dpartial)});
    ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
    std::vector<float> partial = t.download<float>(dpartial, G);
    for (uint64_t g = 0; g < G; ++g)
      EXPECT_EQ(partial[g], std::accumulate(in.begin() + g * l, in.begin() + (g + 1) * l, 0.0f))
          << "group " << g;
  }
}

CONFORMANCE_TEST(AtomicHistogram) {
  constexpr int64_t N = 10007, Bins = 16;
  dpk_kernel_t kernel = t.corpusKernel("atomic_histogram.dpkir", "atomic_histogram");
  ASSERT_NE(kernel, nullptr);
  std::vector<int32_t> data(N), hist(Bins, 0), expected(Bins, 0);
  for (int64_t i = 0; i < N; ++i) {
    data[i] = int32_t((i * i + 3 * i) % Bins);
    ++expected[data[i]];
  }
  hist[3] = 100; // the kernel adds to what is there
  expected[3] += 100;
  void *dd = t.upload(data), *dh = t.upload(hist);
  int64_t n = N;
  dpk_status_t status =
      t.launch(kernel, t.range1(N + 41), {t.pointer(dd), t.pointer(dh), t.scalar(n)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  EXPECT_EQ(t.download<int32_t>(dh, Bins), expected);
}

CONFORMANCE_TEST(DeviceFunctionCall) {
  constexpr size_t N = 3000;
  dpk_kernel_t kernel = t.corpusKernel("device_func_call.dpkir", "device_func_call");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> x(N), y(N);
  for (size_t i = 0; i < N; ++i) {
    x[i] = float(i % 50) / 25.0f - 1.0f;
    y[i] = float(i % 7) / 7.0f - 0.25f;
  }
  void *dx = t.upload(x), *dy = t.upload(y), *dout = t.alloc(N * sizeof(float));
  float a = 0.75f;
  dpk_status_t status =
      t.launch(kernel, t.range1(N), {t.pointer(dx), t.pointer(dy), t.pointer(dout), t.scalar(a)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<float> out = t.download<float>(dout, N);
  for (size_t i = 0; i < N; ++i) {
    float expected = std::fmin(std::fmax(a * x[i] + y[i], 0.0f), 1.0f);
    ASSERT_NEAR(out[i], expected, 1e-6f) << "at " << i; // the target may fuse a * x + y
  }
}

// Issue 15 A: a 1-D and a 2-D kernel of one program each compile for their own launch (the
// suite denies fallback, so a kernel compiled for the wrong dimensionality fails here instead of
// running on the host), and a 2-D kernel launched over 1 dimension is a typed error everywhere.
CONFORMANCE_TEST(MixedDimensionKernelsInOneProgram) {
  constexpr size_t N = 1000, Rows = 17, Cols = 23;
  dpk_kernel_t saxpy = t.corpusKernel("mixed_dims.dpkir", "saxpy");
  dpk_kernel_t scale2d = t.corpusKernel("mixed_dims.dpkir", "scale2d");
  ASSERT_NE(saxpy, nullptr);
  ASSERT_NE(scale2d, nullptr);
  std::vector<float> x(N), y(N), m(Rows * Cols);
  for (size_t i = 0; i < N; ++i) {
    x[i] = float(i % 13);
    y[i] = float(i % 5);
  }
  for (size_t i = 0; i < m.size(); ++i)
    m[i] = float(i);
  void *dx = t.upload(x), *dy = t.upload(y), *dm = t.upload(m);
  float a = 2.0f, s = 3.0f;
  int64_t cols = Cols;
  // saxpy first and last, so its build is made both before and after the 2-D kernel's.
  for (int round = 0; round < 2; ++round) {
    dpk_status_t status =
        t.launch(saxpy, t.range1(N), {t.pointer(dx), t.pointer(dy), t.scalar(a)});
    ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
    if (round == 0) {
      status = t.launch(scale2d, {2, {Rows, Cols, 0}, {0, 0, 0}},
                        {t.pointer(dm), t.scalar(cols), t.scalar(s)});
      ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
    }
  }
  std::vector<float> gotY = t.download<float>(dy, N), gotM = t.download<float>(dm, Rows * Cols);
  for (size_t i = 0; i < N; ++i)
    ASSERT_EQ(gotY[i], a * x[i] + (a * x[i] + y[i])) << "y[" << i << "]";
  for (size_t i = 0; i < m.size(); ++i)
    ASSERT_EQ(gotM[i], s * m[i]) << "m[" << i << "]";

  dpk_status_t wrong = t.launch(scale2d, t.range1(Rows * Cols),
                                {t.pointer(dm), t.scalar(cols), t.scalar(s)});
  EXPECT_EQ(wrong, DPK_ERROR_INVALID_RANGE);
  std::string message = lastError(wrong);
  EXPECT_NE(message.find("'scale2d' indexes work-item dimension 1"), std::string::npos) << message;
  EXPECT_NE(message.find("this launch has 1"), std::string::npos) << message;
  EXPECT_EQ(t.download<float>(dm, Rows * Cols), gotM) << "a refused launch wrote nothing";
}

CONFORMANCE_TEST(PrivateArray) {
  constexpr size_t N = 1000;
  dpk_kernel_t kernel = t.corpusKernel("private_array.dpkir", "private_array");
  ASSERT_NE(kernel, nullptr);
  std::vector<int32_t> in(8 * N);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = int32_t(i % 23) - 11;
  void *din = t.upload(in), *dout = t.alloc(N * sizeof(int32_t));
  dpk_status_t status = t.launch(kernel, t.range1(N), {t.pointer(din), t.pointer(dout)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<int32_t> out = t.download<int32_t>(dout, N);
  for (size_t i = 0; i < N; ++i) {
    int32_t expected = 0;
    for (int k = 0; k < 8; ++k)
      expected += (k + 1) * in[8 * i + (7 - k)];
    ASSERT_EQ(out[i], expected) << "at " << i;
  }
}

double normalCdf(double x) { return 0.5 * (1.0 + std::erf(x * (1.0 / std::sqrt(2.0)))); }

CONFORMANCE_TEST(BlackScholes) {
  if (t.lacksFp64())
    GTEST_SKIP() << "device has no fp64";
  constexpr size_t N = 2048;
  dpk_kernel_t kernel = t.corpusKernel("black_scholes.dpkir", "black_scholes");
  ASSERT_NE(kernel, nullptr);
  std::vector<double> price(N), strike(N), years(N);
  for (size_t i = 0; i < N; ++i) {
    price[i] = 10.0 + double(i % 91);
    strike[i] = 20.0 + double((i * 7) % 61);
    years[i] = 0.25 + double(i % 9) * 0.5;
  }
  void *dp = t.upload(price), *ds = t.upload(strike), *dt = t.upload(years);
  void *dcall = t.alloc(N * sizeof(double)), *dput = t.alloc(N * sizeof(double));
  double rate = 0.02, vol = 0.3;
  dpk_status_t status = t.launch(kernel, t.range1(N),
                                 {t.pointer(dp), t.pointer(ds), t.pointer(dt), t.pointer(dcall),
                                  t.pointer(dput), t.scalar(rate), t.scalar(vol)});
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  std::vector<double> call = t.download<double>(dcall, N), put = t.download<double>(dput, N);
  for (size_t i = 0; i < N; ++i) {
    double s = price[i], k = strike[i], y = years[i];
    double d1 = (std::log(s / k) + (rate + vol * vol / 2) * y) / (vol * std::sqrt(y));
    double d2 = d1 - vol * std::sqrt(y);
    double expectedCall = s * normalCdf(d1) - k * std::exp(-rate * y) * normalCdf(d2);
    double expectedPut = k * std::exp(-rate * y) * normalCdf(-d2) - s * normalCdf(-d1);
    ASSERT_NEAR(call[i], expectedCall, 1e-10 * std::max(1.0, std::fabs(expectedCall)))
        << "call " << i;
    ASSERT_NEAR(put[i], expectedPut, 1e-10 * std::max(1.0, std::fabs(expectedPut))) << "put " << i;
  }
}

} // namespace

INSTANTIATE_TEST_SUITE_P(Devices, Conformance, ::testing::ValuesIn(allDevices()), testNameOf);

} // namespace dpk::conformance

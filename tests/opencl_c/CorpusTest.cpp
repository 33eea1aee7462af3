// CorpusTest.cpp - every kernel of tests/ir/corpus: emitted as OpenCL C, built on the OpenCL
// device (PoCL in CI), and, for the kernels whose semantics the corpus documents, run and
// compared with C++ references.
#include "EmitTestUtil.h"
#include "MathReference.h"
#include "OpenCLSession.h"
#include "PopcountReference.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <functional>

namespace dpk::testing {
namespace {

#define REQUIRE_OPENCL(session)                                                                \
  OpenCLSession *session = OpenCLSession::get();                                               \
  if (!session)                                                                                \
  GTEST_SKIP() << OpenCLSession::skipReason()

/// A built program, released at the end of the test.
struct Program {
  cl_program handle = nullptr;
  ~Program() {
    if (handle)
      clReleaseProgram(handle);
  }
  explicit operator bool() const { return handle != nullptr; }
};

/// Emits `module` and builds it; on failure records the source and build log.
void emitAndBuild(OpenCLSession &session, const ir::Module &module,
                  const compiler::CompileOptions &options, Program &program) {
  std::string source = emitOrFail(module, options);
  if (source.empty())
    return;
  std::string log;
  program.handle = session.build(source, log);
  if (!program)
    ADD_FAILURE() << "build failed:\n" << log << "\n--- source ---\n" << source;
}

/// The IR files the emitter must handle: the corpus and the round-trip texts, as paths
/// relative to tests/ir.
std::vector<std::string> irFiles() {
  std::vector<std::string> names;
  for (const char *folder : {"corpus", "roundtrip"}) {
    std::error_code error;
    for (const auto &entry :
         std::filesystem::directory_iterator(irTestPath(folder), error))
      if (entry.path().extension() == ".dpkir")
        names.push_back(std::string(folder) + "/" + entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// ---- every corpus file builds -------------------------------------------------------------

class CorpusBuild : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusBuild, EmitsDeterministicallyAndBuilds) {
  std::unique_ptr<ir::Module> module = loadIrFile(GetParam());
  ASSERT_TRUE(module);
  std::string first = emitOrFail(*module, openclOptions());
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first, emitOrFail(*module, openclOptions())) << "emission is not deterministic";
  if (const char *dump = std::getenv("DPK_OPENCL_C_TEST_DUMP")) {
    std::string name = GetParam();
    std::replace(name.begin(), name.end(), '/', '-');
    std::ofstream(std::string(dump) + "/" + name + ".cl") << first;
  }
  REQUIRE_OPENCL(session);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
}

INSTANTIATE_TEST_SUITE_P(IrFiles, CorpusBuild, ::testing::ValuesIn(irFiles()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           std::string name = info.param.substr(0, info.param.find('.'));
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

TEST(CorpusBuild, CorpusIsPresent) { EXPECT_GE(irFiles().size(), 11u); }

// ---- runs ---------------------------------------------------------------------------------

TEST(CorpusRun, VectorAdd) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("vector_add.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  const size_t n = 1000;
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = 0.5f * float(i);
    b[i] = 1.0f / float(i + 1);
  }
  DeviceBuffer da = session->upload(a), db = session->upload(b),
               dc = session->upload(std::vector<float>(n, -1.0f));
  ASSERT_EQ(session->launch(program.handle, "vector_add",
                            {KernelArg::buffer(da), KernelArg::buffer(db), KernelArg::buffer(dc)},
                            {n}),
            "");
  std::vector<float> c = session->download<float>(dc);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
}

// x is n x d with row stride `rowStride` and column stride `colStride` (a padded or a
// transposed layout), passed as a view; dist is n x n row-major.
void runPairwiseDistance(OpenCLSession &session, cl_program program, int64_t rowStride,
                         int64_t colStride, size_t storage) {
  const int64_t n = 40, d = 5;
  std::vector<float> x(storage, 1e30f); // padding must never be read
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < d; ++k)
      x[i * rowStride + k * colStride] = std::sin(float(i * 7 + k)) * 3.0f;
  DeviceBuffer dx = session.upload(x), ddist = session.upload(std::vector<float>(n * n, -1.0f));
  std::vector<KernelArg> args = {KernelArg::buffer(dx),        KernelArg::scalar<int64_t>(n),
                                 KernelArg::scalar<int64_t>(d), KernelArg::scalar(rowStride),
                                 KernelArg::scalar(colStride), KernelArg::buffer(ddist),
                                 KernelArg::scalar<int64_t>(n), KernelArg::scalar<int64_t>(n),
                                 KernelArg::scalar<int64_t>(n), KernelArg::scalar<int64_t>(1)};
  ASSERT_EQ(session.launch(program, "pairwise_distance", args, {size_t(n), size_t(n)}), "");
  std::vector<float> dist = session.download<float>(ddist);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int64_t k = 0; k < d; ++k) {
        float diff = x[i * rowStride + k * colStride] - x[j * rowStride + k * colStride];
        sum += diff * diff;
      }
      float expected = std::sqrt(sum);
      ASSERT_NEAR(dist[i * n + j], expected, 1e-5f * std::max(1.0f, expected))
          << "at (" << i << ", " << j << ")";
    }
}

TEST(CorpusRun, PairwiseDistanceWithPaddedAndTransposedViews) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("pairwise_distance.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(2), program);
  ASSERT_TRUE(program);
  runPairwiseDistance(*session, program.handle, /*rowStride=*/8, /*colStride=*/1, 40 * 8);
  runPairwiseDistance(*session, program.handle, /*rowStride=*/1, /*colStride=*/40, 40 * 5);
}

void runTiledMatmul(OpenCLSession &session, cl_program program) {
  const int64_t n = 64;
  std::vector<float> a(n * n), b(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    a[i] = float((i * 37) % 17) - 8.0f;
    b[i] = float((i * 11) % 13) * 0.25f;
  }
  DeviceBuffer da = session.upload(a), db = session.upload(b),
               dc = session.upload(std::vector<float>(n * n, 0.0f));
  ASSERT_EQ(session.launch(program, "tiled_matmul",
                           {KernelArg::buffer(da), KernelArg::buffer(db), KernelArg::buffer(dc),
                            KernelArg::scalar(n)},
                           {size_t(n), size_t(n)}, {16, 16}),
            "");
  std::vector<float> c = session.download<float>(dc);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t col = 0; col < n; ++col) {
      float expected = 0.0f;
      for (int64_t k = 0; k < n; ++k)
        expected += a[r * n + k] * b[k * n + col];
      ASSERT_EQ(c[r * n + col], expected) << "at (" << r << ", " << col << ")"; // exact: small ints
    }
}

TEST(CorpusRun, TiledMatmulWithBarriers) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("tiled_matmul.dpkir");
  ASSERT_TRUE(module);
  Program generic, specialized;
  emitAndBuild(*session, *module, openclOptions(), generic);
  emitAndBuild(*session, *module, openclOptions(2, {16, 16, 0}), specialized);
  ASSERT_TRUE(generic && specialized);
  runTiledMatmul(*session, generic.handle);
  runTiledMatmul(*session, specialized.handle);
}

TEST(CorpusRun, WorkGroupReduction) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("wg_reduction.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  for (size_t groupSize : {2, 64, 256}) {
    const size_t n = 1024, groups = n / groupSize;
    std::vector<float> in(n);
    for (size_t i = 0; i < n; ++i)
      in[i] = float(i % 9);
    DeviceBuffer din = session->upload(in), dout = session->upload(std::vector<float>(groups));
    ASSERT_EQ(session->launch(program.handle, "wg_reduction",
                              {KernelArg::buffer(din), KernelArg::buffer(dout)}, {n}, {groupSize}),
              "");
    std::vector<float> partial = session->download<float>(dout);
    for (size_t g = 0; g < groups; ++g) {
      float expected = 0.0f;
      for (size_t l = 0; l < groupSize; ++l)
        expected += in[g * groupSize + l];
      ASSERT_EQ(partial[g], expected) << "group " << g << " of size " << groupSize;
    }
  }
}

TEST(CorpusRun, AtomicHistogram) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("atomic_histogram.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  const int64_t n = 10000, bins = 16;
  std::vector<int32_t> data(n), expected(bins, 0);
  for (int64_t i = 0; i < n; ++i) {
    data[i] = int32_t((i * i + 3 * i) % bins);
    ++expected[data[i]];
  }
  DeviceBuffer ddata = session->upload(data), dhist = session->upload(std::vector<int32_t>(bins));
  ASSERT_EQ(session->launch(program.handle, "atomic_histogram",
                            {KernelArg::buffer(ddata), KernelArg::buffer(dhist),
                             KernelArg::scalar(n)},
                            {10240}),
            "");
  EXPECT_EQ(session->download<int32_t>(dhist), expected);
}

TEST(CorpusRun, Triad) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("triad.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  const int64_t n = 1000;
  const double s = 3.25;
  std::vector<double> b(n), c(n);
  for (int64_t i = 0; i < n; ++i) {
    b[i] = 1.0 / double(i + 1);
    c[i] = double(i) * 0.125;
  }
  DeviceBuffer da = session->upload(std::vector<double>(n, 0.0)), db = session->upload(b),
               dc = session->upload(c);
  ASSERT_EQ(session->launch(program.handle, "triad",
                            {KernelArg::buffer(da), KernelArg::buffer(db), KernelArg::buffer(dc),
                             KernelArg::scalar(s), KernelArg::scalar(n)},
                            {1024}),
            "");
  std::vector<double> a = session->download<double>(da);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_NEAR(a[i], b[i] + s * c[i], 1e-15 * std::fabs(b[i] + s * c[i])) << "at " << i;
}

TEST(CorpusRun, PrivateArray) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("private_array.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  const size_t n = 100;
  std::vector<int32_t> in(8 * n);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = int32_t(i % 23) - 11;
  DeviceBuffer din = session->upload(in), dout = session->upload(std::vector<int32_t>(n));
  ASSERT_EQ(session->launch(program.handle, "private_array",
                            {KernelArg::buffer(din), KernelArg::buffer(dout)}, {n}),
            "");
  std::vector<int32_t> out = session->download<int32_t>(dout);
  for (size_t i = 0; i < n; ++i) {
    int32_t expected = 0;
    for (int k = 0; k < 8; ++k)
      expected += (k + 1) * in[8 * i + (7 - k)];
    ASSERT_EQ(out[i], expected) << "at " << i;
  }
}

TEST(CorpusRun, DeviceFunctionCall) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("device_func_call.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  const size_t n = 256;
  const float a = 0.75f;
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = float(i) / 64.0f - 1.5f;
    y[i] = 0.25f;
  }
  DeviceBuffer dx = session->upload(x), dy = session->upload(y),
               dout = session->upload(std::vector<float>(n));
  ASSERT_EQ(session->launch(program.handle, "device_func_call",
                            {KernelArg::buffer(dx), KernelArg::buffer(dy), KernelArg::buffer(dout),
                             KernelArg::scalar(a)},
                            {n}),
            "");
  std::vector<float> out = session->download<float>(dout);
  for (size_t i = 0; i < n; ++i) {
    float v = a * x[i] + y[i];
    ASSERT_NEAR(out[i], std::fmin(std::fmax(v, 0.0f), 1.0f), 1e-6f) << "at " << i;
  }
}

TEST(CorpusRun, BlackScholes) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("black_scholes.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  const size_t n = 128;
  const double r = 0.02, v = 0.3;
  std::vector<double> price(n), strike(n), t(n);
  for (size_t i = 0; i < n; ++i) {
    price[i] = 10.0 + double(i % 30);
    strike[i] = 12.0 + double(i % 17);
    t[i] = 0.25 + double(i % 8) * 0.5;
  }
  DeviceBuffer dp = session->upload(price), ds = session->upload(strike), dt = session->upload(t),
               dcall = session->upload(std::vector<double>(n)),
               dput = session->upload(std::vector<double>(n));
  ASSERT_EQ(session->launch(program.handle, "black_scholes",
                            {KernelArg::buffer(dp), KernelArg::buffer(ds), KernelArg::buffer(dt),
                             KernelArg::buffer(dcall), KernelArg::buffer(dput),
                             KernelArg::scalar(r), KernelArg::scalar(v)},
                            {n}),
            "");
  std::vector<double> call = session->download<double>(dcall), put = session->download<double>(dput);
  auto cnd = [](double x) { return 0.5 * (1.0 + std::erf(x * (1.0 / std::sqrt(2.0)))); };
  for (size_t i = 0; i < n; ++i) {
    double sq = v * std::sqrt(t[i]);
    double d1 = (std::log(price[i] / strike[i]) + (r + v * v / 2) * t[i]) / sq;
    double d2 = d1 - sq;
    double discount = strike[i] * std::exp(-r * t[i]);
    double expectedCall = price[i] * cnd(d1) - discount * cnd(d2);
    double expectedPut = discount * cnd(-d2) - price[i] * cnd(-d1);
    ASSERT_NEAR(call[i], expectedCall, 1e-9 * std::max(1.0, std::fabs(expectedCall))) << i;
    ASSERT_NEAR(put[i], expectedPut, 1e-9 * std::max(1.0, std::fabs(expectedPut))) << i;
  }
}

// ---- math ---------------------------------------------------------------------------------


template <typename T> void runMathAll(const char *kernel, double relativeTolerance) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("math_all.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  const size_t n = 64, functions = 39;
  std::vector<T> x(n), y(n);
  std::vector<int32_t> e(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = T(0.1) + T(0.8) * T(i) / T(n - 1);
    y[i] = T(0.5) + T(1.5) * T((i * 7) % n) / T(n - 1);
    e[i] = int32_t(i % 9) - 4;
  }
  // A few special inputs: a negative x (copysign, fmod, floor/ceil/trunc) and y = -y.
  x[3] = T(-0.75);
  y[5] = T(-1.25);
  DeviceBuffer dx = session->upload(x), dy = session->upload(y), de = session->upload(e),
               dout = session->upload(std::vector<T>(functions * n));
  ASSERT_EQ(session->launch(program.handle, kernel,
                            {KernelArg::buffer(dx), KernelArg::buffer(dy), KernelArg::buffer(de),
                             KernelArg::buffer(dout)},
                            {n}),
            "");
  std::vector<T> out = session->download<T>(dout);
  for (size_t k = 0; k < functions; ++k)
    for (size_t i = 0; i < n; ++i) {
      T expected = dpk::test::mathReference<T>(int(k), x[i], y[i], e[i]);
      T got = out[k * n + i];
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(got)) << kernel << " function " << k << " at x=" << x[i];
        continue;
      }
      EXPECT_NEAR(got, expected, relativeTolerance * std::max(T(1), std::fabs(expected)))
          << kernel << " function " << k << " at x=" << x[i] << " y=" << y[i] << " e=" << e[i];
    }
}

TEST(CorpusRun, MathAllF32) { runMathAll<float>("math_all_f32", 4e-6); }
TEST(CorpusRun, MathAllF64) { runMathAll<double>("math_all_f64", 1e-13); }

// OpenCL C's popcount() in every integer type: char and short count 8 and 16 bits, not the 32
// of an int they would be promoted to.
TEST(CorpusRun, Popcount) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("popcount.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  dpk::test::forEachPopcountType([&](auto zero, const char *type) {
    using T = decltype(zero);
    SCOPED_TRACE(type);
    const size_t n = 128;
    std::vector<T> x = dpk::test::popcountInputs<T>(n);
    DeviceBuffer dx = session->upload(x), dout = session->upload(std::vector<T>(n, T(-1)));
    ASSERT_EQ(session->launch(program.handle, std::string("popcount_") + type,
                              {KernelArg::buffer(dx), KernelArg::buffer(dout)}, {n}),
              "");
    std::vector<T> out = session->download<T>(dout);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(int64_t(out[i]), int64_t(dpk::test::popcountReference(x[i])))
          << "popcount of " << int64_t(x[i]) << " at " << i;
  });
}

// ---- atomics ------------------------------------------------------------------------------

TEST(CorpusRun, AtomicsGlobal) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("atomics_all.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  const int64_t n = 256;
  std::vector<int32_t> i32 = {100, 100, 50, 50, -1, 0, 0x5a5a5a5a, 0, 100, 0};
  std::vector<int64_t> i64 = {100, 100, 50, 50, -1, 0, 0x5a5a5a5a5a5a5a5aLL, 0, 100, 0};
  std::vector<float> f32 = {10, 10, 5, 5, 0, 10, 0};
  std::vector<double> f64 = {10, 10, 5, 5, 0, 10, 0};
  DeviceBuffer d32 = session->upload(i32), d64 = session->upload(i64),
               df32 = session->upload(f32), df64 = session->upload(f64),
               dloaded = session->upload(std::vector<int32_t>(n));
  ASSERT_EQ(session->launch(program.handle, "atomics_global",
                            {KernelArg::buffer(d32), KernelArg::buffer(d64), KernelArg::buffer(df32),
                             KernelArg::buffer(df64), KernelArg::buffer(dloaded)},
                            {size_t(n)}),
            "");
  auto r32 = session->download<int32_t>(d32);
  auto r64 = session->download<int64_t>(d64);
  auto rf32 = session->download<float>(df32);
  auto rf64 = session->download<double>(df64);
  auto loaded = session->download<int32_t>(dloaded);
  EXPECT_EQ(r32[0], 100 + n);
  EXPECT_EQ(r32[1], 100 - n);
  EXPECT_EQ(r32[2], 0);
  EXPECT_EQ(r32[3], n - 1);
  EXPECT_EQ(r32[4], 0);        // every bit cleared (n >= 32)
  EXPECT_EQ(r32[5], -1);       // every bit set
  EXPECT_EQ(r32[6], i32[6]);   // each bit toggled n / 32 (even) times
  EXPECT_TRUE(r32[7] >= 0 && r32[7] < n);
  EXPECT_EQ(r32[8], 100 + n);
  EXPECT_TRUE(r32[9] >= 0 && r32[9] < n);
  EXPECT_EQ(r64[0], 100 + n);
  EXPECT_EQ(r64[1], 100 - n);
  EXPECT_EQ(r64[2], 0);
  EXPECT_EQ(r64[3], n - 1);
  EXPECT_EQ(r64[4], 0);
  EXPECT_EQ(r64[5], -1);
  EXPECT_EQ(r64[6], i64[6]);
  EXPECT_TRUE(r64[7] >= 0 && r64[7] < n);
  EXPECT_EQ(r64[8], 100 + n);
  EXPECT_TRUE(r64[9] >= 0 && r64[9] < n);
  EXPECT_EQ(rf32[0], 10.0f + n);
  EXPECT_EQ(rf32[1], 10.0f - n);
  EXPECT_EQ(rf32[2], 0.0f);
  EXPECT_EQ(rf32[3], float(n - 1));
  EXPECT_TRUE(rf32[4] >= 0 && rf32[4] < n && rf32[4] == std::floor(rf32[4]));
  EXPECT_EQ(rf32[5], 10.0f + n);
  EXPECT_TRUE(rf32[6] >= 0 && rf32[6] < n);
  EXPECT_EQ(rf64[0], 10.0 + n);
  EXPECT_EQ(rf64[1], 10.0 - n);
  EXPECT_EQ(rf64[2], 0.0);
  EXPECT_EQ(rf64[3], double(n - 1));
  EXPECT_TRUE(rf64[4] >= 0 && rf64[4] < n);
  EXPECT_EQ(rf64[5], 10.0 + n);
  EXPECT_TRUE(rf64[6] >= 0 && rf64[6] < n);
  for (int64_t g = 0; g < n; ++g)
    ASSERT_TRUE(loaded[g] >= 101 && loaded[g] <= 100 + n) << "loaded[" << g << "] = " << loaded[g];
}

TEST(CorpusRun, AtomicsLocal) {
  REQUIRE_OPENCL(session);
  auto module = loadCorpus("atomics_all.dpkir");
  ASSERT_TRUE(module);
  Program program;
  emitAndBuild(*session, *module, openclOptions(), program);
  ASSERT_TRUE(program);
  const size_t n = 256, local = 64, groups = n / local;
  DeviceBuffer d32 = session->upload(std::vector<int32_t>(2 * groups, -7)),
               d64 = session->upload(std::vector<int64_t>(groups, -7)),
               df32 = session->upload(std::vector<float>(groups, -7)),
               df64 = session->upload(std::vector<double>(groups, -7));
  ASSERT_EQ(session->launch(program.handle, "atomics_local",
                            {KernelArg::buffer(d32), KernelArg::buffer(d64), KernelArg::buffer(df32),
                             KernelArg::buffer(df64)},
                            {n}, {local}),
            "");
  auto r32 = session->download<int32_t>(d32);
  auto r64 = session->download<int64_t>(d64);
  auto rf32 = session->download<float>(df32);
  auto rf64 = session->download<double>(df64);
  for (size_t q = 0; q < groups; ++q) {
    EXPECT_EQ(r32[2 * q], int32_t(local)) << "group " << q;
    EXPECT_EQ(r32[2 * q + 1], int32_t(local)) << "group " << q;
    EXPECT_EQ(r64[q], int64_t(local - 1)) << "group " << q;
    EXPECT_EQ(rf32[q], float(local)) << "group " << q;
    EXPECT_EQ(rf64[q], double(local) / 2) << "group " << q;
  }
}

} // namespace
} // namespace dpk::testing

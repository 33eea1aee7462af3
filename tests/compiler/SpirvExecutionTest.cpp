// SpirvExecutionTest.cpp - runs the SPIR-V of corpus kernels on Intel's OpenCL CPU runtime
// (pip package intel-opencl-rt) and checks the results. Skipped when the runtime is absent.
//
// The ICD loader is pointed at the runtime alone (OCL_ICD_VENDORS to a temporary folder with one
// .icd file) before the first OpenCL call. Work sizes are reversed as the OpenCL backend does:
// dpk dimension d is OpenCL dimension dims-1-d.
#define CL_TARGET_OPENCL_VERSION 300
#include "HostHarness.h"
#include "PopcountReference.h"

#include <CL/cl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace dpk::test {
namespace {

namespace fs = std::filesystem;

struct OpenCL {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  std::string skipReason;
};

OpenCL &intelRuntime() {
  static OpenCL cl = [] {
    OpenCL r;
    std::string library = DPK_INTEL_OCL;
    if (const char *env = std::getenv("DPK_INTEL_OCL")) library = env;
    if (library.empty() || !fs::exists(library)) {
      r.skipReason = "Intel OpenCL CPU runtime (libintelocl.so) not found";
      return r;
    }
    fs::path vendors = fs::temp_directory_path() / ("dpk_icd_" + std::to_string(::getpid()));
    fs::create_directories(vendors);
    std::ofstream(vendors / "intel.icd") << library << "\n";
    ::setenv("OCL_ICD_VENDORS", vendors.c_str(), 1);
    cl_platform_id platform;
    cl_uint count = 0;
    if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || count == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &r.device, nullptr) != CL_SUCCESS) {
      r.skipReason = "the Intel OpenCL runtime at " + library + " offers no device";
      return r;
    }
    cl_int e;
    r.context = clCreateContext(nullptr, 1, &r.device, nullptr, nullptr, &e);
    r.queue = clCreateCommandQueueWithProperties(r.context, r.device, nullptr, &e);
    return r;
  }();
  return cl;
}

class SpirvOnIntelCpu : public ::testing::Test {
protected:
  void SetUp() override {
    if (!intelRuntime().skipReason.empty()) GTEST_SKIP() << intelRuntime().skipReason;
  }
  cl_kernel kernel(const std::string &corpusFile, const char *name, bool own = false) {
    auto module = parse(own ? readKernelFile(corpusFile) : readCorpus(corpusFile));
    if (!module) return nullptr;
    compiler::CompileOptions options;
    options.target = compiler::TargetKind::SpirV;
    auto artifact = compiler::compileModule(*module, options);
    if (!artifact) {
      ADD_FAILURE() << artifact.error().message();
      return nullptr;
    }
    OpenCL &cl = intelRuntime();
    cl_int e;
    cl_program program = clCreateProgramWithIL(cl.context, artifact->bytes.data(),
                                               artifact->bytes.size(), &e);
    if (e != CL_SUCCESS) {
      ADD_FAILURE() << "clCreateProgramWithIL: " << e;
      return nullptr;
    }
    if (clBuildProgram(program, 1, &cl.device, "", nullptr, nullptr) != CL_SUCCESS) {
      std::string log(1 << 16, '\0');
      clGetProgramBuildInfo(program, cl.device, CL_PROGRAM_BUILD_LOG, log.size(), log.data(),
                            nullptr);
      ADD_FAILURE() << "build failed: " << log.c_str();
      return nullptr;
    }
    cl_kernel k = clCreateKernel(program, name, &e);
    EXPECT_EQ(e, CL_SUCCESS);
    return e == CL_SUCCESS ? k : nullptr;
  }
  template <typename T> cl_mem buffer(std::vector<T> &v) {
    cl_int e;
    cl_mem m = clCreateBuffer(intelRuntime().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              v.size() * sizeof(T), v.data(), &e);
    EXPECT_EQ(e, CL_SUCCESS);
    buffers_.push_back({m, v.data(), v.size() * sizeof(T)});
    return m;
  }
  template <typename T> void arg(cl_kernel k, cl_uint i, const T &v) {
    ASSERT_EQ(clSetKernelArg(k, i, sizeof(T), &v), CL_SUCCESS);
  }
  /// Launches with dpk's dimension order and reads every buffer back.
  void launch(cl_kernel k, unsigned dims, std::vector<size_t> global, std::vector<size_t> local) {
    size_t g[3], l[3];
    for (unsigned d = 0; d < dims; ++d) {
      g[dims - 1 - d] = global[d];
      l[dims - 1 - d] = local[d];
    }
    OpenCL &cl = intelRuntime();
    ASSERT_EQ(clEnqueueNDRangeKernel(cl.queue, k, dims, nullptr, g, l, 0, nullptr, nullptr),
              CL_SUCCESS);
    for (auto &b : buffers_)
      ASSERT_EQ(clEnqueueReadBuffer(cl.queue, b.mem, CL_TRUE, 0, b.bytes, b.host, 0, nullptr,
                                    nullptr),
                CL_SUCCESS);
    for (auto &b : buffers_) clReleaseMemObject(b.mem);
    buffers_.clear();
  }

private:
  struct Buffer {
    cl_mem mem;
    void *host;
    size_t bytes;
  };
  std::vector<Buffer> buffers_;
};

TEST_F(SpirvOnIntelCpu, VectorAdd) {
  cl_kernel k = kernel("vector_add.dpkir", "vector_add");
  ASSERT_TRUE(k);
  const size_t n = 4096;
  std::vector<float> a(n), b(n), c(n), a0, b0;
  for (size_t i = 0; i < n; ++i) a[i] = 0.5f * i, b[i] = 1.0f - i;
  a0 = a, b0 = b;
  arg(k, 0, buffer(a)), arg(k, 1, buffer(b)), arg(k, 2, buffer(c));
  launch(k, 1, {n}, {64});
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a0[i] + b0[i]) << i;
}

TEST_F(SpirvOnIntelCpu, PairwiseDistanceTwoDimensions) {
  cl_kernel k = kernel("pairwise_distance.dpkir", "pairwise_distance");
  ASSERT_TRUE(k);
  int64_t n = 64, d = 3, one = 1;
  std::vector<float> x(n * d), dist(n * n);
  for (int64_t i = 0; i < n * d; ++i) x[i] = std::sin(0.37f * i);
  std::vector<float> x0 = x;
  arg(k, 0, buffer(x)), arg(k, 1, n), arg(k, 2, d), arg(k, 3, d), arg(k, 4, one);
  arg(k, 5, buffer(dist)), arg(k, 6, n), arg(k, 7, n), arg(k, 8, n), arg(k, 9, one);
  launch(k, 2, {size_t(n), size_t(n)}, {4, 16});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t c = 0; c < d; ++c) {
        float t = x0[i * d + c] - x0[j * d + c];
        acc += t * t;
      }
      ASSERT_NEAR(dist[i * n + j], std::sqrt(acc), 1e-5f * (1 + std::sqrt(acc))) << i << "," << j;
    }
}

TEST_F(SpirvOnIntelCpu, TiledMatmulWithBarriers) {
  cl_kernel k = kernel("tiled_matmul.dpkir", "tiled_matmul");
  ASSERT_TRUE(k);
  int64_t n = 64;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (int64_t i = 0; i < n * n; ++i) a[i] = float(i % 7) - 3, b[i] = float(i % 5) * 0.5f;
  std::vector<float> a0 = a, b0 = b;
  arg(k, 0, buffer(a)), arg(k, 1, buffer(b)), arg(k, 2, buffer(c)), arg(k, 3, n);
  launch(k, 2, {size_t(n), size_t(n)}, {16, 16});
  for (int64_t r = 0; r < n; ++r)
    for (int64_t col = 0; col < n; ++col) {
      float acc = 0;
      for (int64_t i = 0; i < n; ++i) acc += a0[r * n + i] * b0[i * n + col];
      ASSERT_NEAR(c[r * n + col], acc, 1e-4f * (1 + std::fabs(acc))) << r << "," << col;
    }
}

TEST_F(SpirvOnIntelCpu, WorkGroupReduction) {
  cl_kernel k = kernel("wg_reduction.dpkir", "wg_reduction");
  ASSERT_TRUE(k);
  const size_t n = 4096, L = 128;
  std::vector<float> in(n), partial(n / L);
  for (size_t i = 0; i < n; ++i) in[i] = float(i % 13);
  std::vector<float> in0 = in;
  arg(k, 0, buffer(in)), arg(k, 1, buffer(partial));
  launch(k, 1, {n}, {L});
  for (size_t g = 0; g < n / L; ++g) {
    float expect = 0;
    for (size_t l = 0; l < L; ++l) expect += in0[g * L + l];
    ASSERT_EQ(partial[g], expect) << g;
  }
}

TEST_F(SpirvOnIntelCpu, AtomicsLocalAndGlobal) {
  cl_kernel k = kernel("atomics_all.dpkir", "atomics_local");
  ASSERT_TRUE(k);
  const size_t L = 64, G = 8;
  std::vector<int32_t> o32(2 * G);
  std::vector<int64_t> o64(G);
  std::vector<float> f32(G);
  std::vector<double> f64(G);
  arg(k, 0, buffer(o32)), arg(k, 1, buffer(o64)), arg(k, 2, buffer(f32)), arg(k, 3, buffer(f64));
  launch(k, 1, {L * G}, {L});
  for (size_t g = 0; g < G; ++g) {
    EXPECT_EQ(o32[2 * g], int32_t(L));
    EXPECT_EQ(o32[2 * g + 1], int32_t(L));
    EXPECT_EQ(o64[g], int64_t(L - 1));
    EXPECT_EQ(f32[g], float(L));
    EXPECT_EQ(f64[g], double(L) / 2);
  }
  cl_kernel k2 = kernel("atomics_all.dpkir", "atomics_global");
  ASSERT_TRUE(k2);
  const int64_t N = 1024;
  std::vector<int32_t> i32(10, 100), loaded(N);
  std::vector<int64_t> i64(10, 100);
  std::vector<float> fl32(7, 10);
  std::vector<double> fl64(7, 10);
  arg(k2, 0, buffer(i32)), arg(k2, 1, buffer(i64)), arg(k2, 2, buffer(fl32));
  arg(k2, 3, buffer(fl64)), arg(k2, 4, buffer(loaded));
  launch(k2, 1, {size_t(N)}, {64});
  EXPECT_EQ(i32[0], 100 + N);
  EXPECT_EQ(i32[1], 100 - N);
  EXPECT_EQ(i32[3], N - 1);
  EXPECT_EQ(i32[8], 100 + N);
  EXPECT_EQ(i64[0], 100 + N);
  EXPECT_EQ(fl32[0], 10.0f + N);
  EXPECT_EQ(fl32[1], 10.0f - N);
  EXPECT_EQ(fl32[3], float(N - 1));
  EXPECT_EQ(fl64[5], 10.0 + N);
}

TEST_F(SpirvOnIntelCpu, MathF32) {
  cl_kernel k = kernel("math_all.dpkir", "math_all_f32");
  ASSERT_TRUE(k);
  const size_t n = 64;
  std::vector<float> x(n), y(n), out(39 * n);
  std::vector<int32_t> e(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = 0.1f + 0.8f * i / (n - 1), y[i] = 0.5f + 1.5f * (i % 17) / 16.0f, e[i] = int(i % 9) - 4;
  std::vector<float> x0 = x, y0 = y;
  std::vector<int32_t> e0 = e;
  arg(k, 0, buffer(x)), arg(k, 1, buffer(y)), arg(k, 2, buffer(e)), arg(k, 3, buffer(out));
  launch(k, 1, {n}, {16});
  for (size_t i = 0; i < n; ++i) {
    float a = x0[i], b = y0[i];
    const float expect[39] = {
        std::fabs(a),  std::exp(a),    std::expm1(a), std::exp2(a),  std::log(a),
        std::log10(a), std::log1p(a),  std::log2(a),  std::sqrt(a),  std::sin(a),
        std::cos(a),   std::tan(a),    std::asin(a),  std::acos(a),  std::atan(a),
        std::atan2(a, b), std::sinh(a), std::cosh(a), std::tanh(a),  std::asinh(a),
        std::acosh(a), std::atanh(a),  std::floor(a), std::ceil(a),  std::trunc(a),
        std::copysign(a, b), std::pow(a, b), std::fmod(a, b), std::erf(a), std::erfc(a),
        std::tgamma(a), std::lgamma(a), std::ldexp(a, e0[i]), std::hypot(a, b), 0, 0,
        std::fmin(a, b), std::fmax(a, b), std::fabs(a)};
    for (int f = 0; f < 39; ++f) {
      float got = out[f * n + i];
      if (std::isnan(expect[f])) {
        EXPECT_TRUE(std::isnan(got)) << "function " << f;
        continue;
      }
      ASSERT_NEAR(got, expect[f], 1e-5f * (1 + std::fabs(expect[f]))) << "function " << f << " x=" << a;
    }
  }
}

// OpBitCount in every integer width, as Intel's SPIR-V consumer reads it.
TEST_F(SpirvOnIntelCpu, Popcount) {
  forEachPopcountType([&](auto zero, const char *type) {
    using T = decltype(zero);
    SCOPED_TRACE(type);
    cl_kernel k = kernel("popcount.dpkir", (std::string("popcount_") + type).c_str());
    ASSERT_TRUE(k);
    const size_t n = 128;
    std::vector<T> x = popcountInputs<T>(n), out(n, T(-1));
    const std::vector<T> x0 = x;
    arg(k, 0, buffer(x)), arg(k, 1, buffer(out));
    launch(k, 1, {n}, {16});
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(int64_t(out[i]), int64_t(popcountReference(x0[i])))
          << "popcount of " << int64_t(x0[i]) << " at " << i;
  });
}

TEST_F(SpirvOnIntelCpu, LocalMemoryArgument) {
  cl_kernel k = kernel("local_param.dpkir", "rotate_local", true);
  ASSERT_TRUE(k);
  const size_t L = 16, n = 64;
  std::vector<float> in(n), out(n);
  for (size_t i = 0; i < n; ++i) in[i] = float(i);
  std::vector<float> in0 = in;
  arg(k, 0, buffer(in)), arg(k, 1, buffer(out));
  ASSERT_EQ(clSetKernelArg(k, 2, L * sizeof(float), nullptr), CL_SUCCESS);
  launch(k, 1, {n}, {L});
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in0[i / L * L + (i % L + 1) % L]) << i;
}

} // namespace
} // namespace dpk::test

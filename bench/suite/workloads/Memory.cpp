// Memory.cpp - memory-bound workloads: the STREAM triad (f64) and vector add (f32). Their
// baselines are the same loops hand-written with oneTBB, whose bandwidth is the STREAM-style
// figure of the machine.
#include "Common.h"

#include <tbb/parallel_for.h>

namespace dpk::bench {
namespace {

class Triad final : public Problem {
public:
  explicit Triad(size_t n) : n(n) {
    workload = "triad";
    sizeLabel = "n=" + sizeName(n);
    kernelFile = corpusKernel("triad");
    kernelName = "triad";
    size_t a = addPoisonedOutput<double>("a", n);
    size_t b = addArray("b", randomValues<double>(n, 1), false);
    size_t c = addArray("c", randomValues<double>(n, 2), false);
    args = {ArgSpec::pointer(a), ArgSpec::pointer(b), ArgSpec::pointer(c), ArgSpec::scalar(scale),
            ArgSpec::scalar<int64_t>(int64_t(n))};
    range = {1, {n, 1, 1}, {0, 0, 0}};
    bytesMoved = 3.0 * 8 * n;
    flops = 2.0 * n;
  }
  std::string verify() const override {
    const double *a = arrays[0].as<double>(), *b = arrays[1].as<double>(), *c = arrays[2].as<double>();
    std::vector<double> want(n);
    for (size_t i = 0; i < n; ++i)
      want[i] = b[i] + scale * c[i];
    return compareAll("a", a, want, n, 1e-15);
  }
  void runTbbBaseline() override {
    double *a = arrays[0].as<double>();
    const double *b = arrays[1].as<double>(), *c = arrays[2].as<double>();
    const double s = scale;
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1 << 14), [=](const tbb::blocked_range<size_t> &r) {
      for (size_t i = r.begin(); i != r.end(); ++i)
        a[i] = b[i] + s * c[i];
    });
  }
  std::string openclSource() const override {
    return "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
           "__kernel void triad(__global double *a, __global const double *b, __global const double *c,\n"
           "                    double s, long n) {\n"
           "  size_t i = get_global_id(0);\n"
           "  if (i < n) a[i] = b[i] + s * c[i];\n"
           "}\n";
  }

private:
  size_t n;
  double scale = 3.0;
};

class VectorAdd final : public Problem {
public:
  explicit VectorAdd(size_t n) : n(n) {
    workload = "vector_add";
    sizeLabel = "n=" + sizeName(n);
    kernelFile = corpusKernel("vector_add");
    kernelName = "vector_add";
    size_t a = addArray("a", randomValues<float>(n, 3), false);
    size_t b = addArray("b", randomValues<float>(n, 4), false);
    size_t c = addPoisonedOutput<float>("c", n);
    args = {ArgSpec::pointer(a), ArgSpec::pointer(b), ArgSpec::pointer(c)};
    range = {1, {n, 1, 1}, {0, 0, 0}};
    bytesMoved = 3.0 * 4 * n;
    flops = double(n);
  }
  std::string verify() const override {
    const float *a = arrays[0].as<float>(), *b = arrays[1].as<float>(), *c = arrays[2].as<float>();
    std::vector<float> want(n);
    for (size_t i = 0; i < n; ++i)
      want[i] = a[i] + b[i];
    return compareAll("c", c, want, n, 0.0);
  }
  void runTbbBaseline() override {
    const float *a = arrays[0].as<float>(), *b = arrays[1].as<float>();
    float *c = arrays[2].as<float>();
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1 << 14), [=](const tbb::blocked_range<size_t> &r) {
      for (size_t i = r.begin(); i != r.end(); ++i)
        c[i] = a[i] + b[i];
    });
  }
  std::string openclSource() const override {
    return "__kernel void vector_add(__global const float *a, __global const float *b, __global float *c) {\n"
           "  size_t i = get_global_id(0);\n"
           "  c[i] = a[i] + b[i];\n"
           "}\n";
  }

private:
  size_t n;
};

} // namespace

std::unique_ptr<Problem> makeTriad(int size) {
  static const size_t sizes[] = {1 << 16, 1 << 22, 1 << 25};
  return std::make_unique<Triad>(sizes[size]);
}
std::unique_ptr<Problem> makeVectorAdd(int size) {
  static const size_t sizes[] = {1 << 16, 1 << 22, 1 << 25};
  return std::make_unique<VectorAdd>(sizes[size]);
}

} // namespace dpk::bench

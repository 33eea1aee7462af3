// Barriers.cpp - workloads with work-group barriers, local memory and atomics: tiled matrix
// multiply, work-group tree reduction, a full reduction finished with atomics, and an atomic
// histogram (gpairs-style).
#include "Common.h"

#include <tbb/combinable.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <atomic>

namespace dpk::bench {
namespace {

class TiledMatmul final : public Problem {
public:
  explicit TiledMatmul(int64_t n) : n(n) {
    workload = "tiled_matmul";
    sizeLabel = "n=" + std::to_string(n);
    kernelFile = corpusKernel("tiled_matmul");
    kernelName = "tiled_matmul";
    size_t a = addArray("a", randomValues<float>(n * n, 12), false);
    size_t b = addArray("b", randomValues<float>(n * n, 13), false);
    size_t c = addPoisonedOutput<float>("c", n * n);
    args = {ArgSpec::pointer(a), ArgSpec::pointer(b), ArgSpec::pointer(c), ArgSpec::scalar<int64_t>(n)};
    range = {2, {uint64_t(n), uint64_t(n), 1}, {16, 16, 1}};
    flops = 2.0 * n * n * n;
  }
  std::string verify() const override {
    const float *a = arrays[0].as<float>(), *b = arrays[1].as<float>();
    std::vector<double> want(n * n, 0.0);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t k = 0; k < n; ++k)
        for (int64_t c = 0; c < n; ++c)
          want[r * n + c] += double(a[r * n + k]) * double(b[k * n + c]);
    return compareAll("c", arrays[2].as<float>(), want, want.size(), 1e-4);
  }
  void runTbbBaseline() override {
    const float *a = arrays[0].as<float>(), *b = arrays[1].as<float>();
    float *c = arrays[2].as<float>();
    const int64_t n = this->n;
    // Row blocks in parallel; i-k-j order so the innermost loop streams rows of B and C.
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, 8), [=](const tbb::blocked_range<int64_t> &rows) {
      for (int64_t r = rows.begin(); r != rows.end(); ++r) {
        float *out = c + r * n;
        for (int64_t j = 0; j < n; ++j)
          out[j] = 0.0f;
        for (int64_t k = 0; k < n; ++k) {
          const float scale = a[r * n + k];
          const float *row = b + k * n;
          for (int64_t j = 0; j < n; ++j)
            out[j] += scale * row[j];
        }
      }
    });
  }
  std::string openclSource() const override {
    return "#define T 16\n"
           "__kernel void tiled_matmul(__global const float *a, __global const float *b, __global float *c, long n) {\n"
           "  __local float ta[T][T], tb[T][T];\n"
           "  int lc = get_local_id(0), lr = get_local_id(1);\n"
           "  long col = get_global_id(0), row = get_global_id(1);\n"
           "  float sum = 0.0f;\n"
           "  for (long t = 0; t < n; t += T) {\n"
           "    ta[lr][lc] = a[row * n + t + lc];\n"
           "    tb[lr][lc] = b[(t + lr) * n + col];\n"
           "    barrier(CLK_LOCAL_MEM_FENCE);\n"
           "    for (int k = 0; k < T; ++k) sum += ta[lr][k] * tb[k][lc];\n"
           "    barrier(CLK_LOCAL_MEM_FENCE);\n"
           "  }\n"
           "  c[row * n + col] = sum;\n"
           "}\n";
  }

private:
  int64_t n;
};

class WorkGroupReduction final : public Problem {
public:
  explicit WorkGroupReduction(size_t n) : n(n) {
    workload = "wg_reduction";
    sizeLabel = "n=" + sizeName(n) + ",L=256";
    kernelFile = corpusKernel("wg_reduction");
    kernelName = "wg_reduction";
    std::vector<float> in(n);
    for (size_t i = 0; i < n; ++i)
      in[i] = float(i % 13); // small integers: every partial sum is exact
    size_t input = addArray("in", in, false);
    size_t partial = addPoisonedOutput<float>("partial", n / local);
    args = {ArgSpec::pointer(input), ArgSpec::pointer(partial)};
    range = {1, {n, 1, 1}, {local, 1, 1}};
    bytesMoved = 4.0 * n;
  }
  std::string verify() const override {
    std::vector<double> want(n / local, 0.0);
    for (size_t i = 0; i < n; ++i)
      want[i / local] += arrays[0].as<float>()[i];
    return compareAll("partial", arrays[1].as<float>(), want, want.size(), 0.0);
  }
  void runTbbBaseline() override {
    const float *in = arrays[0].as<float>();
    float *partial = arrays[1].as<float>();
    const size_t local = this->local;
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n / local, 64), [=](const tbb::blocked_range<size_t> &groups) {
      for (size_t g = groups.begin(); g != groups.end(); ++g) {
        float sum = 0.0f;
        for (size_t l = 0; l < local; ++l)
          sum += in[g * local + l];
        partial[g] = sum;
      }
    });
  }
  std::string openclSource() const override {
    return "__kernel void wg_reduction(__global const float *in, __global float *partial) {\n"
           "  __local float scratch[256];\n"
           "  size_t lid = get_local_id(0), ls = get_local_size(0);\n"
           "  scratch[lid] = in[get_global_id(0)];\n"
           "  barrier(CLK_LOCAL_MEM_FENCE);\n"
           "  for (size_t s = ls / 2; s > 0; s /= 2) {\n"
           "    if (lid < s) scratch[lid] += scratch[lid + s];\n"
           "    barrier(CLK_LOCAL_MEM_FENCE);\n"
           "  }\n"
           "  if (lid == 0) partial[get_group_id(0)] = scratch[0];\n"
           "}\n";
  }

private:
  size_t n, local = 256;
};

class AtomicSum final : public Problem {
public:
  explicit AtomicSum(size_t n) : n(n) {
    workload = "atomic_sum";
    sizeLabel = "n=" + sizeName(n);
    kernelFile = benchKernel("atomic_sum");
    kernelName = "atomic_sum";
    std::vector<int32_t> in(n);
    for (size_t i = 0; i < n; ++i)
      in[i] = int32_t(i % 7) - 3;
    size_t input = addArray("in", in, false);
    size_t total = addArray("total", std::vector<int32_t>(1, 0), true);
    args = {ArgSpec::pointer(input), ArgSpec::pointer(total)};
    range = {1, {n, 1, 1}, {256, 1, 1}};
    bytesMoved = 4.0 * n;
  }
  std::string verify() const override {
    int64_t want = 0;
    for (size_t i = 0; i < n; ++i)
      want += arrays[0].as<int32_t>()[i];
    std::vector<int64_t> expected(1, want);
    return compareAll("total", arrays[1].as<int32_t>(), expected, 1, 0.0);
  }
  void runTbbBaseline() override {
    const int32_t *in = arrays[0].as<int32_t>();
    arrays[1].as<int32_t>()[0] = tbb::parallel_reduce(
        tbb::blocked_range<size_t>(0, n, 1 << 14), int32_t(0),
        [=](const tbb::blocked_range<size_t> &r, int32_t sum) {
          for (size_t i = r.begin(); i != r.end(); ++i)
            sum += in[i];
          return sum;
        },
        [](int32_t a, int32_t b) { return a + b; });
  }
  std::string openclSource() const override {
    return "__kernel void atomic_sum(__global const int *in, __global int *total) {\n"
           "  __local int scratch[256];\n"
           "  size_t lid = get_local_id(0);\n"
           "  scratch[lid] = in[get_global_id(0)];\n"
           "  barrier(CLK_LOCAL_MEM_FENCE);\n"
           "  for (size_t s = 128; s > 0; s /= 2) {\n"
           "    if (lid < s) scratch[lid] += scratch[lid + s];\n"
           "    barrier(CLK_LOCAL_MEM_FENCE);\n"
           "  }\n"
           "  if (lid == 0) atomic_add(total, scratch[0]);\n"
           "}\n";
  }

private:
  size_t n;
};

class Histogram final : public Problem {
public:
  explicit Histogram(size_t n) : n(n) {
    workload = "histogram";
    sizeLabel = "n=" + sizeName(n) + ",bins=256";
    kernelFile = corpusKernel("atomic_histogram");
    kernelName = "atomic_histogram";
    std::vector<int32_t> data(n);
    std::mt19937 rng(14);
    for (int32_t &v : data)
      v = int32_t(rng() % bins);
    size_t input = addArray("data", data, false);
    size_t hist = addArray("hist", std::vector<int32_t>(bins, 0), true);
    args = {ArgSpec::pointer(input), ArgSpec::pointer(hist), ArgSpec::scalar<int64_t>(int64_t(n))};
    range = {1, {n, 1, 1}, {0, 0, 0}};
    bytesMoved = 4.0 * n;
  }
  std::string verify() const override {
    std::vector<int64_t> want(bins, 0);
    for (size_t i = 0; i < n; ++i)
      ++want[arrays[0].as<int32_t>()[i]];
    return compareAll("hist", arrays[1].as<int32_t>(), want, bins, 0.0);
  }
  void runTbbBaseline() override {
    const int32_t *data = arrays[0].as<int32_t>();
    // Per-thread private histograms merged at the end: what an expert writes on a CPU.
    tbb::combinable<std::vector<int32_t>> local([&] { return std::vector<int32_t>(bins, 0); });
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1 << 14), [&](const tbb::blocked_range<size_t> &r) {
      std::vector<int32_t> &mine = local.local();
      for (size_t i = r.begin(); i != r.end(); ++i)
        ++mine[data[i]];
    });
    int32_t *hist = arrays[1].as<int32_t>();
    std::fill(hist, hist + bins, 0);
    local.combine_each([&](const std::vector<int32_t> &part) {
      for (size_t b = 0; b < bins; ++b)
        hist[b] += part[b];
    });
  }
  std::string openclSource() const override {
    return "__kernel void atomic_histogram(__global const int *data, __global int *hist, long n) {\n"
           "  size_t i = get_global_id(0);\n"
           "  if (i < n) atomic_inc(&hist[data[i]]);\n"
           "}\n";
  }

private:
  size_t n, bins = 256;
};

} // namespace

std::unique_ptr<Problem> makeTiledMatmul(int size) {
  static const int64_t sizes[] = {32, 256, 1024};
  return std::make_unique<TiledMatmul>(sizes[size]);
}
std::unique_ptr<Problem> makeWorkGroupReduction(int size) {
  static const size_t sizes[] = {1 << 12, 1 << 20, 1 << 24};
  return std::make_unique<WorkGroupReduction>(sizes[size]);
}
std::unique_ptr<Problem> makeAtomicSum(int size) {
  static const size_t sizes[] = {1 << 12, 1 << 20, 1 << 24};
  return std::make_unique<AtomicSum>(sizes[size]);
}
std::unique_ptr<Problem> makeHistogram(int size) {
  static const size_t sizes[] = {1 << 12, 1 << 20, 1 << 24};
  return std::make_unique<Histogram>(sizes[size]);
}

} // namespace dpk::bench

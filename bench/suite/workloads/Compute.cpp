// Compute.cpp - compute-bound workloads: pairwise distance (2-D range over views), Black-Scholes
// (math-heavy, f64), the k-means assignment step and all-pairs n-body. Baselines are the same
// loops hand-written with oneTBB, built -O3 -march=native -fno-math-errno like an expert would.
#include "Common.h"

#include <tbb/parallel_for.h>

#include <cmath>
#include <limits>

namespace dpk::bench {
namespace {

class PairwiseDistance final : public Problem {
public:
  explicit PairwiseDistance(int64_t n) : n(n) {
    workload = "pairwise_distance";
    sizeLabel = "n=" + std::to_string(n) + ",d=3";
    kernelFile = corpusKernel("pairwise_distance");
    kernelName = "pairwise_distance";
    size_t x = addArray("x", randomValues<float>(n * d, 5), false);
    size_t dist = addPoisonedOutput<float>("dist", n * n);
    args = {ArgSpec::view(x, {n, d}), ArgSpec::view(dist, {n, n})};
    range = {2, {uint64_t(n), uint64_t(n), 1}, {0, 0, 0}};
    bytesMoved = 4.0 * n * n;
    flops = 3.0 * d * n * n + n * n;
  }
  std::string verify() const override {
    const float *x = arrays[0].as<float>(), *dist = arrays[1].as<float>();
    std::vector<double> want(n * n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < d; ++k) {
          double diff = double(x[i * d + k]) - double(x[j * d + k]);
          sum += diff * diff;
        }
        want[i * n + j] = std::sqrt(sum);
      }
    return compareAll("dist", dist, want, want.size(), 1e-5);
  }
  void runTbbBaseline() override {
    const float *x = arrays[0].as<float>();
    float *dist = arrays[1].as<float>();
    const int64_t n = this->n, d = this->d;
    // Loops ordered so the innermost one runs over j with unit-stride stores: GCC vectorizes it
    // (the naive j-outer, k-inner order does not vectorize and runs 2x slower here).
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, 16), [=](const tbb::blocked_range<int64_t> &rows) {
      std::vector<float> sums(n);
      for (int64_t i = rows.begin(); i != rows.end(); ++i) {
        float *row = dist + i * n;
        std::fill(sums.begin(), sums.end(), 0.0f);
        for (int64_t k = 0; k < d; ++k) {
          const float xik = x[i * d + k];
          for (int64_t j = 0; j < n; ++j) {
            float diff = xik - x[j * d + k];
            sums[j] += diff * diff;
          }
        }
        for (int64_t j = 0; j < n; ++j)
          row[j] = std::sqrt(sums[j]);
      }
    });
  }
  std::string openclSource() const override {
    return "__kernel void pairwise_distance(__global const float *x, __global float *dist, long n, long d) {\n"
           "  size_t j = get_global_id(0), i = get_global_id(1);\n"
           "  float sum = 0.0f;\n"
           "  for (long k = 0; k < d; ++k) { float diff = x[i * d + k] - x[j * d + k]; sum += diff * diff; }\n"
           "  dist[i * n + j] = sqrt(sum);\n"
           "}\n";
  }
  std::vector<ArgSpec> openclArgs() const override {
    return {ArgSpec::pointer(0), ArgSpec::pointer(1), ArgSpec::scalar<int64_t>(n), ArgSpec::scalar<int64_t>(d)};
  }

private:
  int64_t n, d = 3;
};

struct OptionPrices {
  double call, put;
};

OptionPrices blackScholes(double s, double k, double t, double r, double v) {
  auto cdf = [](double x) { return 0.5 * (1.0 + std::erf(x * (1.0 / std::sqrt(2.0)))); };
  double d1 = (std::log(s / k) + (r + v * v / 2.0) * t) / (v * std::sqrt(t));
  double d2 = d1 - v * std::sqrt(t);
  double discounted = k * std::exp(-r * t);
  return {s * cdf(d1) - discounted * cdf(d2), discounted * cdf(-d2) - s * cdf(-d1)};
}

class BlackScholes final : public Problem {
public:
  explicit BlackScholes(size_t n) : n(n) {
    workload = "black_scholes";
    sizeLabel = "n=" + sizeName(n);
    kernelFile = corpusKernel("black_scholes");
    kernelName = "black_scholes";
    size_t price = addArray("price", randomValues<double>(n, 6, 10.0, 50.0), false);
    size_t strike = addArray("strike", randomValues<double>(n, 7, 10.0, 25.0), false);
    size_t t = addArray("t", randomValues<double>(n, 8, 1.0, 2.0), false);
    size_t call = addPoisonedOutput<double>("call", n);
    size_t put = addPoisonedOutput<double>("put", n);
    args = {ArgSpec::pointer(price), ArgSpec::pointer(strike), ArgSpec::pointer(t), ArgSpec::pointer(call),
            ArgSpec::pointer(put), ArgSpec::scalar(rate), ArgSpec::scalar(vol)};
    range = {1, {n, 1, 1}, {0, 0, 0}};
    bytesMoved = 5.0 * 8 * n;
  }
  std::string verify() const override {
    std::vector<double> wantCall(n), wantPut(n);
    for (size_t i = 0; i < n; ++i) {
      OptionPrices p = blackScholes(arrays[0].as<double>()[i], arrays[1].as<double>()[i], arrays[2].as<double>()[i], rate, vol);
      wantCall[i] = p.call;
      wantPut[i] = p.put;
    }
    std::string error = compareAll("call", arrays[3].as<double>(), wantCall, n, 1e-9);
    return error.empty() ? compareAll("put", arrays[4].as<double>(), wantPut, n, 1e-9) : error;
  }
  void runTbbBaseline() override {
    const double *s = arrays[0].as<double>(), *k = arrays[1].as<double>(), *t = arrays[2].as<double>();
    double *call = arrays[3].as<double>(), *put = arrays[4].as<double>();
    const double r = rate, v = vol;
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 4096), [=](const tbb::blocked_range<size_t> &range) {
      for (size_t i = range.begin(); i != range.end(); ++i) {
        OptionPrices p = blackScholes(s[i], k[i], t[i], r, v);
        call[i] = p.call;
        put[i] = p.put;
      }
    });
  }
  std::string openclSource() const override {
    return "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
           "double cdf(double x) { return 0.5 * (1.0 + erf(x * (1.0 / sqrt(2.0)))); }\n"
           "__kernel void black_scholes(__global const double *S, __global const double *K, __global const double *T,\n"
           "                            __global double *call, __global double *put, double r, double v) {\n"
           "  size_t i = get_global_id(0);\n"
           "  double s = S[i], k = K[i], t = T[i];\n"
           "  double d1 = (log(s / k) + (r + v * v / 2.0) * t) / (v * sqrt(t));\n"
           "  double d2 = d1 - v * sqrt(t);\n"
           "  double disc = k * exp(-r * t);\n"
           "  call[i] = s * cdf(d1) - disc * cdf(d2);\n"
           "  put[i] = disc * cdf(-d2) - s * cdf(-d1);\n"
           "}\n";
  }

private:
  size_t n;
  double rate = 0.1, vol = 0.2;
};

class KMeansAssign final : public Problem {
public:
  explicit KMeansAssign(int64_t n) : n(n) {
    workload = "kmeans_assign";
    sizeLabel = "n=" + sizeName(size_t(n)) + ",k=16,d=4";
    kernelFile = benchKernel("kmeans_assign");
    kernelName = "kmeans_assign";
    size_t points = addArray("points", randomValues<float>(n * d, 9), false);
    size_t centroids = addArray("centroids", randomValues<float>(k * d, 10), false);
    size_t labels = addPoisonedOutput<int32_t>("labels", n);
    args = {ArgSpec::view(points, {n, d}), ArgSpec::view(centroids, {k, d}), ArgSpec::pointer(labels)};
    range = {1, {uint64_t(n), 1, 1}, {0, 0, 0}};
    flops = 3.0 * n * k * d;
  }
  static int32_t nearest(const float *p, const float *centroids, int64_t k, int64_t d) {
    float best = std::numeric_limits<float>::max();
    int32_t index = 0;
    for (int64_t c = 0; c < k; ++c) {
      float sum = 0.0f;
      for (int64_t j = 0; j < d; ++j) {
        float diff = p[j] - centroids[c * d + j];
        sum += diff * diff;
      }
      if (sum < best) {
        best = sum;
        index = int32_t(c);
      }
    }
    return index;
  }
  static float distance2(const float *p, const float *centroid, int64_t d) {
    float sum = 0.0f;
    for (int64_t j = 0; j < d; ++j) {
      float diff = p[j] - centroid[j];
      sum += diff * diff;
    }
    return sum;
  }
  // A label is right when its centroid is as near as the nearest one up to rounding: targets
  // that fuse multiply-adds may break near-ties the other way.
  std::string verify() const override {
    const float *points = arrays[0].as<float>(), *centroids = arrays[1].as<float>();
    const int32_t *labels = arrays[2].as<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      int32_t want = nearest(points + i * d, centroids, k, d);
      if (labels[i] == want)
        continue;
      if (labels[i] < 0 || labels[i] >= k)
        return "labels[" + std::to_string(i) + "] = " + std::to_string(labels[i]) + " is not a centroid";
      float best = distance2(points + i * d, centroids + want * d, d);
      float got = distance2(points + i * d, centroids + labels[i] * d, d);
      if (got > best * (1.0f + 1e-5f) + 1e-12f)
        return "labels[" + std::to_string(i) + "] = " + std::to_string(labels[i]) + ", expected " + std::to_string(want);
    }
    return "";
  }
  void runTbbBaseline() override {
    const float *points = arrays[0].as<float>(), *centroids = arrays[1].as<float>();
    int32_t *labels = arrays[2].as<int32_t>();
    const int64_t n = this->n, k = this->k, d = this->d;
    // Blocks of 16 points with the point loop innermost, so GCC vectorizes across points (as
    // dpk does across work-items) instead of running each short distance sum alone.
    constexpr int64_t B = 16;
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, n / B), [=](const tbb::blocked_range<int64_t> &blocks) {
      for (int64_t blockIndex = blocks.begin(); blockIndex != blocks.end(); ++blockIndex) {
        const float *p = points + blockIndex * B * d;
        float best[B], dist[B];
        int32_t index[B];
        for (int64_t b = 0; b < B; ++b) {
          best[b] = std::numeric_limits<float>::max();
          index[b] = 0;
        }
        for (int64_t c = 0; c < k; ++c) {
          for (int64_t b = 0; b < B; ++b)
            dist[b] = 0.0f;
          for (int64_t j = 0; j < d; ++j) {
            const float q = centroids[c * d + j];
            for (int64_t b = 0; b < B; ++b) {
              float diff = p[b * d + j] - q;
              dist[b] += diff * diff;
            }
          }
          for (int64_t b = 0; b < B; ++b) {
            bool closer = dist[b] < best[b];
            best[b] = closer ? dist[b] : best[b];
            index[b] = closer ? int32_t(c) : index[b];
          }
        }
        for (int64_t b = 0; b < B; ++b)
          labels[blockIndex * B + b] = index[b];
      }
    });
  }

private:
  int64_t n, k = 16, d = 4;
};

class NBody final : public Problem {
public:
  explicit NBody(int64_t n) : n(n) {
    workload = "nbody";
    sizeLabel = "n=" + sizeName(size_t(n));
    kernelFile = benchKernel("nbody");
    kernelName = "nbody";
    std::vector<float> pos = randomValues<float>(4 * n, 11);
    for (int64_t i = 0; i < n; ++i)
      pos[4 * i + 3] = std::fabs(pos[4 * i + 3]) + 0.1f; // positive masses
    size_t p = addArray("pos", pos, false);
    size_t acc = addPoisonedOutput<float>("acc", 3 * n);
    args = {ArgSpec::pointer(p), ArgSpec::pointer(acc), ArgSpec::scalar<int64_t>(n), ArgSpec::scalar(eps2)};
    range = {1, {uint64_t(n), 1, 1}, {0, 0, 0}};
    flops = 20.0 * n * n;
  }
  static void accelerate(const float *pos, int64_t n, float eps2, int64_t i, float *out) {
    float sx = 0, sy = 0, sz = 0;
    for (int64_t j = 0; j < n; ++j) {
      float dx = pos[4 * j] - pos[4 * i], dy = pos[4 * j + 1] - pos[4 * i + 1], dz = pos[4 * j + 2] - pos[4 * i + 2];
      float r2 = dx * dx + dy * dy + dz * dz + eps2;
      float s = pos[4 * j + 3] / (r2 * std::sqrt(r2));
      sx += dx * s;
      sy += dy * s;
      sz += dz * s;
    }
    out[0] = sx;
    out[1] = sy;
    out[2] = sz;
  }
  std::string verify() const override {
    std::vector<float> want(3 * n);
    for (int64_t i = 0; i < n; ++i)
      accelerate(arrays[0].as<float>(), n, eps2, i, want.data() + 3 * i);
    return compareAll("acc", arrays[1].as<float>(), want, want.size(), 1e-3);
  }
  void runTbbBaseline() override {
    const float *pos = arrays[0].as<float>();
    float *acc = arrays[1].as<float>();
    const int64_t n = this->n;
    const float eps2 = this->eps2;
    // Blocks of 16 bodies with the body loop innermost: GCC vectorizes across bodies (as dpk
    // does across work-items); each body still sums over j in order.
    constexpr int64_t B = 16;
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, n / B), [=](const tbb::blocked_range<int64_t> &blocks) {
      for (int64_t blockIndex = blocks.begin(); blockIndex != blocks.end(); ++blockIndex) {
        const int64_t i0 = blockIndex * B;
        float xi[B], yi[B], zi[B], ax[B], ay[B], az[B];
        for (int64_t b = 0; b < B; ++b) {
          xi[b] = pos[4 * (i0 + b)];
          yi[b] = pos[4 * (i0 + b) + 1];
          zi[b] = pos[4 * (i0 + b) + 2];
          ax[b] = ay[b] = az[b] = 0.0f;
        }
        for (int64_t j = 0; j < n; ++j) {
          const float xj = pos[4 * j], yj = pos[4 * j + 1], zj = pos[4 * j + 2], mj = pos[4 * j + 3];
          for (int64_t b = 0; b < B; ++b) {
            float dx = xj - xi[b], dy = yj - yi[b], dz = zj - zi[b];
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float s = mj / (r2 * std::sqrt(r2));
            ax[b] += dx * s;
            ay[b] += dy * s;
            az[b] += dz * s;
          }
        }
        for (int64_t b = 0; b < B; ++b) {
          acc[3 * (i0 + b)] = ax[b];
          acc[3 * (i0 + b) + 1] = ay[b];
          acc[3 * (i0 + b) + 2] = az[b];
        }
      }
    });
  }

private:
  int64_t n;
  float eps2 = 0.01f;
};

} // namespace

std::unique_ptr<Problem> makePairwiseDistance(int size) {
  // 16384: issue 18's size (GPUs; the host takes about 30 ms there on 16 cores).
  static const int64_t sizes[] = {64, 1024, 4096, 16384};
  return std::make_unique<PairwiseDistance>(sizes[size]);
}
std::unique_ptr<Problem> makeBlackScholes(int size) {
  static const size_t sizes[] = {1 << 12, 1 << 20, 1 << 22};
  return std::make_unique<BlackScholes>(sizes[size]);
}
std::unique_ptr<Problem> makeKMeansAssign(int size) {
  static const int64_t sizes[] = {1 << 10, 1 << 20, 1 << 22};
  return std::make_unique<KMeansAssign>(sizes[size]);
}
std::unique_ptr<Problem> makeNBody(int size) {
  static const int64_t sizes[] = {256, 4096, 16384};
  return std::make_unique<NBody>(sizes[size]);
}

} // namespace dpk::bench

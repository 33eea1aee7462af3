// BoundsCheck.cpp - the cost of bounds-check mode (compiler/BoundsCheck.h): a streaming kernel
// (the triad over views) and a 5-point stencil, each registered twice, unchecked and checked
// (`<name>` and `<name>_boundscheck`), so that one run reports both side by side. The oneTBB
// baselines are the same loops by hand, without checks.
#include "Common.h"

#include <tbb/blocked_range2d.h>
#include <tbb/parallel_for.h>

namespace dpk::bench {
namespace {

class ViewTriad final : public Problem {
public:
  ViewTriad(size_t n, bool checked) : n(n) {
    workload = checked ? "view_triad_boundscheck" : "view_triad";
    sizeLabel = "n=" + sizeName(n);
    kernelFile = benchKernel("view_triad");
    kernelName = "view_triad";
    boundsCheck = checked;
    size_t a = addPoisonedOutput<double>("a", n);
    size_t b = addArray("b", randomValues<double>(n, 1), false);
    size_t c = addArray("c", randomValues<double>(n, 2), false);
    int64_t extent = int64_t(n);
    args = {ArgSpec::view(a, {extent}), ArgSpec::view(b, {extent}), ArgSpec::view(c, {extent}),
            ArgSpec::scalar(scale)};
    range = {1, {n, 1, 1}, {0, 0, 0}};
    bytesMoved = 3.0 * 8 * n;
    flops = 2.0 * n;
  }
  std::string verify() const override {
    const double *a = arrays[0].as<double>(), *b = arrays[1].as<double>(),
                 *c = arrays[2].as<double>();
    std::vector<double> want(n);
    for (size_t i = 0; i < n; ++i)
      want[i] = b[i] + scale * c[i];
    return compareAll("a", a, want, n, 1e-15);
  }
  void runTbbBaseline() override {
    double *a = arrays[0].as<double>();
    const double *b = arrays[1].as<double>(), *c = arrays[2].as<double>();
    const double s = scale;
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1 << 14),
                      [=](const tbb::blocked_range<size_t> &r) {
                        for (size_t i = r.begin(); i != r.end(); ++i)
                          a[i] = b[i] + s * c[i];
                      });
  }

private:
  size_t n;
  double scale = 3.0;
};

class Stencil2d final : public Problem {
public:
  Stencil2d(size_t n, bool checked) : n(n) {
    workload = checked ? "stencil2d_boundscheck" : "stencil2d";
    sizeLabel = sizeName(n) + "x" + sizeName(n);
    kernelFile = benchKernel("stencil2d");
    kernelName = "stencil2d";
    boundsCheck = checked;
    size_t out = addArray("out", std::vector<float>(n * n, 0.0f), true);
    size_t in = addArray("in", randomValues<float>(n * n, 5), false);
    int64_t extent = int64_t(n);
    args = {ArgSpec::view(out, {extent, extent}), ArgSpec::view(in, {extent, extent})};
    range = {2, {n - 2, n - 2, 1}, {0, 0, 0}};
    bytesMoved = 2.0 * 4 * (n - 2) * (n - 2);
    flops = 6.0 * (n - 2) * (n - 2);
  }
  std::string verify() const override {
    const float *out = arrays[0].as<float>(), *in = arrays[1].as<float>();
    std::vector<float> want(n * n, 0.0f);
    for (size_t i = 1; i + 1 < n; ++i)
      for (size_t j = 1; j + 1 < n; ++j)
        want[i * n + j] = point(in, i, j);
    return compareAll("out", out, want, n * n, 1e-6);
  }
  void runTbbBaseline() override {
    float *out = arrays[0].as<float>();
    const float *in = arrays[1].as<float>();
    const size_t m = n;
    tbb::parallel_for(tbb::blocked_range<size_t>(1, m - 1, 16),
                      [=](const tbb::blocked_range<size_t> &r) {
                        for (size_t i = r.begin(); i != r.end(); ++i)
                          for (size_t j = 1; j + 1 < m; ++j)
                            out[i * m + j] = point(in, i, j, m);
                      });
  }

private:
  float point(const float *in, size_t i, size_t j) const { return point(in, i, j, n); }
  static float point(const float *in, size_t i, size_t j, size_t m) {
    float ns = in[(i - 1) * m + j] + in[(i + 1) * m + j];
    float we = in[i * m + j - 1] + in[i * m + j + 1];
    return (ns + we) * 0.25f - in[i * m + j];
  }
  size_t n;
};

} // namespace

std::unique_ptr<Problem> makeViewTriad(int size) {
  static const size_t sizes[] = {1 << 16, 1 << 22, 1 << 25};
  return std::make_unique<ViewTriad>(sizes[size], false);
}
std::unique_ptr<Problem> makeViewTriadChecked(int size) {
  static const size_t sizes[] = {1 << 16, 1 << 22, 1 << 25};
  return std::make_unique<ViewTriad>(sizes[size], true);
}
std::unique_ptr<Problem> makeStencil2d(int size) {
  static const size_t sizes[] = {256, 2048, 4096};
  return std::make_unique<Stencil2d>(sizes[size], false);
}
std::unique_ptr<Problem> makeStencil2dChecked(int size) {
  static const size_t sizes[] = {256, 2048, 4096};
  return std::make_unique<Stencil2d>(sizes[size], true);
}

} // namespace dpk::bench

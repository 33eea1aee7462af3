// Common.h - small helpers shared by the workload definitions.
#ifndef DPK_BENCH_WORKLOADS_COMMON_H
#define DPK_BENCH_WORKLOADS_COMMON_H

#include "../Problem.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace dpk::bench {

template <typename T> std::vector<T> randomValues(size_t n, unsigned seed, T lo = T(-1), T hi = T(1)) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist{double(lo), double(hi)};
  std::vector<T> v(n);
  for (T &x : v)
    x = T(dist(rng));
  return v;
}

/// "" when every got[i] is within rtol (relative, floor 1) of want[i], else the first mismatch.
template <typename T, typename Ref>
std::string compareAll(const char *what, const T *got, const Ref &want, size_t n, double rtol) {
  for (size_t i = 0; i < n; ++i) {
    double w = double(want[i]), g = double(got[i]);
    if (!(std::fabs(g - w) <= rtol * std::max(1.0, std::fabs(w))))
      return std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(g) + ", expected " + std::to_string(w);
  }
  return "";
}

inline std::string sizeName(size_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0)
    return std::to_string(n >> 20) + "M";
  if (n >= 1024 && n % 1024 == 0)
    return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

} // namespace dpk::bench

#endif

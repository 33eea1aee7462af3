// PairwiseCheck.h - the check every pairwise-distance benchmark runs on its result before timing
// it: a sample of the n x n distances (every 61st row, every 67th column) against a double
// precision reference, within 1e-5 relative (absolute below 1).
#ifndef DPK_BENCH_COMMON_PAIRWISECHECK_H
#define DPK_BENCH_COMMON_PAIRWISECHECK_H

#include <algorithm>
#include <cmath>
#include <utility>

namespace dpk::bench {

/// The first sampled (row, column) of `dist` (n x n, row-major) that is wrong for the n points
/// of `d` coordinates in `points`, or (-1, -1) when every sampled distance is right.
inline std::pair<long long, long long> pairwiseMismatch(const float *points, const float *dist,
                                                        long long n, long long d) {
  for (long long i = 0; i < n; i += 61)
    for (long long j = 0; j < n; j += 67) {
      double sum = 0;
      for (long long k = 0; k < d; ++k) {
        double diff = double(points[i * d + k]) - double(points[j * d + k]);
        sum += diff * diff;
      }
      double want = std::sqrt(sum);
      if (std::fabs(double(dist[i * n + j]) - want) > 1e-5 * std::max(1.0, want))
        return {i, j};
    }
  return {-1, -1};
}

} // namespace dpk::bench

#endif // DPK_BENCH_COMMON_PAIRWISECHECK_H

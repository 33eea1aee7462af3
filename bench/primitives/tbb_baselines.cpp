// tbb_baselines.cpp - oneTBB's own algorithms on host memory, the hand-written baselines that
// bench_primitives.py --tbb times side by side with dpk's primitives on the host device (issue
// 19's host bar: sort >= 1.0x tbb::parallel_sort, scan and reduce >= 0.9x the bandwidth of a
// triad). A shared library with C entry points so that Python loads it with ctypes and both
// sides run in one process, on the same cores, alternately.

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_scan.h>
#include <oneapi/tbb/parallel_sort.h>

#include <cstddef>
#include <functional>

extern "C" {

void dpk_tbb_sort_f32(float *data, std::size_t n) { tbb::parallel_sort(data, data + n); }

void dpk_tbb_inclusive_scan_f32(const float *in, float *out, std::size_t n) {
  // Accumulates in float, as dpk's float32 cumulative_sum does.
  tbb::parallel_scan(
      tbb::blocked_range<std::size_t>(0, n), 0.0f,
      [=](const tbb::blocked_range<std::size_t> &r, float sum, bool isFinal) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          sum += in[i];
          if (isFinal)
            out[i] = sum;
        }
        return sum;
      },
      std::plus<float>());
}

double dpk_tbb_sum_f32(const float *in, std::size_t n) {
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, n), 0.0,
      [=](const tbb::blocked_range<std::size_t> &r, double sum) {
        // 16 independent float accumulators: the loop vectorizes (as a float32 sum may
        // reassociate) instead of waiting on one add after another.
        constexpr std::size_t kLanes = 16;
        float lanes[kLanes] = {};
        std::size_t i = r.begin();
        for (; i + kLanes <= r.end(); i += kLanes)
          for (std::size_t l = 0; l < kLanes; ++l)
            lanes[l] += in[i + l];
        for (; i != r.end(); ++i)
          lanes[0] += in[i];
        float partial = 0.0f;
        for (float lane : lanes)
          partial += lane;
        return sum + partial;
      },
      std::plus<double>());
}

// STREAM's triad, a[i] = b[i] + s * c[i]: the bandwidth the host reaches with a plain loop.
void dpk_tbb_triad_f32(float *__restrict a, const float *__restrict b,
                       const float *__restrict c, float s, std::size_t n) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n),
                    [=](const tbb::blocked_range<std::size_t> &r) {
                      for (std::size_t i = r.begin(); i != r.end(); ++i)
                        a[i] = b[i] + s * c[i];
                    });
}

}  // extern "C"

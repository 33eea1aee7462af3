// Paired.h - paired benchmark mode: dpk and its baselines timed alternately, round by round, so
// that the drift of a shared machine hits both sides of every ratio alike.
#ifndef DPK_BENCH_PAIRED_H
#define DPK_BENCH_PAIRED_H

#include "Backends.h"

#include <regex>
#include <string>
#include <vector>

namespace dpk::bench {

struct PairedOptions {
  int rounds = 21;             // ratios per (workload, size, backend, baseline)
  double roundSeconds = 0.05;  // time each runner gets in one round (whole runs, at least one)
  std::string jsonPath;        // also write the results as JSON here ("" = do not)
  bool largestSizeOnly = true; // the sizes the targets are stated for
  bool singleThread = false;   // one thread for dpk and baselines, timed in CPU time
};

/// Runs the selected workloads and backends in paired rounds and prints, per dpk backend and
/// baseline, the median of the per-round ratios (baseline time / dpk time) with its quartiles.
/// Returns non-zero when a run produced a wrong result.
int pairedRun(const std::vector<Backend> &backends, const std::regex &workloadFilter,
              const std::regex &backendFilter, const PairedOptions &options);

} // namespace dpk::bench

#endif

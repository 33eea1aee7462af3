// Paired.cpp - see Paired.h. Google Benchmark times each benchmark in one stretch, so on a
// shared machine a slow minute can land on dpk and a quiet one on the baseline: single-run
// ratios moved by 10-20% here. Pairing fixes that: every round times each runner for a short,
// equal stretch, one right after the other (the order rotates between rounds), and the ratio is
// taken within the round. The median over rounds, with its quartiles, is what we report.
#include "Paired.h"

#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

namespace dpk::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Column {
  const Backend *backend = nullptr;
  std::unique_ptr<Runner> runner;
  int runsPerRound = 1;
  std::vector<double> seconds; // mean seconds per run, one entry per round
};

/// Seconds on the chosen clock: the process's CPU time, or the wall clock.
double nowSeconds(bool cpuTime) {
  if (!cpuTime)
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

/// Mean seconds per run over `runs` back-to-back runs: wall time, or CPU time of the process
/// (single-thread runs on a loaded machine: time spent descheduled does not count).
double timeRuns(Runner &runner, int runs, bool cpuTime) {
  double start = nowSeconds(cpuTime);
  for (int i = 0; i < runs; ++i)
    runner.run();
  return (nowSeconds(cpuTime) - start) / runs;
}

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  double position = q * double(values.size() - 1);
  size_t below = size_t(position);
  size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (values[above] - values[below]) * (position - double(below));
}

struct PairResult {
  std::string workload, size, backend, baseline;
  double backendMs, baselineMs, ratioMedian, ratioLow, ratioHigh;
  int rounds;
};

std::string jsonEscape(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

void writeJson(const std::string &path, const std::vector<PairResult> &results) {
  std::ofstream out(path);
  out << "{\"paired\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const PairResult &r = results[i];
    out << "  {\"workload\": \"" << jsonEscape(r.workload) << "\", \"size\": \"" << jsonEscape(r.size)
        << "\", \"backend\": \"" << jsonEscape(r.backend) << "\", \"baseline\": \"" << jsonEscape(r.baseline)
        << "\", \"backend_ms\": " << r.backendMs << ", \"baseline_ms\": " << r.baselineMs
        << ", \"ratio_median\": " << r.ratioMedian << ", \"ratio_q1\": " << r.ratioLow
        << ", \"ratio_q3\": " << r.ratioHigh << ", \"rounds\": " << r.rounds << "}"
        << (i + 1 < results.size() ? ",\n" : "\n");
  }
  out << "]}\n";
}

/// Builds and checks a runner per selected backend; a wrong result is reported and skipped.
std::vector<Column> prepareColumns(const std::vector<Backend> &backends, const std::regex &backendFilter,
                                   Problem &problem, int &failures) {
  std::vector<Column> columns;
  for (const Backend &backend : backends) {
    if (!std::regex_search(backend.name, backendFilter) || !hasBaseline(backend, problem))
      continue;
    std::string error;
    std::unique_ptr<Runner> runner;
    try {
      runner = makeRunner(backend, problem);
      error = runner->runAndVerify();
    } catch (const std::exception &e) {
      error = e.what();
    }
    if (!error.empty()) {
      std::printf("FAIL %s %s on %s: %s\n", problem.workload.c_str(), problem.sizeLabel.c_str(),
                  backend.name.c_str(), error.c_str());
      ++failures;
      continue;
    }
    Column column;
    column.backend = &backend;
    column.runner = std::move(runner);
    columns.push_back(std::move(column));
  }
  return columns;
}

void runRounds(std::vector<Column> &columns, const PairedOptions &options) {
  for (Column &column : columns) { // warm up, then size a round to about roundSeconds
    double once = timeRuns(*column.runner, 1, options.singleThread);
    column.runsPerRound = std::max(1, int(options.roundSeconds / std::max(once, 1e-9)));
  }
  for (int round = 0; round < options.rounds; ++round)
    for (size_t k = 0; k < columns.size(); ++k) {
      Column &column = columns[(k + size_t(round)) % columns.size()]; // rotate who goes first
      column.seconds.push_back(timeRuns(*column.runner, column.runsPerRound, options.singleThread));
    }
}

void collect(const Problem &problem, const std::vector<Column> &columns, std::vector<PairResult> &results) {
  for (const Column &dpk : columns) {
    if (dpk.backend->isBaseline())
      continue;
    for (const Column &base : columns) {
      if (!base.backend->isBaseline())
        continue;
      std::vector<double> ratios;
      for (size_t r = 0; r < dpk.seconds.size(); ++r)
        ratios.push_back(base.seconds[r] / dpk.seconds[r]);
      results.push_back({problem.workload, problem.sizeLabel, dpk.backend->name, base.backend->name,
                         quantile(dpk.seconds, 0.5) * 1e3, quantile(base.seconds, 0.5) * 1e3,
                         quantile(ratios, 0.5), quantile(ratios, 0.25), quantile(ratios, 0.75),
                         int(ratios.size())});
      const PairResult &r = results.back();
      std::printf("| %s | %s | %s | %.4g | %s | %.4g | %.3f | %.3f-%.3f |\n", r.workload.c_str(), r.size.c_str(),
                  r.backend.c_str(), r.backendMs, r.baseline.c_str(), r.baselineMs, r.ratioMedian, r.ratioLow,
                  r.ratioHigh);
      std::fflush(stdout);
    }
  }
}

} // namespace

int pairedRun(const std::vector<Backend> &backends, const std::regex &workloadFilter,
              const std::regex &backendFilter, const PairedOptions &options) {
  // One thread for everyone (dpk's host arena included): a codegen comparison that a loaded
  // machine disturbs least, timed in process CPU time.
  std::unique_ptr<tbb::global_control> oneThread;
  if (options.singleThread)
    oneThread = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, 1);
  std::printf("Paired rounds: %d, about %.0f ms per runner per round%s. Ratio = baseline time / dpk time "
              "within one round; median and quartiles over rounds.\n\n",
              options.rounds, options.roundSeconds * 1e3,
              options.singleThread ? ", one thread, process CPU time" : "");
  std::printf("| workload | size | dpk backend | dpk ms | baseline | baseline ms | ratio | q1-q3 |\n");
  std::printf("| --- | --- | --- | ---: | --- | ---: | ---: | --- |\n");
  std::vector<PairResult> results;
  int failures = 0;
  for (const WorkloadInfo &workload : allWorkloads()) {
    if (!std::regex_search(workload.name, workloadFilter))
      continue;
    for (int size = options.largestSizeOnly ? workload.sizeCount - 1 : 0; size < workload.sizeCount; ++size) {
      std::unique_ptr<Problem> problem = workload.make(size);
      std::vector<Column> columns = prepareColumns(backends, backendFilter, *problem, failures);
      runRounds(columns, options);
      collect(*problem, columns, results);
    }
  }
  if (!options.jsonPath.empty())
    writeJson(options.jsonPath, results);
  return failures ? 1 : 0;
}

} // namespace dpk::bench

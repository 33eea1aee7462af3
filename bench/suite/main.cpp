// main.cpp - dpk's benchmark suite: every workload on every dpk device, next to hand-written
// baselines (oneTBB C++ and raw OpenCL C), in one Google Benchmark run.
//
//   dpk_bench [--smoke] [--workloads=REGEX] [--backends=REGEX] [google-benchmark flags]
//   dpk_bench --paired [--rounds=N] [--round-ms=MS] [--all-sizes] [--single-thread] [--paired-out=FILE] [...]
//
// Every (workload, size, backend) is checked against a reference before it is timed; a wrong
// result is reported as an error for that benchmark and never timed. --smoke runs only the
// smallest size of each workload once, checks it, and prints "N passed, M failed" (the test
// suite runs this; no timing is asserted anywhere). --paired times dpk and the baselines
// alternately in short rounds and reports per-round ratios (Paired.h): the mode the targets
// "at least 90% of the baseline, side by side" are measured with.
#include "Backends.h"
#include "DpkRunner.h"
#include "Paired.h"
#include "Problem.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace dpk::bench {
namespace {

// Problems and runners are large (up to a few GiB for the biggest sizes), so only the ones of
// the benchmark in progress are alive: benchmarks run one after another in registration order.
struct Current {
  std::string problemKey, runnerKey;
  std::unique_ptr<Problem> problem;
  std::unique_ptr<Runner> runner;
  std::string error; // why this runner cannot be timed
};
Current current;

Runner *prepare(const WorkloadInfo &workload, int size, const Backend &backend, std::string &error) {
  std::string problemKey = workload.name + "#" + std::to_string(size);
  std::string runnerKey = problemKey + "#" + backend.name;
  if (current.runnerKey == runnerKey) {
    error = current.error;
    return current.runner.get();
  }
  current.runner.reset();
  current.runnerKey = runnerKey;
  current.error.clear();
  if (current.problemKey != problemKey) {
    current.problem = workload.make(size);
    current.problemKey = problemKey;
  }
  try {
    current.runner = makeRunner(backend, *current.problem);
    current.error = current.runner->runAndVerify();
    if (!current.error.empty())
      current.error = "wrong result: " + current.error;
  } catch (const std::exception &e) {
    current.error = e.what();
  }
  if (!current.error.empty())
    current.runner.reset();
  error = current.error;
  return current.runner.get();
}

void registerAll(const std::vector<Backend> &backends, const std::regex &workloadFilter, const std::regex &backendFilter) {
  for (const WorkloadInfo &workload : allWorkloads()) {
    if (!std::regex_search(workload.name, workloadFilter))
      continue;
    for (int size = 0; size < workload.sizeCount; ++size) {
      std::unique_ptr<Problem> sample = workload.make(size);
      for (const Backend &backend : backends) {
        if (!std::regex_search(backend.name, backendFilter) || !hasBaseline(backend, *sample))
          continue;
        std::string name = workload.name + "/" + sample->sizeLabel + "/" + backend.name;
        double bytes = sample->bytesMoved, flops = sample->flops;
        benchmark::RegisterBenchmark(name.c_str(), [&workload, size, &backend, bytes, flops](benchmark::State &state) {
          std::string error;
          Runner *runner = prepare(workload, size, backend, error);
          if (!runner) {
            state.SkipWithError(error.c_str());
            return;
          }
          for (auto _ : state)
            runner->run();
          if (bytes > 0)
            state.counters["bytes_per_second"] = benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
          if (flops > 0)
            state.counters["flops"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
        })->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(0.3);
      }
    }
  }
}

// Cold and warm compile time of pairwise distance on the default device: cold renames the
// kernel each iteration, so its cache key is new and it must be compiled; warm reuses one name,
// so it is found in the kernel cache.
void registerCompileTime() {
  for (bool cold : {true, false}) {
    std::string name = std::string("compile/pairwise_distance/") + (cold ? "cold" : "warm");
    benchmark::RegisterBenchmark(name.c_str(), [cold](benchmark::State &state) {
      std::ifstream file(corpusKernel("pairwise_distance"));
      std::stringstream text;
      text << file.rdbuf();
      const std::string source = text.str();
      dpk_device_t device = nullptr;
      if (dpk_device_select(&device, nullptr) != DPK_SUCCESS) {
        state.SkipWithError(dpk_last_error());
        return;
      }
      dpk_queue_t queue = nullptr;
      checkDpk(dpk_queue_create(&queue, device, DPK_QUEUE_IN_ORDER), "dpk_queue_create");
      void *buffer = nullptr;
      checkDpk(dpk_mem_alloc(&buffer, device, DPK_MEM_DEVICE, 64), "dpk_mem_alloc");
      static int serial = 0;
      for (auto _ : state) {
        std::string kernelName = "pairwise_distance";
        std::string text = source;
        if (cold) {
          kernelName += "_" + std::to_string(++serial) + "_" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
          text.replace(text.find("@pairwise_distance"), 18, "@" + kernelName);
        }
        dpk_program_t program = nullptr;
        checkDpk(dpk_program_create_from_ir(&program, text.c_str(), text.size(), kernelName.c_str()), "create");
        dpk_kernel_t kernel = nullptr;
        checkDpk(dpk_kernel_get(&kernel, program, kernelName.c_str()), "kernel");
        dpk_view_arg_t view{buffer, 2, {1, 1, 0}, {1, 1, 0}};
        dpk_arg_t args[2] = {{DPK_ARG_VIEW, 0, &view}, {DPK_ARG_VIEW, 0, &view}};
        dpk_launch_config_t range{2, {1, 1, 1}, {0, 0, 0}};
        checkDpk(dpk_enqueue_launch(nullptr, queue, kernel, &range, 2, args, 0, nullptr), "launch");
        checkDpk(dpk_queue_wait(queue), "wait");
        dpk_kernel_release(kernel);
        dpk_program_release(program);
      }
      dpk_mem_free(buffer);
      dpk_queue_release(queue);
      dpk_device_release(device);
    })->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(cold ? 5 : 50);
  }
}

std::string cpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
      return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

int smokeRun(const std::vector<Backend> &backends, const std::regex &workloadFilter, const std::regex &backendFilter) {
  int passed = 0, failed = 0;
  for (const WorkloadInfo &workload : allWorkloads()) {
    if (!std::regex_search(workload.name, workloadFilter))
      continue;
    std::unique_ptr<Problem> problem = workload.make(0);
    for (const Backend &backend : backends) {
      if (!std::regex_search(backend.name, backendFilter) || !hasBaseline(backend, *problem))
        continue;
      std::string error;
      try {
        error = makeRunner(backend, *problem)->runAndVerify();
      } catch (const std::exception &e) {
        error = e.what();
      }
      std::printf("%-6s %s %s on %s%s%s\n", error.empty() ? "ok" : "FAIL", workload.name.c_str(),
                  problem->sizeLabel.c_str(), backend.name.c_str(), error.empty() ? "" : ": ", error.c_str());
      ++(error.empty() ? passed : failed);
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

} // namespace
} // namespace dpk::bench

int main(int argc, char **argv) {
  using namespace dpk::bench;
  bool smoke = false, paired = false;
  PairedOptions pairedOptions;
  std::string workloads = ".*", backendsPattern = ".*";
  std::vector<char *> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--smoke")
      smoke = true;
    else if (arg == "--paired")
      paired = true;
    else if (arg.rfind("--rounds=", 0) == 0)
      pairedOptions.rounds = std::max(1, std::atoi(arg.c_str() + 9));
    else if (arg.rfind("--round-ms=", 0) == 0)
      pairedOptions.roundSeconds = std::max(1.0, std::atof(arg.c_str() + 11)) / 1e3;
    else if (arg == "--single-thread")
      pairedOptions.singleThread = true;
    else if (arg == "--all-sizes")
      pairedOptions.largestSizeOnly = false;
    else if (arg.rfind("--paired-out=", 0) == 0)
      pairedOptions.jsonPath = arg.substr(13);
    else if (arg.rfind("--workloads=", 0) == 0)
      workloads = arg.substr(12);
    else if (arg.rfind("--backends=", 0) == 0)
      backendsPattern = arg.substr(11);
    else
      rest.push_back(argv[i]);
  }
  if (dpk_init() != DPK_SUCCESS) {
    std::fprintf(stderr, "dpk_bench: %s\n", dpk_last_error());
    return 1;
  }
  std::vector<Backend> backends = discoverBackends();
  std::regex workloadFilter(workloads), backendFilter(backendsPattern);
  if (smoke)
    return smokeRun(backends, workloadFilter, backendFilter);
  if (paired)
    return pairedRun(backends, workloadFilter, backendFilter, pairedOptions);

  std::string names;
  for (const Backend &backend : backends)
    names += (names.empty() ? "" : ", ") + backend.name;
  benchmark::AddCustomContext("dpk_backends", names);
  benchmark::AddCustomContext("cpu_model", cpuModel());
  registerAll(backends, workloadFilter, backendFilter);
  if (std::regex_search(std::string("compile"), workloadFilter))
    registerCompileTime();
  int restCount = static_cast<int>(rest.size());
  benchmark::Initialize(&restCount, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  current = Current{};
  return 0;
}

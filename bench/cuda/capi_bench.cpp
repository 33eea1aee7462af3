// capi_bench.cpp - dpk_cuda_capi_bench: dpk's C API on CUDA measured against the raw driver API
// in ONE process, on ONE primary context.
//
// 1. Launch overhead: the empty-kernel launch + wait through the C API next to raw driver calls
// with the SAME PTX, so the difference is dpk's and nothing else's (issue 6: "within 2 us of a
// raw driver-API launch").
// Comparing dpk_bench with dpk_cuda_baselines, two processes run minutes apart, mixed the gap
// with run-to-run drift of the raw figure (8.6 to 11.3 us across sessions on the H100).
//
// Benchmarks (Google Benchmark; use --benchmark_enable_random_interleaving=true and
// --benchmark_repetitions=N so drift is spread over all of them alike):
//   empty_kernel/raw-legacy-stream    cuLaunchKernel + cuStreamSynchronize on the NULL stream
//                                     (what dpk_cuda_baselines' cuda-driver-raw does)
//   empty_kernel/raw-stream           the same on a CU_STREAM_NON_BLOCKING stream (dpk's kind)
//   empty_kernel/raw-stream+ctx       plus cuCtxSetCurrent before each call, as the plugin did
//                                     before it checked the current context first
//   empty_kernel/dpk-capi             dpk_enqueue_launch (out_event NULL) + dpk_queue_wait,
//                                     Range(1), four pointer arguments
//   empty_kernel/dpk-launch+raw-sync  dpk_enqueue_launch + cuStreamSynchronize on the dpk queue's
//                                     own stream (dpk_queue_get_native): the launch side alone
//   empty_kernel/raw-enqueue-only,    launches without waiting (a synchronize every 256): the
//   empty_kernel/dpk-enqueue-only     GPU runs an empty kernel faster than either side submits
//                                     one, so each figure is the CPU's cost of one submission
//   driver/cuCtxSetCurrent-same       one call making the already current context current
//   driver/cuCtxGetCurrent            one call
//
// 2. Pairwise distance (corpus kernel, n=4096, d=3, Range(n, n)) launched through the C API, timed
// two ways: by the GPU (a DPK_QUEUE_PROFILING queue's dpk_event_elapsed_ns, what
// dpk_cuda_baselines' cudaEvent timing of the nvcc kernel measures) and by the host clock
// (launch + dpk_queue_wait, what dpk_bench measures). dpk_bench's host-clock figure against the
// nvcc baseline's GPU-event figure compares two different things: the host clock adds the launch
// and the wake-up after it (5-10 us on the H100).
//   pairwise_distance/n=4096,d=3/dpk-capi-gpu-time
//   pairwise_distance/n=4096,d=3/dpk-capi-host-clock
// All launch a kernel that does nothing with four pointer parameters, compiled by dpk (the
// PTX of bench/kernels/empty.dpkir as dpkc emits it, embedded below for the raw runs).
// Needs an NVIDIA GPU; without one every benchmark is skipped with the reason.
#include "../common/PairwiseCheck.h"
#include "dpk/dpk.h"

#include <benchmark/benchmark.h>
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

// bench/kernels/empty.dpkir, which dpk compiles itself for the dpk-capi runs.
const char *const EmptyIr =
    "kernel @empty(%a: ptr<global, f32>, %b: ptr<global, f32>, %c: ptr<global, f32>,"
    " %d: ptr<global, f32>) {\n  return\n}\n";

// `dpkc --emit=ptx --arch=sm_90 bench/kernels/empty.dpkir`: the same kernel for the raw runs.
const char *const EmptyPtx = R"(.version 7.5
.target sm_86
.address_size 64
.visible .entry empty(
	.param .u64 empty_param_0,
	.param .u64 empty_param_1,
	.param .u64 empty_param_2,
	.param .u64 empty_param_3
)
{
	ret;
}
)";

struct Driver {
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr buffer = 0;
  std::string error;

  Driver() {
    CUdevice device = 0;
    if (!check(cuInit(0), "cuInit") || !check(cuDeviceGet(&device, 0), "cuDeviceGet") ||
        !check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
        !check(cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
        !check(cuModuleLoadData(&module, EmptyPtx), "cuModuleLoadData") ||
        !check(cuModuleGetFunction(&function, module, "empty"), "cuModuleGetFunction") ||
        !check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
        !check(cuMemAlloc(&buffer, 256), "cuMemAlloc"))
      return;
    void *args[4] = {&buffer, &buffer, &buffer, &buffer};
    if (check(cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr), "cuLaunchKernel"))
      check(cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
  bool check(CUresult rc, const char *what) {
    if (rc == CUDA_SUCCESS) return true;
    const char *name = nullptr;
    cuGetErrorName(rc, &name);
    error = std::string(what) + ": " + (name ? name : "CUDA error");
    return false;
  }
};

Driver &driver() {
  static Driver instance;
  return instance;
}

/// The raw launch, synchronized every `waitEvery` launches (1: each launch is waited for; more:
/// the CPU cost of submitting, dpk-enqueue-only's peer).
void rawLaunch(benchmark::State &state, bool ownStream, bool setContext, int waitEvery = 1) {
  Driver &d = driver();
  if (!d.error.empty()) {
    state.SkipWithError(d.error.c_str());
    return;
  }
  void *args[4] = {&d.buffer, &d.buffer, &d.buffer, &d.buffer};
  CUstream stream = ownStream ? d.stream : nullptr;
  int launched = 0;
  for (auto _ : state) {
    if (setContext) cuCtxSetCurrent(d.context);
    CUresult status = cuLaunchKernel(d.function, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr);
    if (setContext) cuCtxSetCurrent(d.context);
    bool ok = status == CUDA_SUCCESS;
    if (ok && ++launched % waitEvery == 0)
      ok = cuStreamSynchronize(stream) == CUDA_SUCCESS;
    if (!ok) {
      state.SkipWithError("cuLaunchKernel or cuStreamSynchronize failed");
      return;
    }
  }
  cuStreamSynchronize(stream);
}

struct Dpk {
  dpk_device_t device = nullptr;
  dpk_queue_t queue = nullptr;
  dpk_kernel_t kernel = nullptr;
  void *buffers[4] = {};
  std::string error;

  Dpk() {
    dpk_program_t program = nullptr;
    if (!check(dpk_device_select(&device, "cuda:gpu"), "dpk_device_select(\"cuda:gpu\")"))
      return;
    // The policy may answer with another device when no CUDA one is usable: measure none then.
    dpk_device_info_t info{};
    info.struct_size = sizeof info;
    if (!check(dpk_device_get_info(&info, device), "dpk_device_get_info"))
      return;
    if (std::string(info.filter_string).rfind("cuda:", 0) != 0) {
      error = std::string("no CUDA device (the selector chose ") + info.filter_string + ")";
      return;
    }
    if (
        !check(dpk_queue_create(&queue, device, DPK_QUEUE_IN_ORDER), "dpk_queue_create") ||
        !check(dpk_program_create_from_ir(&program, EmptyIr, std::char_traits<char>::length(EmptyIr),
                                          "empty"),
               "dpk_program_create_from_ir"))
      return;
    bool ok = check(dpk_kernel_get(&kernel, program, "empty"), "dpk_kernel_get");
    dpk_program_release(program);
    for (void *&buffer : buffers)
      ok = ok && check(dpk_mem_alloc(&buffer, device, DPK_MEM_DEVICE, 64), "dpk_mem_alloc");
    if (!ok) return;
    // The first launch compiles the kernel (or loads it from the cache): not part of a launch.
    dpk_arg_t args[4];
    for (int i = 0; i < 4; ++i) args[i] = {DPK_ARG_POINTER, 0, buffers[i]};
    dpk_launch_config_t range{1, {1, 1, 1}, {0, 0, 0}};
    if (check(dpk_enqueue_launch(nullptr, queue, kernel, &range, 4, args, 0, nullptr), "warm-up launch"))
      check(dpk_queue_wait(queue), "warm-up wait");
  }
  bool check(dpk_status_t status, const char *what) {
    if (status == DPK_SUCCESS) return true;
    error = std::string(what) + ": " + dpk_status_name(status) + ": " + dpk_last_error();
    return false;
  }
};

Dpk &dpk() {
  static Dpk instance;
  return instance;
}

void dpkLaunch(benchmark::State &state) {
  Dpk &d = dpk();
  if (!d.error.empty()) {
    state.SkipWithError(d.error.c_str());
    return;
  }
  dpk_arg_t args[4];
  for (int i = 0; i < 4; ++i) args[i] = {DPK_ARG_POINTER, 0, d.buffers[i]};
  dpk_launch_config_t range{1, {1, 1, 1}, {0, 0, 0}};
  for (auto _ : state) {
    if (dpk_enqueue_launch(nullptr, d.queue, d.kernel, &range, 4, args, 0, nullptr) != DPK_SUCCESS ||
        dpk_queue_wait(d.queue) != DPK_SUCCESS) {
      std::string message = std::string("dpk launch failed: ") + dpk_last_error();
      state.SkipWithError(message.c_str());
      return;
    }
  }
}

/// dpk's launch, then the driver's synchronize on the queue's own stream (or, with
/// `waitEvery`, only every that many launches: the CPU cost of submitting).
void dpkLaunchThenRawSync(benchmark::State &state, int waitEvery) {
  Dpk &d = dpk();
  dpk_native_queue_t native{};
  native.struct_size = sizeof native;
  if (d.error.empty() && dpk_queue_get_native(&native, d.queue) != DPK_SUCCESS)
    d.error = std::string("dpk_queue_get_native: ") + dpk_last_error();
  if (!d.error.empty()) {
    state.SkipWithError(d.error.c_str());
    return;
  }
  CUstream stream = static_cast<CUstream>(native.queue);
  dpk_arg_t args[4];
  for (int i = 0; i < 4; ++i) args[i] = {DPK_ARG_POINTER, 0, d.buffers[i]};
  dpk_launch_config_t range{1, {1, 1, 1}, {0, 0, 0}};
  int launched = 0;
  for (auto _ : state) {
    bool ok = dpk_enqueue_launch(nullptr, d.queue, d.kernel, &range, 4, args, 0, nullptr) ==
              DPK_SUCCESS;
    if (ok && ++launched % waitEvery == 0)
      ok = cuStreamSynchronize(stream) == CUDA_SUCCESS;
    if (!ok) {
      state.SkipWithError("dpk_enqueue_launch or cuStreamSynchronize failed");
      return;
    }
  }
  cuStreamSynchronize(stream);
}

void contextCall(benchmark::State &state, bool set) {
  Driver &d = driver();
  if (!d.error.empty()) {
    state.SkipWithError(d.error.c_str());
    return;
  }
  cuCtxSetCurrent(d.context);
  CUcontext current = nullptr;
  for (auto _ : state) {
    if (set) {
      cuCtxSetCurrent(d.context);
    } else {
      cuCtxGetCurrent(&current);
      benchmark::DoNotOptimize(current);
    }
  }
}

// Pairwise distance through the C API with the corpus kernel, as dpk_bench runs it.
struct Pairwise {
  static constexpr int64_t N = 4096, D = 3;
  dpk_queue_t queue = nullptr; // DPK_QUEUE_PROFILING
  dpk_kernel_t kernel = nullptr;
  void *x = nullptr, *dist = nullptr;
  dpk_view_arg_t xView{}, distView{};
  dpk_arg_t args[2]{};
  dpk_launch_config_t range{2, {N, N, 1}, {0, 0, 0}};
  std::string error;

  Pairwise() {
    Dpk &d = dpk();
    if (!d.error.empty()) {
      error = d.error;
      return;
    }
    std::ifstream file(std::string(DPK_CORPUS_DIR) + "/pairwise_distance.dpkir");
    std::stringstream text;
    text << file.rdbuf();
    std::string ir = text.str();
    if (ir.empty()) {
      error = std::string("cannot read ") + DPK_CORPUS_DIR + "/pairwise_distance.dpkir";
      return;
    }
    std::vector<float> points(N * D);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (float &v : points) v = float(uniform(rng));
    dpk_program_t program = nullptr;
    if (!check(dpk_queue_create(&queue, d.device, DPK_QUEUE_IN_ORDER | DPK_QUEUE_PROFILING), "dpk_queue_create") ||
        !check(dpk_program_create_from_ir(&program, ir.c_str(), ir.size(), "pairwise_distance"), "create"))
      return;
    bool ok = check(dpk_kernel_get(&kernel, program, "pairwise_distance"), "dpk_kernel_get");
    dpk_program_release(program);
    ok = ok && check(dpk_mem_alloc(&x, d.device, DPK_MEM_DEVICE, N * D * 4), "dpk_mem_alloc") &&
         check(dpk_mem_alloc(&dist, d.device, DPK_MEM_DEVICE, N * N * 4), "dpk_mem_alloc") &&
         check(dpk_enqueue_copy(nullptr, queue, x, points.data(), N * D * 4, 0, nullptr), "upload");
    if (!ok) return;
    xView = {x, 2, {N, D, 0}, {D, 1, 0}};
    distView = {dist, 2, {N, N, 0}, {N, 1, 0}};
    args[0] = {DPK_ARG_VIEW, 0, &xView};
    args[1] = {DPK_ARG_VIEW, 0, &distView};
    std::vector<float> result(N * N);
    if (!check(dpk_enqueue_launch(nullptr, queue, kernel, &range, 2, args, 0, nullptr), "launch") ||
        !check(dpk_enqueue_copy(nullptr, queue, result.data(), dist, N * N * 4, 0, nullptr), "download") ||
        !check(dpk_queue_wait(queue), "wait"))
      return;
    auto [i, j] = dpk::bench::pairwiseMismatch(points.data(), result.data(), N, D);
    if (i >= 0)
      error = "pairwise_distance: wrong result at (" + std::to_string(i) + ", " + std::to_string(j) + ")";
  }
  bool check(dpk_status_t status, const char *what) {
    if (status == DPK_SUCCESS) return true;
    error = std::string(what) + ": " + dpk_status_name(status) + ": " + dpk_last_error();
    return false;
  }
};

Pairwise &pairwise() {
  static Pairwise instance;
  return instance;
}

void pairwiseBench(benchmark::State &state, bool gpuTime) {
  Pairwise &p = pairwise();
  if (!p.error.empty()) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  for (auto _ : state) {
    dpk_event_t event = nullptr;
    bool ok = dpk_enqueue_launch(gpuTime ? &event : nullptr, p.queue, p.kernel, &p.range, 2, p.args, 0,
                                 nullptr) == DPK_SUCCESS &&
              dpk_queue_wait(p.queue) == DPK_SUCCESS;
    uint64_t ns = 0;
    ok = ok && (!gpuTime || dpk_event_elapsed_ns(&ns, event) == DPK_SUCCESS);
    if (event) dpk_event_release(event);
    if (!ok) {
      std::string message = std::string("pairwise launch failed: ") + dpk_last_error();
      state.SkipWithError(message.c_str());
      return;
    }
    if (gpuTime) state.SetIterationTime(double(ns) * 1e-9);
  }
}

} // namespace

int main(int argc, char **argv) {
  using benchmark::RegisterBenchmark;
  RegisterBenchmark("empty_kernel/raw-legacy-stream", [](benchmark::State &s) { rawLaunch(s, false, false); })
      ->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
  RegisterBenchmark("empty_kernel/raw-stream", [](benchmark::State &s) { rawLaunch(s, true, false); })
      ->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
  RegisterBenchmark("empty_kernel/raw-stream+ctx", [](benchmark::State &s) { rawLaunch(s, true, true); })
      ->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
  RegisterBenchmark("empty_kernel/dpk-capi", dpkLaunch)->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
  RegisterBenchmark("empty_kernel/dpk-launch+raw-sync", [](benchmark::State &s) { dpkLaunchThenRawSync(s, 1); })
      ->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
  RegisterBenchmark("empty_kernel/raw-enqueue-only", [](benchmark::State &s) { rawLaunch(s, true, false, 256); })
      ->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
  RegisterBenchmark("empty_kernel/dpk-enqueue-only", [](benchmark::State &s) { dpkLaunchThenRawSync(s, 256); })
      ->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
  RegisterBenchmark("driver/cuCtxSetCurrent-same", [](benchmark::State &s) { contextCall(s, true); })
      ->Unit(benchmark::kNanosecond);
  RegisterBenchmark("driver/cuCtxGetCurrent", [](benchmark::State &s) { contextCall(s, false); })
      ->Unit(benchmark::kNanosecond);
  RegisterBenchmark("pairwise_distance/n=4096,d=3/dpk-capi-gpu-time", [](benchmark::State &s) { pairwiseBench(s, true); })
      ->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);
  RegisterBenchmark("pairwise_distance/n=4096,d=3/dpk-capi-host-clock", [](benchmark::State &s) { pairwiseBench(s, false); })
      ->UseRealTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

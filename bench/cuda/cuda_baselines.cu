// cuda_baselines.cu - the CUDA C++ baselines for dpk's GPU benchmarks, built with nvcc and run
// on the GPU machine next to dpk_bench (scripts/device-run.sh, scripts/device-cuda-bench.sh).
// Benchmark names follow dpk_bench's "workload/size/backend" so bench/report.py puts them in the
// same rows:
//   backend "cuda-nvcc"        kernels written in CUDA C++, compiled by nvcc -O3, timed by the
//                              GPU (cudaEvent before and after each launch)
//   backend "cuda-nvcc-host-clock"  the same kernels timed as dpk_bench times dpk's launches:
//                              launch + cudaStreamSynchronize on the host clock, which adds the
//                              launch and the wake-up after the kernel (about 4 us on the H100)
//   backend "cuda-memcpy"      the device's own copy (cudaMemcpy device to device), as a triad/
//                              vector-add ceiling: bytes moved at copy bandwidth
//   backend "cuda-driver-raw"  an empty kernel launched with cuLaunchKernel + synchronize
//   backend "lab-<file>-b<N>"  with DPK_LAB_PTX_DIR set: pairwise-distance PTX files (dpk's, nvcc's,
//                              variants) JIT-loaded and launched like cuda-nvcc (see labBench)
// Each kernel's result is checked on the host before it is timed.
#include "../common/PairwiseCheck.h"

#include <benchmark/benchmark.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#define CHECK_CUDA(expr)                                                                          \
  do {                                                                                            \
    cudaError_t e_ = (expr);                                                                      \
    if (e_ != cudaSuccess)                                                                        \
      throw std::runtime_error(std::string(#expr) + ": " + cudaGetErrorString(e_));              \
  } while (0)

__global__ void triad(double *a, const double *b, const double *c, double s, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}
__global__ void vectorAdd(const float *a, const float *b, float *c, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
__global__ void pairwiseDistance(const float *x, float *dist, long n, long d) {
  long j = blockIdx.x * (long)blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j >= n) return;
  float sum = 0.0f;
  for (long k = 0; k < d; ++k) {
    float diff = x[i * d + k] - x[j * d + k];
    sum += diff * diff;
  }
  dist[i * n + j] = sqrtf(sum);
}
template <int T> __global__ void tiledMatmul(const float *a, const float *b, float *c, long n) {
  __shared__ float ta[T][T], tb[T][T];
  int lc = threadIdx.x, lr = threadIdx.y;
  long col = blockIdx.x * T + lc, row = blockIdx.y * T + lr;
  float sum = 0.0f;
  for (long t = 0; t < n; t += T) {
    ta[lr][lc] = a[row * n + t + lc];
    tb[lr][lc] = b[(t + lr) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) sum += ta[lr][k] * tb[k][lc];
    __syncthreads();
  }
  c[row * n + col] = sum;
}
extern "C" __global__ void empty(float *, float *, float *, float *) {}

namespace {

template <typename T> std::vector<T> randomValues(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(n);
  for (T &x : v) x = T(dist(rng));
  return v;
}

template <typename T> T *upload(const std::vector<T> &host) {
  T *dev = nullptr;
  CHECK_CUDA(cudaMalloc(&dev, host.size() * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return dev;
}
template <typename T> std::vector<T> download(const T *dev, size_t n) {
  std::vector<T> host(n);
  CHECK_CUDA(cudaMemcpy(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Times `launch` with CUDA events around each iteration (manual time).
template <typename Launch> void timeKernel(benchmark::State &state, Launch launch) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (auto _ : state) {
    CHECK_CUDA(cudaEventRecord(start));
    launch();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// Times `launch` + synchronize on the host clock (real time), as dpk_bench times dpk.
template <typename Launch> void timeHost(benchmark::State &state, Launch launch) {
  for (auto _ : state) {
    launch();
    CHECK_CUDA(cudaStreamSynchronize(0));
  }
}

template <typename Launch> void timeKernelOrHost(benchmark::State &state, bool hostClock, Launch launch) {
  if (hostClock)
    timeHost(state, launch);
  else
    timeKernel(state, launch);
}

void triadBench(benchmark::State &state, bool hostClock) {
  const long n = 1 << 25;
  auto b = randomValues<double>(n, 1), c = randomValues<double>(n, 2);
  double *da = nullptr, *db = upload(b), *dc = upload(c);
  CHECK_CUDA(cudaMalloc(&da, n * 8));
  auto run = [&] { triad<<<(n + 255) / 256, 256>>>(da, db, dc, 3.0, n); };
  run();
  CHECK_CUDA(cudaDeviceSynchronize());
  auto a = download(da, n);
  // nvcc contracts b + s * c into one fma, so allow the last bit to differ.
  for (long i = 0; i < n; i += 997)
    if (std::fabs(a[i] - (b[i] + 3.0 * c[i])) > 1e-15 * std::max(1.0, std::fabs(a[i]))) {
      state.SkipWithError("triad: wrong result");
      return;
    }
  timeKernelOrHost(state, hostClock, run);
  state.counters["bytes_per_second"] = benchmark::Counter(24.0 * n, benchmark::Counter::kIsIterationInvariantRate);
  cudaFree(da); cudaFree(db); cudaFree(dc);
}

void vectorAddBench(benchmark::State &state, bool hostClock) {
  const long n = 1 << 25;
  auto a = randomValues<float>(n, 3), b = randomValues<float>(n, 4);
  float *da = upload(a), *db = upload(b), *dc = nullptr;
  CHECK_CUDA(cudaMalloc(&dc, n * 4));
  auto run = [&] { vectorAdd<<<(n + 255) / 256, 256>>>(da, db, dc, n); };
  run();
  auto c = download(dc, n);
  for (long i = 0; i < n; i += 997)
    if (c[i] != a[i] + b[i]) { state.SkipWithError("vector_add: wrong result"); return; }
  timeKernelOrHost(state, hostClock, run);
  state.counters["bytes_per_second"] = benchmark::Counter(12.0 * n, benchmark::Counter::kIsIterationInvariantRate);
  cudaFree(da); cudaFree(db); cudaFree(dc);
}

// The device's own copy moving as many bytes as a kernel does (a copy of X bytes reads X and
// writes X), so its time is directly comparable: the memory-bound ceiling for that kernel.
void copyBench(benchmark::State &state, size_t bytesMovedByKernel) {
  size_t bytes = bytesMovedByKernel / 2;
  void *src = nullptr, *dst = nullptr;
  CHECK_CUDA(cudaMalloc(&src, bytes));
  CHECK_CUDA(cudaMalloc(&dst, bytes));
  CHECK_CUDA(cudaMemset(src, 1, bytes));
  timeKernel(state, [&] { CHECK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
  state.counters["bytes_per_second"] = benchmark::Counter(2.0 * bytes, benchmark::Counter::kIsIterationInvariantRate);
  cudaFree(src);
  cudaFree(dst);
}

void pairwiseBench(benchmark::State &state, bool hostClock) {
  const long n = 4096, d = 3;
  auto x = randomValues<float>(n * d, 5);
  float *dx = upload(x), *dd = nullptr;
  CHECK_CUDA(cudaMalloc(&dd, n * n * 4));
  dim3 grid((n + 255) / 256, n);
  auto run = [&] { pairwiseDistance<<<grid, 256>>>(dx, dd, n, d); };
  run();
  auto dist = download(dd, n * n);
  if (dpk::bench::pairwiseMismatch(x.data(), dist.data(), n, d).first >= 0) {
    state.SkipWithError("pairwise_distance: wrong result");
    return;
  }
  timeKernelOrHost(state, hostClock, run);
  state.counters["bytes_per_second"] = benchmark::Counter(4.0 * n * n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["flops"] = benchmark::Counter(3.0 * d * n * n + n * n, benchmark::Counter::kIsIterationInvariantRate);
  cudaFree(dx); cudaFree(dd);
}

// Pairwise-distance lab: every PTX file of $DPK_LAB_PTX_DIR is loaded with the driver's JIT and
// launched like the nvcc kernel above (same data, legacy stream, cudaEvent timing, result checked),
// with blocks of each width in $DPK_LAB_BLOCKS ("256" by default) and the row in blockIdx.y, so
// dpk's code, nvcc's own PTX and variants of either are compared in one process. A kernel takes
// either nvcc's parameters (x, dist, n, d) or dpk's ABI (x, shape[2], strides[2], dist, shape[2],
// strides[2]), told apart by its parameter count. $DPK_LAB_N sets the number of points.
/// The lab's problem size: $DPK_LAB_N points (4096 by default; issue 18 compares at 16384).
long labPoints() {
  const char *value = std::getenv("DPK_LAB_N");
  return value ? std::stol(value) : 4096;
}

void labBench(benchmark::State &state, const std::string &path, unsigned blockX) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  std::string ptx = text.str();
  std::smatch entry;
  if (!std::regex_search(ptx, entry, std::regex(R"(\.entry\s+(\w+)\s*\(([^)]*)\))"))) {
    state.SkipWithError(("no .entry in " + path).c_str());
    return;
  }
  std::string params = entry[2].str();
  size_t paramCount = 0;
  for (size_t at = params.find(".param"); at != std::string::npos; at = params.find(".param", at + 1)) ++paramCount;
  CHECK_CUDA(cudaFree(nullptr)); // the primary context, current on this thread
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  if (cuModuleLoadData(&module, ptx.c_str()) != CUDA_SUCCESS ||
      cuModuleGetFunction(&fn, module, entry[1].str().c_str()) != CUDA_SUCCESS) {
    state.SkipWithError(("cannot load " + path).c_str());
    return;
  }
  long n = labPoints(), d = 3, one = 1;
  auto x = randomValues<float>(n * d, 5);
  float *dx = upload(x), *dd = nullptr;
  CHECK_CUDA(cudaMalloc(&dd, n * n * 4));
  void *nvccArgs[] = {&dx, &dd, &n, &d};
  void *dpkArgs[] = {&dx, &n, &d, &d, &one, &dd, &n, &n, &n, &one};
  void **args = paramCount == 4 ? nvccArgs : paramCount == 10 ? dpkArgs : nullptr;
  auto release = [&] { cudaFree(dx); cudaFree(dd); cuModuleUnload(module); };
  if (!args || n % blockX) {
    state.SkipWithError(("unexpected parameters or block width for " + path).c_str());
    release();
    return;
  }
  auto run = [&] {
    if (cuLaunchKernel(fn, unsigned(n / blockX), unsigned(n), 1, blockX, 1, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS)
      throw std::runtime_error("cuLaunchKernel failed for " + path);
  };
  run();
  auto dist = download(dd, n * n);
  if (dpk::bench::pairwiseMismatch(x.data(), dist.data(), n, d).first >= 0) {
    state.SkipWithError(("pairwise_distance: wrong result from " + path).c_str());
    release();
    return;
  }
  timeKernel(state, run);
  release();
}

void registerLab() {
  const char *dir = std::getenv("DPK_LAB_PTX_DIR");
  if (!dir) return;
  std::vector<std::string> files;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".ptx") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  std::vector<unsigned> blocks;
  std::stringstream list(std::getenv("DPK_LAB_BLOCKS") ? std::getenv("DPK_LAB_BLOCKS") : "256");
  for (std::string item; std::getline(list, item, ',');) blocks.push_back(unsigned(std::stoul(item)));
  for (const std::string &path : files)
    for (unsigned block : blocks) {
      std::string name = "pairwise_distance/n=" + std::to_string(labPoints()) + ",d=3/lab-" + std::filesystem::path(path).stem().string() + "-b" + std::to_string(block);
      benchmark::RegisterBenchmark(name.c_str(), [path, block](benchmark::State &s) { labBench(s, path, block); })
          ->UseManualTime()->Unit(benchmark::kMicrosecond);
    }
}

void matmulBench(benchmark::State &state, bool hostClock) {
  const long n = 1024;
  auto a = randomValues<float>(n * n, 12), b = randomValues<float>(n * n, 13);
  float *da = upload(a), *db = upload(b), *dc = nullptr;
  CHECK_CUDA(cudaMalloc(&dc, n * n * 4));
  auto run = [&] { tiledMatmul<16><<<dim3(n / 16, n / 16), dim3(16, 16)>>>(da, db, dc, n); };
  run();
  auto c = download(dc, n * n);
  for (long r = 0; r < n; r += 129) {
    for (long col = 0; col < n; col += 131) {
      double want = 0;
      for (long k = 0; k < n; ++k) want += double(a[r * n + k]) * b[k * n + col];
      if (std::fabs(c[r * n + col] - want) > 1e-4 * std::max(1.0, std::fabs(want))) {
        state.SkipWithError("tiled_matmul: wrong result"); return;
      }
    }
  }
  timeKernelOrHost(state, hostClock, run);
  state.counters["flops"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
  cudaFree(da); cudaFree(db); cudaFree(dc);
}

// Launch overhead as dpk measures it: launch, then wait for completion, on the host clock.
void emptyBench(benchmark::State &state) {
  CHECK_CUDA(cudaFree(nullptr)); // creates the primary context
  CUfunction fn = nullptr;
  CHECK_CUDA(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t *>(&fn), reinterpret_cast<const void *>(empty)));
  float *buffer = nullptr;
  CHECK_CUDA(cudaMalloc(&buffer, 64));
  void *args[4] = {&buffer, &buffer, &buffer, &buffer};
  CUstream stream = nullptr;
  for (auto _ : state) {
    if (cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr) != CUDA_SUCCESS ||
        cuStreamSynchronize(stream) != CUDA_SUCCESS) {
      state.SkipWithError("cuLaunchKernel failed");
      return;
    }
  }
  cudaFree(buffer);
}

} // namespace

int main(int argc, char **argv) {
  benchmark::RegisterBenchmark("triad/n=32M/cuda-nvcc", [](benchmark::State &s) { triadBench(s, false); })->UseManualTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("triad/n=32M/cuda-memcpy", [](benchmark::State &s) { copyBench(s, 24ul << 25); })
      ->UseManualTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("vector_add/n=32M/cuda-nvcc", [](benchmark::State &s) { vectorAddBench(s, false); })->UseManualTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("vector_add/n=32M/cuda-memcpy", [](benchmark::State &s) { copyBench(s, 12ul << 25); })
      ->UseManualTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("pairwise_distance/n=4096,d=3/cuda-nvcc", [](benchmark::State &s) { pairwiseBench(s, false); })->UseManualTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("tiled_matmul/n=1024/cuda-nvcc", [](benchmark::State &s) { matmulBench(s, false); })->UseManualTime()->Unit(benchmark::kMillisecond);
  // The same kernels on the host clock, the way dpk_bench measures dpk.
  benchmark::RegisterBenchmark("triad/n=32M/cuda-nvcc-host-clock", [](benchmark::State &s) { triadBench(s, true); })
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("vector_add/n=32M/cuda-nvcc-host-clock", [](benchmark::State &s) { vectorAddBench(s, true); })
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("pairwise_distance/n=4096,d=3/cuda-nvcc-host-clock", [](benchmark::State &s) { pairwiseBench(s, true); })
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("tiled_matmul/n=1024/cuda-nvcc-host-clock", [](benchmark::State &s) { matmulBench(s, true); })
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("empty_kernel/1 item, 4 args/cuda-driver-raw", emptyBench)->UseRealTime()->Unit(benchmark::kMicrosecond);
  registerLab();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

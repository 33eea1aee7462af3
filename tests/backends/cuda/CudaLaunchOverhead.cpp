// CudaLaunchOverhead.cpp - measures what the CUDA plugin adds to a kernel launch: an empty kernel
// launched N times through raw cuLaunchKernel and through the plugin's enqueue_launch (without
// and with an out-event), and launch + wait round trips. A measuring tool, not a test: it asserts
// nothing. Usage: dpk_cuda_launch_overhead <plugin.so> <empty.ptx> [launches]
#include "driver_api.hpp"

#include "dpk/plugin.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

using namespace dpk::cuda;
using Clock = std::chrono::steady_clock;

namespace {

/// Best of `repeats` runs of `body(n)`, in ns per iteration; `sync` ends each run.
double bestNs(int repeats, int n, const std::function<void(int)> &body,
              const std::function<void()> &sync) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto start = Clock::now();
    body(n);
    sync();
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() / n;
    best = std::min(best, ns);
  }
  return best;
}

#define CHECK(expr)                                                                                \
  do {                                                                                             \
    if (!(expr)) {                                                                                 \
      std::fprintf(stderr, "failed: %s (line %d)\n", #expr, __LINE__);                             \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <plugin.so> <empty.ptx> [launches]\n", argv[0]);
    return 2;
  }
  const int n = argc > 3 ? std::atoi(argv[3]) : 20000;
  const int roundTrips = 2000;
  std::ifstream file(argv[2]);
  std::stringstream text;
  text << file.rdbuf();
  std::string ptx = text.str();
  CHECK(!ptx.empty());

  // Raw driver API in the primary context (the one the plugin uses too).
  std::string why = loadDriver();
  if (!why.empty()) {
    std::printf("no CUDA: %s\n", why.c_str());
    return 0;
  }
  CHECK(cu.init(0) == CUDA_SUCCESS);
  CUdevice device;
  CUcontext context;
  CHECK(cu.deviceGet(&device, 0) == CUDA_SUCCESS);
  CHECK(cu.devicePrimaryCtxRetain(&context, device) == CUDA_SUCCESS);
  CHECK(cu.ctxSetCurrent(context) == CUDA_SUCCESS);
  CUmodule module;
  CUfunction function;
  CUstream stream;
  CUevent rawEvent;
  CHECK(cu.moduleLoadDataEx(&module, ptx.c_str(), 0, nullptr, nullptr) == CUDA_SUCCESS);
  CHECK(cu.moduleGetFunction(&function, module, "empty_kernel") == CUDA_SUCCESS);
  CHECK(cu.streamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  CHECK(cu.eventCreate(&rawEvent, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS);

  // The plugin.
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  CHECK(library);
  auto entry =
      reinterpret_cast<dpk_plugin_get_dispatch_fn>(dlsym(library, DPK_PLUGIN_ENTRY_SYMBOL));
  dpk_plugin_dispatch_t t{};
  t.struct_size = sizeof(t);
  CHECK(entry && entry(DPK_PLUGIN_ABI_VERSION, &t) == DPK_SUCCESS);
  CHECK(t.init(nullptr) == DPK_SUCCESS);
  uint32_t count = 1;
  dpk_pl_device_t dev;
  CHECK(t.get_devices(&count, &dev) == DPK_SUCCESS && count > 0);
  dpk_pl_context_t ctx;
  dpk_pl_queue_t queue;
  dpk_pl_program_t program;
  dpk_pl_kernel_t kernel;
  CHECK(t.context_create(&ctx, dev) == DPK_SUCCESS);
  CHECK(t.queue_create(&queue, ctx, DPK_PL_QUEUE_IN_ORDER) == DPK_SUCCESS);
  CHECK(t.program_create(&program, ctx, DPK_FORMAT_PTX, ptx.c_str(), ptx.size() + 1, nullptr) ==
        DPK_SUCCESS);
  CHECK(t.kernel_create(&kernel, program, "empty_kernel") == DPK_SUCCESS);
  dpk_launch_config_t nd{};
  nd.dims = 1;
  nd.global_size[0] = 1;
  nd.local_size[0] = 1;
  dpk_launch_config_t range{};
  range.dims = 1;
  range.global_size[0] = 1 << 20; // Range: the plugin picks 256-wide blocks
  dpk_launch_config_t rangeSmall = range;
  rangeSmall.global_size[0] = 1;

  auto rawSync = [&] { cu.ctxSetCurrent(context), cu.streamSynchronize(stream); };
  auto plSync = [&] { t.queue_finish(queue); };
  const int repeats = 5;
  for (int warm = 0; warm < 1000; ++warm) {
    cu.launchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr);
    t.enqueue_launch(nullptr, queue, kernel, &nd, 0, nullptr, 0, nullptr);
  }
  rawSync();
  plSync();

  double raw = bestNs(
      repeats, n,
      [&](int k) {
        for (int i = 0; i < k; ++i)
          cu.launchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr);
      },
      rawSync);
  double rawWithEvent = bestNs(
      repeats, n,
      [&](int k) {
        for (int i = 0; i < k; ++i) {
          cu.launchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr);
          cu.eventRecord(rawEvent, stream);
        }
      },
      rawSync);
  double plugin = bestNs(
      repeats, n,
      [&](int k) {
        for (int i = 0; i < k; ++i)
          t.enqueue_launch(nullptr, queue, kernel, &nd, 0, nullptr, 0, nullptr);
      },
      plSync);
  double pluginRange = bestNs(
      repeats, n,
      [&](int k) {
        for (int i = 0; i < k; ++i)
          t.enqueue_launch(nullptr, queue, kernel, &rangeSmall, 0, nullptr, 0, nullptr);
      },
      plSync);
  double pluginEvent = bestNs(
      repeats, n,
      [&](int k) {
        for (int i = 0; i < k; ++i) {
          dpk_pl_event_t e;
          t.enqueue_launch(&e, queue, kernel, &nd, 0, nullptr, 0, nullptr);
          t.event_release(e);
        }
      },
      plSync);
  double rawTrip = bestNs(
      repeats, roundTrips,
      [&](int k) {
        for (int i = 0; i < k; ++i) {
          cu.launchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr);
          cu.eventRecord(rawEvent, stream);
          cu.eventSynchronize(rawEvent);
        }
      },
      rawSync);
  double pluginTrip = bestNs(
      repeats, roundTrips,
      [&](int k) {
        for (int i = 0; i < k; ++i) {
          dpk_pl_event_t e;
          t.enqueue_launch(&e, queue, kernel, &nd, 0, nullptr, 0, nullptr);
          t.event_wait(1, &e);
          t.event_release(e);
        }
      },
      plSync);
  double bigRange = bestNs(
      repeats, n / 10,
      [&](int k) {
        for (int i = 0; i < k; ++i)
          t.enqueue_launch(nullptr, queue, kernel, &range, 0, nullptr, 0, nullptr);
      },
      plSync);

  std::printf("empty kernel, %d launches, best of %d (ns per launch):\n", n, repeats);
  std::printf("  raw cuLaunchKernel                      %8.0f\n", raw);
  std::printf("  raw cuLaunchKernel + cuEventRecord      %8.0f\n", rawWithEvent);
  std::printf("  plugin enqueue_launch (NdRange 1)       %8.0f  (+%.0f)\n", plugin, plugin - raw);
  std::printf("  plugin enqueue_launch (Range 1)         %8.0f  (+%.0f)\n", pluginRange,
              pluginRange - raw);
  std::printf("  plugin launch + out_event + release     %8.0f  (+%.0f vs raw+record)\n",
              pluginEvent, pluginEvent - rawWithEvent);
  std::printf("  plugin Range 2^20 items (4096 blocks)   %8.0f  (throughput-bound)\n", bigRange);
  std::printf("launch + wait round trip, %d times (ns):\n", roundTrips);
  std::printf("  raw                                     %8.0f\n", rawTrip);
  std::printf("  plugin                                  %8.0f  (+%.0f)\n", pluginTrip,
              pluginTrip - rawTrip);
  t.kernel_release(kernel);
  t.program_release(program);
  t.queue_release(queue);
  t.context_release(ctx);
  return 0;
}

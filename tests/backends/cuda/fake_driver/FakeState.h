// FakeState.h - the fake CUDA driver's handles and shared state: one H100-like device, its
// primary context, the calling thread's current context and the failures a test injected.
//
// The fake does no GPU work. Memory is host memory (unified addressing makes a device pointer
// an ordinary address to the plugin), copies and fills happen at once, kernels never run (but
// for the plugin's own small-read copy, FakeModules.cpp), and every stream and event is complete
// (unless a test has streams report busy). What it checks is what the plugin must get right
// about the API: a current context for launches, a function of a loaded module, limits of the
// device.
#ifndef DPK_TESTS_FAKE_CUDA_STATE_H
#define DPK_TESTS_FAKE_CUDA_STATE_H

#include "driver_api.hpp" // the plugin's own declarations of the driver's types and constants

#include <atomic>
#include <string>
#include <vector>

#define FAKE_CUDA_EXPORT extern "C" __attribute__((visibility("default")))

// The handle types the plugin's header names (struct CUctx_st * ...), defined here.
namespace dpk::cuda {
struct CUctx_st {
  CUdevice device = 0;
};
struct CUstream_st {
  CUcontext context = nullptr;
};
struct CUevent_st {
  unsigned flags = 0;
  bool recorded = false;
};
/// One .entry of a module: its parameters as the PTX declares them.
struct CUfunc_st {
  std::string name;
  std::vector<size_t> paramOffsets;
  std::vector<size_t> paramSizes;
  int maxDynamicShared = 48 * 1024;
};
struct CUmod_st {
  std::vector<CUfunc_st> functions;
};
} // namespace dpk::cuda

namespace fake_cuda {

using namespace dpk::cuda; // CUresult, CUDA_*, CU_* and the handles as the plugin sees them

/// The one device's limits (those of an H100 80GB HBM3).
constexpr int DeviceCount = 1;
constexpr const char *DeviceName = "Fake NVIDIA H100 80GB HBM3 (dpk test driver)";
constexpr size_t TotalMemory = 85520809984ull;
constexpr int MaxThreadsPerBlock = 1024;
constexpr int DefaultSharedPerBlock = 48 * 1024;
constexpr int OptinSharedPerBlock = 227 * 1024;
constexpr int DriverVersion = 12080; // 12.8

/// The device's primary context (the fake has no other contexts).
CUcontext primaryContext();
/// The calling thread's current context (cuCtxSetCurrent).
CUcontext &currentContext();

/// Non-zero when a test asked the next call of `symbol` to fail with that result (consumed).
/// One relaxed load when nothing is injected, so the launch path stays cheap to count.
extern std::atomic<int> pendingFailures;
int takeInjectedFailure(const char *symbol);
inline int injectedFailure(const char *symbol) {
  return pendingFailures.load(std::memory_order_relaxed) ? takeInjectedFailure(symbol) : 0;
}

} // namespace fake_cuda

#endif // DPK_TESTS_FAKE_CUDA_STATE_H

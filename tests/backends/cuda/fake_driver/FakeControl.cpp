// FakeControl.cpp - the failures a test injects and the record of the last launch
// (FakeCudaControl.h), and the calling thread's current context.
#include "FakeCudaControl.h"
#include "FakeLaunchRecord.h"
#include "FakeState.h"

#include <cstring>
#include <mutex>

namespace fake_cuda {

std::atomic<int> pendingFailures{0};

namespace {

struct Injected {
  std::string symbol;
  int result;
};

std::mutex injectedLock;
std::vector<Injected> injected; // guarded by injectedLock

FakeCudaLaunch lastLaunchRecord{};
std::mutex lastLaunchMutex;

} // namespace

int takeInjectedFailure(const char *symbol) {
  std::lock_guard<std::mutex> guard(injectedLock);
  for (auto it = injected.begin(); it != injected.end(); ++it) {
    if (it->symbol != symbol)
      continue;
    int result = it->result;
    injected.erase(it);
    pendingFailures.fetch_sub(1, std::memory_order_relaxed);
    return result;
  }
  return 0;
}

FakeCudaLaunch &lastLaunch() { return lastLaunchRecord; }

std::mutex &lastLaunchLock() { return lastLaunchMutex; }

CUcontext primaryContext() {
  static CUctx_st context;
  return &context;
}

CUcontext &currentContext() {
  // initial-exec: a plain load, no __tls_get_addr call, on every entry point that reads it.
  static __attribute__((tls_model("initial-exec"))) thread_local CUcontext current = nullptr;
  return current;
}

} // namespace fake_cuda

using namespace fake_cuda;

FAKE_CUDA_EXPORT void fakeCudaFailNext(const char *symbol, int result) {
  std::lock_guard<std::mutex> guard(injectedLock);
  injected.push_back({symbol, result});
  pendingFailures.fetch_add(1, std::memory_order_relaxed);
}

FAKE_CUDA_EXPORT void fakeCudaLastLaunch(FakeCudaLaunch *out) {
  std::lock_guard<std::mutex> guard(lastLaunchMutex);
  *out = lastLaunchRecord;
}

// blas.cpp - finds and opens the host's CBLAS.
//
// Search list: OpenBLAS (libopenblas0-pthread or libopenblas0-serial), then BLIS (libblis4).
// The reference BLAS (libblas3, libblas.so.3 / libcblas.so.3) is left out on purpose: on the
// build machine (2 cores) its sgemm ran 1024² at 1.8 GFLOP/s against dpk's generated kernel's
// 22 and OpenBLAS's 134 (docs/arrays.md, "Benchmarks"), so taking it would make matmul slower;
// DPK_HOST_BLAS can still name it (or any CBLAS) for comparisons.
#include "blas.hpp"

#include "device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

namespace dpk::host {
namespace {

constexpr const char *kSearchList[] = {"libopenblas.so.0", "libblis.so.4"};

bool switchedOff(const char *value) {
  return !std::strcmp(value, "none") || !std::strcmp(value, "0") || !std::strcmp(value, "off");
}

/// Opens `name` and resolves the two GEMMs; "" on success, else why not.
std::string tryLibrary(const char *name, HostBlas &out) {
  // RTLD_LOCAL keeps the library's symbols out of the process's namespace (NumPy may carry
  // an OpenBLAS of its own). Never closed: OpenBLAS's thread pool outlives any caller.
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return std::string(name) + ": " + (why ? why : "dlopen failed");
  }
  auto sgemm = reinterpret_cast<SgemmFn>(dlsym(library, "cblas_sgemm"));
  auto dgemm = reinterpret_cast<DgemmFn>(dlsym(library, "cblas_dgemm"));
  if (!sgemm || !dgemm)
    return std::string(name) + " has no cblas_sgemm/cblas_dgemm";
  // As many threads as the host arena has (DPK_HOST_THREADS or hwloc's count), not the
  // library's default (every CPU it sees, or OPENBLAS_NUM_THREADS): a host queue runs one
  // command at a time, so while a GEMM runs the arena's workers are idle, and the two pools
  // take turns on the same cores. (This sets the library's global count; the library is
  // private to dpk unless someone else opened the same file.)
  int threads = std::max(hostDevice()->arena.max_concurrency(), 1);
  if (auto setThreads = reinterpret_cast<void (*)(int)>(dlsym(library, "openblas_set_num_threads")))
    setThreads(threads);
  if (auto setThreads = reinterpret_cast<void (*)(long)>(dlsym(library, "bli_thread_set_num_threads")))
    setThreads(threads);
  out.library = name;
  out.sgemm = sgemm;
  out.dgemm = dgemm;
  return {};
}

struct Loaded {
  HostBlas blas;
  bool found = false;
  std::string whyNot;
};

Loaded load() {
  Loaded loaded;
  const char *override = std::getenv("DPK_HOST_BLAS");
  if (override && *override) {
    if (switchedOff(override)) {
      loaded.whyNot = "switched off (DPK_HOST_BLAS=" + std::string(override) + ")";
      return loaded;
    }
    loaded.whyNot = tryLibrary(override, loaded.blas);
    loaded.found = loaded.whyNot.empty();
    if (!loaded.found)
      loaded.whyNot += " (DPK_HOST_BLAS)";
    return loaded;
  }
  std::string tried;
  for (const char *name : kSearchList) {
    std::string why = tryLibrary(name, loaded.blas);
    if (why.empty()) {
      loaded.found = true;
      return loaded;
    }
    tried += (tried.empty() ? "" : "; ") + why;
  }
  loaded.whyNot = "no host BLAS found (install libopenblas0-pthread or libblis4): " + tried;
  return loaded;
}

} // namespace

const HostBlas *hostBlas(std::string &whyNot) {
  static const Loaded loaded = load();
  if (!loaded.found) {
    whyNot = loaded.whyNot;
    return nullptr;
  }
  return &loaded.blas;
}

} // namespace dpk::host

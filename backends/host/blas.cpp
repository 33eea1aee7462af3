// blas.cpp - finds and opens the host's CBLAS.
//
// Search list: OpenBLAS (libopenblas0-pthread or libopenblas0-serial), then BLIS (libblis4).
// The reference BLAS (libblas3, libblas.so.3 / libcblas.so.3) is left out on purpose: on the
// build machine (2 cores) its sgemm ran 1024² at 1.8 GFLOP/s against dpk's generated kernel's
// 22 and OpenBLAS's 134 (docs/arrays.md, "Benchmarks"), so taking it would make matmul slower;
// DPK_HOST_BLAS can still name it (or any CBLAS) for comparisons.
#include "blas.hpp"

#include "device.hpp"

#include "OptionalLibrary.h"

#include <algorithm>
#include <dlfcn.h>

namespace dpk::host {
namespace {

constexpr const char *kSearchList[] = {"libopenblas.so.0", "libblis.so.4"};

/// Opens `name` and resolves the two GEMMs; "" on success, else why not.
std::string tryLibrary(const char *name, HostBlas &out) {
  // Never closed: OpenBLAS's thread pool outlives any caller.
  std::string why;
  void *library = plugin::openLocalLibrary(name, why);
  if (!library)
    return why;
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
  loaded.whyNot = plugin::loadOptionalLibrary(
      "DPK_HOST_BLAS", kSearchList,
      "no host BLAS found (install libopenblas0-pthread or libblis4)",
      [&](const char *name) { return tryLibrary(name, loaded.blas); });
  loaded.found = loaded.whyNot.empty();
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

// context.hpp - a dpk context on a CUDA device: the device's primary context and the
// allocations made in it.
#ifndef DPK_BACKENDS_CUDA_CONTEXT_HPP
#define DPK_BACKENDS_CUDA_CONTEXT_HPP

#include "cublas_api.hpp"
#include "device.hpp"
#include "entries.hpp"

#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace dpk::cuda {

/// What mem_free must know about a pointer it handed out.
struct Allocation {
  dpk_mem_kind_t kind;
  void *base; // differs from the user pointer when a larger alignment was asked for
  size_t size;
};

/// The primary context is shared with every other user of the driver API in the process
/// (CuPy, PyTorch), which is what lets their pointers and ours mix without copies.
struct Context : RefCounted {
  Device *device = nullptr;
  CUcontext native = nullptr;
  std::mutex lock; // guards allocations, spareEvents, peersTried and the small-read kernel
  std::unordered_map<void *, Allocation> allocations;
  /// Timing-free CUDA events kept for reuse: a command's event is created and destroyed at
  /// launch rate, and recycling skips both driver calls.
  std::vector<CUevent> spareEvents;
  /// Other devices' contexts whose peer access this context has asked for (peer.hpp).
  std::unordered_set<CUcontext> peersTried;
  /// The context's cuBLAS handle, created by the first GEMM (gemm.cpp). A handle holds one
  /// stream at a time, so blasLock is held from cublasSetStream to the GEMM's enqueue.
  std::mutex blasLock;
  cublasHandle_t blas = nullptr;
  /// The copy kernel of small reads (small_read.hpp), loaded by the first one; guarded by lock.
  bool smallReadTried = false;
  CUmodule smallReadModule = nullptr;
  CUfunction smallReadKernel = nullptr;

  /// A CU_EVENT_DISABLE_TIMING event of this context (the context must be current).
  dpk_status_t takeEvent(CUevent &out);
  /// Returns an event from takeEvent(); re-recording it later does not disturb waits already
  /// enqueued on its previous record.
  void recycleEvent(CUevent event);

  Context() = default;
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
};

inline Context *toContext(dpk_pl_context_t handle) { return reinterpret_cast<Context *>(handle); }

/// Drops one reference; the last one frees leftover allocations and the primary context.
void releaseContextRef(Context *context);


} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_CONTEXT_HPP

// queue.hpp - a dpk queue: one CUDA stream.
//
// Out-of-order queues also get one stream: commands then run in submission order, which is one
// of the orders an out-of-order queue allows, and dependencies across queues still come from
// events (cuStreamWaitEvent). Concurrency inside one dpk queue is not worth a stream pool and
// the bookkeeping it needs; dpk users get it from several queues.
#ifndef DPK_BACKENDS_CUDA_QUEUE_HPP
#define DPK_BACKENDS_CUDA_QUEUE_HPP

#include "context.hpp"
#include "entries.hpp"

#include <atomic>
#include <memory>
#include <mutex>

namespace dpk::cuda {

struct Queue {
  Context *context = nullptr; // holds a reference
  CUstream stream = nullptr;
  bool ownsStream = true; // false for a stream someone else made (queue_create_from_native)
  bool profiling = false;
  std::mutex lock; // guards lastKernel
  /// The kernel most recently launched here: an asynchronous fault names it, since the driver
  /// reports faults at the next synchronization without saying which kernel raised them.
  std::shared_ptr<const std::string> lastKernel;
  /// lastKernel.get(), written with it under the lock and read without it, so a launch of the
  /// same kernel as the one before costs one load instead of a lock pair. Equal pointers are the
  /// same name: lastKernel keeps the string alive, so no other name can take its address.
  std::atomic<const std::string *> lastKernelName{nullptr};
  /// Pinned, device-mapped staging block of small reads (small_read.hpp), made by the first one;
  /// readLock guards it while a read uses it.
  std::mutex readLock;
  void *readStaging = nullptr;
  /// Whether commands were submitted since the plugin last synchronized the stream (a hint for
  /// small reads: false means idle for sure on a stream only dpk submits to).
  std::atomic<bool> unsynced{false};

  /// Notes a command submitted to the stream.
  void noteSubmitted() { unsynced.store(true, std::memory_order_relaxed); }
  /// Notes that the stream was synchronized with everything submitted before the call began.
  void noteSynchronized() { unsynced.store(false, std::memory_order_relaxed); }

  std::shared_ptr<const std::string> latestKernel() {
    std::lock_guard<std::mutex> guard(lock);
    return lastKernel;
  }

  /// Makes `kernel` the queue's last kernel.
  void noteKernel(const std::shared_ptr<const std::string> &kernel) {
    if (lastKernelName.load(std::memory_order_relaxed) == kernel.get())
      return;
    std::lock_guard<std::mutex> guard(lock);
    lastKernel = kernel;
    lastKernelName.store(kernel.get(), std::memory_order_relaxed);
  }
};

inline Queue *toQueue(dpk_pl_queue_t handle) { return reinterpret_cast<Queue *>(handle); }


} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_QUEUE_HPP

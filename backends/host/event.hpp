// event.hpp - a host command's completion: status, failure cause, timestamps.
#ifndef DPK_BACKENDS_HOST_EVENT_HPP
#define DPK_BACKENDS_HOST_EVENT_HPP

#include "dpk/plugin.h"
#include "entries.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

struct dpk_pl_event_s {
  // One reference for the caller's handle and one for the queue until the command ran.
  std::atomic<int> references{1};
  std::mutex mutex;
  std::condition_variable done;
  dpk_event_status_t status = DPK_EVENT_QUEUED;
  dpk_status_t error = DPK_SUCCESS;
  std::string cause; // why the command failed, naming the command
  std::chrono::steady_clock::time_point start, end;

  void retain() { references.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (references.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }
  void markRunning();
  void complete(dpk_status_t result, std::string failureCause);
  /// Blocks until the command finished; returns its status (cause in `cause`).
  dpk_status_t wait();
};

namespace dpk::host {
} // namespace dpk::host

#endif

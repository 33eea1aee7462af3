// event.cpp - event entry points: wait, status, timing, release.
#include "event.hpp"

#include "PluginSupport.h"

namespace plugin = dpk::plugin;

void dpk_pl_event_s::markRunning() {
  std::lock_guard<std::mutex> lock(mutex);
  status = DPK_EVENT_RUNNING;
  start = std::chrono::steady_clock::now();
}

void dpk_pl_event_s::complete(dpk_status_t result, std::string failureCause) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    end = std::chrono::steady_clock::now();
    if (status == DPK_EVENT_QUEUED)
      start = end;
    error = result;
    cause = std::move(failureCause);
    status = result == DPK_SUCCESS ? DPK_EVENT_COMPLETE : DPK_EVENT_ERROR;
  }
  done.notify_all();
}

dpk_status_t dpk_pl_event_s::wait() {
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock, [&] { return status == DPK_EVENT_COMPLETE || status == DPK_EVENT_ERROR; });
  return error;
}

namespace dpk::host {

dpk_status_t eventWait(uint32_t numEvents, const dpk_pl_event_t *events) {
  dpk_status_t first = DPK_SUCCESS;
  std::string firstCause;
  for (uint32_t i = 0; i < numEvents; ++i) {
    dpk_status_t status = events[i]->wait();
    if (status != DPK_SUCCESS && first == DPK_SUCCESS) {
      first = status;
      std::lock_guard<std::mutex> lock(events[i]->mutex);
      firstCause = events[i]->cause;
    }
  }
  if (first != DPK_SUCCESS)
    return plugin::fail(first, firstCause);
  return DPK_SUCCESS;
}

dpk_status_t eventStatus(dpk_event_status_t *out, dpk_pl_event_t event) {
  std::lock_guard<std::mutex> lock(event->mutex);
  *out = event->status;
  return DPK_SUCCESS;
}

dpk_status_t eventElapsedNs(uint64_t *out, dpk_pl_event_t event) {
  std::lock_guard<std::mutex> lock(event->mutex);
  if (event->status != DPK_EVENT_COMPLETE)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "event_elapsed_ns: the command has not completed");
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(event->end - event->start).count();
  *out = static_cast<uint64_t>(ns);
  return DPK_SUCCESS;
}

dpk_status_t eventRelease(dpk_pl_event_t event) {
  event->release();
  return DPK_SUCCESS;
}

} // namespace dpk::host

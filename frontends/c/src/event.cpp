// event.cpp - dpk_event_* entry points.
#include "ApiGuard.h"

using namespace dpk;
using namespace dpk::capi;

extern "C" {

dpk_status_t dpk_event_wait(uint32_t num_events, const dpk_event_t *events) {
  return apiEntry("dpk_event_wait", [&] {
    Expected<std::vector<runtime::Event *>> resolved = toEvents(num_events, events, "events");
    if (!resolved)
      return resolved.takeError();
    // Every event is waited for, so none is left running; the first failure is returned.
    Error first = Error::success();
    for (runtime::Event *event : *resolved) {
      Error error = event->wait();
      if (error && !first)
        first = std::move(error);
    }
    return first;
  });
}

dpk_status_t dpk_event_status(dpk_event_status_t *out, dpk_event_t event) {
  return apiEntry("dpk_event_status", [&] {
    if (!out)
      return nullArgument("out");
    Expected<runtime::Event *> resolved = toEvent(event);
    if (!resolved)
      return resolved.takeError();
    Expected<dpk_event_status_t> status = (*resolved)->status();
    if (!status)
      return status.takeError();
    *out = *status;
    return Error::success();
  });
}

dpk_status_t dpk_event_elapsed_ns(uint64_t *out, dpk_event_t event) {
  return apiEntry("dpk_event_elapsed_ns", [&] {
    if (!out)
      return nullArgument("out");
    Expected<runtime::Event *> resolved = toEvent(event);
    if (!resolved)
      return resolved.takeError();
    Expected<uint64_t> elapsed = (*resolved)->elapsedNs();
    if (!elapsed)
      return elapsed.takeError();
    *out = *elapsed;
    return Error::success();
  });
}

dpk_status_t dpk_event_retain(dpk_event_t event) {
  return apiEntry("dpk_event_retain", [&] {
    return retainHandle(event, runtime::HandleKind::Event, "event");
  });
}

dpk_status_t dpk_event_release(dpk_event_t event) {
  return apiEntry("dpk_event_release", [&] {
    return releaseHandle(event, runtime::HandleKind::Event, "event");
  });
}

} // extern "C"

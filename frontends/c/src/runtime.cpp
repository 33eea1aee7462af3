// runtime.cpp - dpk_init, last error, status names, diagnostics callback.
#include "ApiGuard.h"

#include "runtime/RuntimePolicy.h"

namespace dpk::capi {

dpk_status_t failQuietly(dpk_status_t status, const char *entry, const char *what) noexcept {
  try {
    runtime::setLastError(std::string(entry) + ": " + what);
  } catch (...) {
    // No memory even for the message: the status still says what happened.
  }
  return status;
}

Expected<std::vector<runtime::Event *>> toEvents(uint32_t count, const dpk_event_t *events,
                                                 const char *what) {
  std::vector<runtime::Event *> converted;
  if (count == 0)
    return converted;
  if (!events)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 std::string(what) + " is NULL but its count is " + std::to_string(count));
  for (uint32_t i = 0; i < count; ++i) {
    Expected<runtime::Event *> event = toEvent(events[i]);
    if (!event)
      return Error(event.error().status(),
                   std::string(what) + "[" + std::to_string(i) + "]: " + event.error().message());
    converted.push_back(*event);
  }
  return converted;
}

} // namespace dpk::capi

using namespace dpk;
using namespace dpk::capi;

extern "C" {

dpk_status_t dpk_init(void) {
  return apiEntry("dpk_init", [] { return Error::success(); });
}

const char *dpk_last_error(void) { return runtime::lastErrorMessage(); }

int32_t dpk_last_error_native_code(void) { return runtime::lastErrorNativeCode(); }

const char *dpk_status_name(dpk_status_t status) { return runtime::statusName(status); }

dpk_status_t dpk_diagnostics_set_callback(dpk_diagnostics_callback_t callback, void *payload) {
  return apiEntry(
      "dpk_diagnostics_set_callback",
      [&] {
        runtime::setDiagnosticsCallback(callback, payload);
        return Error::success();
      },
      /*needsRuntime=*/false);
}

} // extern "C"

// Plugin.cpp - turning a plugin's status and last_error() into a core Error.
#include "runtime/Plugin.h"

#include "runtime/LastError.h"

namespace dpk::runtime {

Error Plugin::check(dpk_status_t status, std::string_view what) const {
  if (status == DPK_SUCCESS)
    return Error::success();
  if (const char *rejected = lastValidationFailure())
    return Error(status, std::string(what) + ": " + rejected + " [checked at the " + backend +
                             " plugin boundary]");
  int32_t nativeCode = 0;
  const char *cause = table.raw().last_error ? table.last_error(&nativeCode) : nullptr;
  noteNativeCode(nativeCode);
  std::string message(what);
  message += ": ";
  message += (cause && *cause) ? cause : "failed without a message";
  message += " [" + backend + " plugin";
  if (nativeCode != 0)
    message += ", native code " + std::to_string(nativeCode);
  message += "]";
  return Error(status, std::move(message));
}

} // namespace dpk::runtime

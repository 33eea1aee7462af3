// LastError.h - the thread-local last error of the C API: message and backend native code.
//
// The core passes failures up as dpk::Error; the one piece an Error does not carry is the
// backend's native code (CUresult, cl_int), which pluginError() notes here while it converts a
// plugin failure. The C API clears the slot on entry and fills it from the Error on failure.
#ifndef DPK_CORE_RUNTIME_LASTERROR_H
#define DPK_CORE_RUNTIME_LASTERROR_H

#include "dpk/dpk_types.h"

#include <cstdint>
#include <string>

namespace dpk::runtime {

void clearLastError();
/// Records the failure message returned to the C caller, with the native code noted since the
/// last clearLastError() (see noteNativeCode).
void setLastError(const std::string &message);
const char *lastErrorMessage();
int32_t lastErrorNativeCode();
/// Remembers the native code of a plugin failure on this thread.
void noteNativeCode(int32_t nativeCode);

/// The enumerator's name ("DPK_ERROR_INVALID_RANGE"); "DPK_STATUS_UNKNOWN" for other values.
const char *statusName(const dpk_status_t &status);

/// The value of a C enum argument as an int. C callers may pass any number; reading such a
/// value as the enum type is undefined behaviour (UBSan reports it), so entry points copy it
/// out as an int before validating it.
template <typename Enum> int enumValue(const Enum &value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized");
  int raw;
  __builtin_memcpy(&raw, &value, sizeof(raw));
  return raw;
}

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_LASTERROR_H

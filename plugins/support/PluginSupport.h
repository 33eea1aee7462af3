// PluginSupport.h - helpers for plugin authors: last error, early exits, the entry guard.
//
// Every plugin entry point returns a dpk_status_t and records a thread-local message (with the
// vendor's native code) for last_error(). These helpers make that one line per site:
//
//   dpk_status_t myQueueFinish(dpk_pl_queue_t queue) {
//     return dpk::plugin::guardEntry([&] {
//       DPK_RETURN_ON_FAILURE(checkCl(clFinish(q->native), "clFinish"));
//       return DPK_SUCCESS;
//     });
//   }
//
// The library is linked statically into each plugin with hidden visibility, so each plugin has
// its own last-error slot.
#ifndef DPK_PLUGINS_SUPPORT_PLUGINSUPPORT_H
#define DPK_PLUGINS_SUPPORT_PLUGINSUPPORT_H

#include "dpk/plugin.h"

#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace dpk::plugin {

/// Records `message` and `nativeCode` as this thread's last error and returns `status`, so a
/// failure site reads `return fail(DPK_ERROR_LAUNCH, rc, "cuLaunchKernel: ...");`.
dpk_status_t fail(dpk_status_t status, int32_t nativeCode, std::string message);
/// As fail() with no native code.
dpk_status_t fail(dpk_status_t status, std::string message);

/// The message of this thread's last failure ("" if none) and its native code (0 if none).
/// Suitable as the body of the dispatch table's last_error entry.
const char *lastError(int32_t *nativeCode);
void clearLastError();

/// Records "<entryName>: <what>" without ever throwing (used while handling an exception, when
/// memory may be exhausted: the message is then dropped but the status still returned).
dpk_status_t failNoThrow(dpk_status_t status, const char *entryName, const char *what) noexcept;

/// Runs `body` (returning dpk_status_t) and converts every escaping exception into a status:
/// std::bad_alloc -> DPK_ERROR_OUT_OF_HOST_MEMORY, anything else -> DPK_ERROR_GENERIC, each with
/// a message naming `entryName`. Wrap every exported entry point's body in it.
template <typename Body>
dpk_status_t guardEntry(const char *entryName, Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return failNoThrow(DPK_ERROR_OUT_OF_HOST_MEMORY, entryName, "out of host memory");
  } catch (const std::exception &e) {
    return failNoThrow(DPK_ERROR_GENERIC, entryName, e.what());
  } catch (...) {
    return failNoThrow(DPK_ERROR_GENERIC, entryName, "unknown exception");
  }
}

/// guardEntry without a name, for short lambdas.
template <typename Body> dpk_status_t guardEntry(Body &&body) noexcept {
  return guardEntry("plugin entry", static_cast<Body &&>(body));
}

/// get_devices' contract over a plugin's device list: copies up to *count handles into `out`
/// (when it is not NULL) and sets *count to how many devices there are.
template <typename Device>
void listDevices(const std::vector<std::unique_ptr<Device>> &devices, uint32_t *count,
                 dpk_pl_device_t *out) {
  uint32_t available = static_cast<uint32_t>(devices.size());
  if (out)
    for (uint32_t i = 0; i < available && i < *count; ++i)
      out[i] = reinterpret_cast<dpk_pl_device_t>(devices[i].get());
  *count = available;
}

/// The fill checks of plugins whose devices fill with power-of-two patterns up to 128 bytes
/// (the C API's limit): a null pattern or destination, a bad pattern size, or a size that the
/// pattern does not divide is DPK_ERROR_INVALID_ARGUMENT with the reason.
dpk_status_t checkFillArguments(const void *dst, const void *pattern, size_t patternSize, size_t bytes);

/// The argument kind exactly as the caller stored it. A C caller may put any int there, and
/// reading a value outside the enumerators through the enum type is undefined behaviour in C++
/// (UBSan stops on it), so plugins check the raw integer before they look at `arg.kind`.
inline int argKind(const dpk_kernel_arg_t &arg) {
  int kind = 0;
  static_assert(sizeof kind == sizeof arg.kind, "dpk_arg_kind is stored as an int");
  std::memcpy(&kind, &arg.kind, sizeof kind);
  return kind;
}
inline bool isKnownArgKind(const dpk_kernel_arg_t &arg) {
  int kind = argKind(arg);
  return kind == DPK_ARG_POINTER || kind == DPK_ARG_SCALAR || kind == DPK_ARG_LOCAL;
}

} // namespace dpk::plugin

/// Returns from the enclosing function when `expr` (a dpk_status_t) is not DPK_SUCCESS.
#define DPK_RETURN_ON_FAILURE(expr)                                                              \
  do {                                                                                           \
    dpk_status_t dpkStatus_ = (expr);                                                            \
    if (dpkStatus_ != DPK_SUCCESS)                                                               \
      return dpkStatus_;                                                                         \
  } while (0)

#endif // DPK_PLUGINS_SUPPORT_PLUGINSUPPORT_H

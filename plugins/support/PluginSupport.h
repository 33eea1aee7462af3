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
// its own last-error slot. Arguments are checked before an entry point is called, by the core's
// validation layer (plugins/README.md lists what an entry point may assume).
#ifndef DPK_PLUGINS_SUPPORT_PLUGINSUPPORT_H
#define DPK_PLUGINS_SUPPORT_PLUGINSUPPORT_H

#include "dpk/plugin.h"

#include <exception>
#include <new>
#include <string>

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

} // namespace dpk::plugin

/// Returns from the enclosing function when `expr` (a dpk_status_t) is not DPK_SUCCESS.
#define DPK_RETURN_ON_FAILURE(expr)                                                              \
  do {                                                                                           \
    dpk_status_t dpkStatus_ = (expr);                                                            \
    if (dpkStatus_ != DPK_SUCCESS)                                                               \
      return dpkStatus_;                                                                         \
  } while (0)

#endif // DPK_PLUGINS_SUPPORT_PLUGINSUPPORT_H

// common.hpp - the one ze_result_t -> dpk_status_t mapping of the Level Zero backend, result
// names for messages, and the early-exit macro.
#ifndef DPK_BACKENDS_LEVEL_ZERO_COMMON_HPP
#define DPK_BACKENDS_LEVEL_ZERO_COMMON_HPP

#include "PluginSupport.h"
#include "RefCounted.h"
#include "dpk/plugin.h"

#include <level_zero/ze_api.h>

#include <string>

namespace dpk::level_zero {

using plugin::fail;
using plugin::RefCounted;

/// The dpk status a Level Zero result stands for.
dpk_status_t mapZeResult(ze_result_t result);

/// "ZE_RESULT_ERROR_UNINITIALIZED", or "ZE_RESULT_<unknown>" for values this build does not know.
const char *zeResultName(ze_result_t result);

/// "ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)".
std::string describeZeResult(ze_result_t result);

/// Records "<call>: <description>[: <context>]" with the native code as this thread's last error
/// and returns the mapped status; DPK_SUCCESS (recording nothing) for ZE_RESULT_SUCCESS.
dpk_status_t checkZe(ze_result_t result, const char *call, const std::string &context = {});

} // namespace dpk::level_zero

/// Returns from the enclosing entry point when a Level Zero call fails, recording its name.
#define ZE_RETURN_ON_FAILURE(expr, callName)                                                       \
  do {                                                                                             \
    ze_result_t zeResult_ = (expr);                                                                \
    if (zeResult_ != ZE_RESULT_SUCCESS)                                                            \
      return ::dpk::level_zero::checkZe(zeResult_, callName);                                      \
  } while (0)

/// Returns when a dpk_status_t expression is not DPK_SUCCESS.
#define RETURN_ON_FAILURE(expr) DPK_RETURN_ON_FAILURE(expr)

#endif // DPK_BACKENDS_LEVEL_ZERO_COMMON_HPP

// Plugin.h - one loaded backend plugin: its library handle and its dispatch table, which the core
// calls through the validation layer (PluginValidation.h).
#ifndef DPK_CORE_RUNTIME_PLUGIN_H
#define DPK_CORE_RUNTIME_PLUGIN_H

#include "dpk/plugin.h"
#include "runtime/PluginValidation.h"
#include "support/Error.h"

#include <string>
#include <string_view>

namespace dpk::runtime {

struct Plugin {
  std::string backend; // from the dispatch table ("host", "opencl", ...)
  std::string path;    // the file that was opened
  void *library = nullptr;
  /// The plugin's entries, each checking its arguments before the plugin sees them.
  ValidatedDispatch table;

  /// Success for DPK_SUCCESS; otherwise an Error "<what>: <cause>" carrying the status. The
  /// cause is the validation layer's message when it rejected the call, else the plugin's
  /// last_error, whose native code is noted for dpk_last_error_native_code().
  Error check(dpk_status_t status, std::string_view what) const;
};

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_PLUGIN_H

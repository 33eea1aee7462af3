// Plugin.h - one loaded backend plugin: its library handle and dispatch table.
#ifndef DPK_CORE_RUNTIME_PLUGIN_H
#define DPK_CORE_RUNTIME_PLUGIN_H

#include "dpk/plugin.h"
#include "support/Error.h"

#include <string>
#include <string_view>

namespace dpk::runtime {

struct Plugin {
  std::string backend; // from the dispatch table ("host", "opencl", ...)
  std::string path;    // the file that was opened
  void *library = nullptr;
  dpk_plugin_dispatch_t table{};

  /// Success for DPK_SUCCESS; otherwise an Error "<what>: <plugin's last_error>" carrying the
  /// plugin's status, with the native code noted for dpk_last_error_native_code().
  Error check(dpk_status_t status, std::string_view what) const;
};

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_PLUGIN_H

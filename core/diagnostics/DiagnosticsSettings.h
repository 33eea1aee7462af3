// DiagnosticsSettings.h - how the diagnostics sink is configured: level, format, file, dump folder.
//
// The policy's `diagnostics:` section and DPK_DIAGNOSTICS fill one of these
// (policy::Policy::diagnostics); diag::configure() applies it.
#ifndef DPK_CORE_DIAGNOSTICS_DIAGNOSTICSSETTINGS_H
#define DPK_CORE_DIAGNOSTICS_DIAGNOSTICSSETTINGS_H

#include <string>

namespace dpk::diag {

enum class Format { Text, Json };

struct Settings {
  int level = 0;                    // 0-4, see docs/diagnostics.md
  Format format = Format::Text;
  std::string file;                 // empty: stderr; otherwise the file records are appended to
  std::string dumpDir = "dpk-dump"; // level 4 stage dumps go here (created on demand)
};

/// The C API's callback type (dpk.h's dpk_diagnostics_callback_t has the same signature).
using Callback = void (*)(int level, const char *jsonRecord, void *payload);

} // namespace dpk::diag

#endif // DPK_CORE_DIAGNOSTICS_DIAGNOSTICSSETTINGS_H

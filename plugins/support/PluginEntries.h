// PluginEntries.h - declares every plugin entry point of dpk/plugin_entries.def (but
// last_error, which the support library provides) in the namespace that includes it:
//
//   namespace dpk::cuda {
//   #include "PluginEntries.h"
//   }
//
// so a backend's headers hold its handle structs, not a third copy of the entry list.
// Deliberately without an include guard: it is included inside a namespace.
#define DPK_PLUGIN_DECLARE_STATUS(return_type, Name, parameters) return_type Name parameters;
#define DPK_PLUGIN_DECLARE_VOID(return_type, Name, parameters) return_type Name parameters;
#define DPK_PLUGIN_DECLARE_TEXT(return_type, Name, parameters) return_type Name parameters;
#define DPK_PLUGIN_DECLARE_LAST_ERROR(return_type, Name, parameters)
#define DPK_PLUGIN_ENTRY(kind, return_type, field, Name, parameters, arguments)                \
  DPK_PLUGIN_DECLARE_##kind(return_type, Name, parameters)
#include "dpk/plugin_entries.def"
#undef DPK_PLUGIN_ENTRY
#undef DPK_PLUGIN_DECLARE_STATUS
#undef DPK_PLUGIN_DECLARE_VOID
#undef DPK_PLUGIN_DECLARE_TEXT
#undef DPK_PLUGIN_DECLARE_LAST_ERROR

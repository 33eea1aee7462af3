// GuardedDispatch.h - fills a plugin's dispatch table from the namespace that defines its entry
// points (named as in dpk/plugin_entries.def: getDevices for get_devices, ...), wrapping each
// one in guardEntry so that no exception leaves the plugin and every failure names its entry.
// A backend's plugin.cpp is then only its exported symbol:
//
//   extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t abi, dpk_plugin_dispatch_t *out) {
//     static const dpk_plugin_dispatch_t table = [] {
//       dpk_plugin_dispatch_t t = dpk::plugin::emptyDispatch("cuda");
//   #define DPK_GUARDED_NAMESPACE dpk::cuda
//   #include "GuardedDispatch.inc"
//   #undef DPK_GUARDED_NAMESPACE
//       return t;
//     }();
//     return dpk::plugin::copyDispatch(abi, table, out);
//   }
#ifndef DPK_PLUGINS_SUPPORT_GUARDEDDISPATCH_H
#define DPK_PLUGINS_SUPPORT_GUARDEDDISPATCH_H

#include "PluginSupport.h"

#include <cstring>

// One table assignment per kind of row of dpk/plugin_entries.def (GuardedDispatch.inc expands
// the rows): STATUS entries run inside guardEntry; VOID entries too, with the status dropped;
// TEXT entries cannot fail and are called directly; LAST_ERROR is the support library's.
#define DPK_GUARDED_FIELD_STATUS(ns, field, Name, parameters, arguments)                         \
  t.field = [] parameters -> dpk_status_t {                                                      \
    return ::dpk::plugin::guardEntry(#field, [&] { return ns::Name arguments; });               \
  };
#define DPK_GUARDED_FIELD_VOID(ns, field, Name, parameters, arguments)                           \
  t.field = [] parameters {                                                                      \
    (void)::dpk::plugin::guardEntry(#field, [&] {                                                \
      ns::Name arguments;                                                                        \
      return DPK_SUCCESS;                                                                        \
    });                                                                                          \
  };
#define DPK_GUARDED_FIELD_TEXT(ns, field, Name, parameters, arguments)                           \
  t.field = [] parameters { return ns::Name arguments; };
#define DPK_GUARDED_FIELD_LAST_ERROR(ns, field, Name, parameters, arguments)                     \
  t.field = ::dpk::plugin::lastError;

namespace dpk::plugin {

/// A table with its header filled (size, ABI version, backend name) and no entries.
inline dpk_plugin_dispatch_t emptyDispatch(const char *backendName) {
  dpk_plugin_dispatch_t table;
  std::memset(&table, 0, sizeof(table));
  table.struct_size = sizeof(table);
  table.abi_version = DPK_PLUGIN_ABI_VERSION;
  table.backend = backendName;
  return table;
}

/// The exported entry symbol's body: checks the ABI version and copies no more of `table` than
/// the core's struct holds (its struct_size says how much it knows).
inline dpk_status_t copyDispatch(uint32_t requestedAbiVersion, const dpk_plugin_dispatch_t &table,
                                 dpk_plugin_dispatch_t *out) {
  if (requestedAbiVersion != DPK_PLUGIN_ABI_VERSION) {
    if (out)
      out->abi_version = DPK_PLUGIN_ABI_VERSION;
    return DPK_ERROR_ABI_MISMATCH;
  }
  if (!out || out->struct_size == 0)
    return DPK_ERROR_INVALID_ARGUMENT;
  size_t size = out->struct_size < sizeof(table) ? out->struct_size : sizeof(table);
  std::memcpy(out, &table, size);
  return DPK_SUCCESS;
}

} // namespace dpk::plugin

#endif // DPK_PLUGINS_SUPPORT_GUARDEDDISPATCH_H

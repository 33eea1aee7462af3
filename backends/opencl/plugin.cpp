// plugin.cpp - the one exported symbol: fills and version-checks the OpenCL dispatch table.
#include "entries.hpp"

#include "GuardedDispatch.h"

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t requestedAbiVersion,
                                                           dpk_plugin_dispatch_t *out) {
  static const dpk_plugin_dispatch_t table = [] {
    dpk_plugin_dispatch_t t = dpk::plugin::emptyDispatch("opencl");
#define DPK_GUARDED_NAMESPACE dpk::opencl
#include "GuardedDispatch.inc" // every entry of dpk/plugin_entries.def, inside guardEntry
#undef DPK_GUARDED_NAMESPACE
    return t;
  }();
  return dpk::plugin::copyDispatch(requestedAbiVersion, table, out);
}

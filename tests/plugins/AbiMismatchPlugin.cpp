// AbiMismatchPlugin.cpp - a plugin built for ABI version 999: refuses the core's version.
#include "dpk/plugin.h"

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t, dpk_plugin_dispatch_t *out) {
  if (out)
    out->abi_version = 999;
  return DPK_ERROR_ABI_MISMATCH;
}

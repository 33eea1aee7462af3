// MissingDependencyPlugin.cpp - a well-formed plugin whose dependency is absent at run time, so
// dlopen fails: the loader must say "present but a dependency is missing" and name the library.
#include "dpk/plugin.h"

extern "C" int dpk_test_unreachable_value();

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t, dpk_plugin_dispatch_t *) {
  return dpk_test_unreachable_value() == 7 ? DPK_ERROR_UNSUPPORTED : DPK_ERROR_GENERIC;
}

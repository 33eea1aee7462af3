// plugin.cpp - the Level Zero plugin's one exported symbol: checks the ABI version and fills the
// dispatch table (GuardedDispatch.h wraps every entry so that no exception leaves the plugin).
#include "context.hpp"
#include "device.hpp"
#include "enqueue.hpp"
#include "event.hpp"
#include "kernel.hpp"
#include "memory.hpp"
#include "program.hpp"
#include "queue.hpp"

#include "GuardedDispatch.h"

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t requestedAbiVersion,
                                                           dpk_plugin_dispatch_t *out) {
  static const dpk_plugin_dispatch_t table = DPK_GUARDED_DISPATCH(dpk::level_zero, "level_zero");
  return dpkCopyDispatch(requestedAbiVersion, table, out);
}

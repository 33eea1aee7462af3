// plugin.cpp - the host backend's one exported symbol: fills and version-checks the dispatch
// table, and nothing else.
#include "device.hpp"
#include "enqueue.hpp"
#include "event.hpp"
#include "memory.hpp"
#include "program.hpp"
#include "queue.hpp"

#include "GuardedDispatch.h"

namespace dpk::host {
namespace {
dpk_status_t init(const dpk_plugin_host_services_t *) { return DPK_SUCCESS; }
void shutdown() {}
} // namespace
} // namespace dpk::host

extern "C" DPK_EXPORT dpk_status_t dpk_plugin_get_dispatch(uint32_t requestedAbiVersion,
                                                           dpk_plugin_dispatch_t *out) {
  // Every entry runs inside guardEntry: no exception leaves the plugin (GuardedDispatch.h).
  static const dpk_plugin_dispatch_t table = DPK_GUARDED_DISPATCH(dpk::host, "host");
  return dpkCopyDispatch(requestedAbiVersion, table, out);
}

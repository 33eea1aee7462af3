// NativeQueue.h - the queue_get_native contract for any plugin: a backend fills a full
// dpk_native_queue_t and copyNativeQueue() hands the caller no more than its struct_size holds.
#ifndef DPK_PLUGINS_SUPPORT_NATIVEQUEUE_H
#define DPK_PLUGINS_SUPPORT_NATIVEQUEUE_H

#include "dpk/plugin.h"

#include <cstring>

namespace dpk::plugin {

/// A dpk_native_queue_t with its struct_size set and every handle NULL.
inline dpk_native_queue_t emptyNativeQueue(dpk_native_api_t api, dpk_native_memory_t memory,
                                           dpk_native_order_t order) {
  dpk_native_queue_t handles;
  std::memset(&handles, 0, sizeof(handles));
  handles.struct_size = sizeof(handles);
  handles.api = api;
  handles.memory = memory;
  handles.order = order;
  return handles;
}

/// Copies `handles` into `out` up to out->struct_size bytes, leaving struct_size as the caller
/// set it (a caller built against an older, shorter struct gets its prefix).
inline dpk_status_t copyNativeQueue(const dpk_native_queue_t &handles, dpk_native_queue_t *out) {
  size_t callerSize = out->struct_size;
  size_t size = callerSize < sizeof(handles) ? callerSize : sizeof(handles);
  std::memcpy(out, &handles, size);
  out->struct_size = callerSize;
  return DPK_SUCCESS;
}

} // namespace dpk::plugin

#endif // DPK_PLUGINS_SUPPORT_NATIVEQUEUE_H

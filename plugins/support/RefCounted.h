// RefCounted.h - an intrusive reference count for plugin handles that others keep alive.
//
// A context outlives its queues, programs and events, and a program its kernels: each holder
// retains the handle it depends on and drops it with releaseRef(), and whoever drops the last
// reference destroys the handle's vendor objects.
#ifndef DPK_PLUGINS_SUPPORT_REFCOUNTED_H
#define DPK_PLUGINS_SUPPORT_REFCOUNTED_H

#include <atomic>

namespace dpk::plugin {

class RefCounted {
public:
  void retain() { count.fetch_add(1, std::memory_order_relaxed); }
  /// True when this was the last reference.
  bool releaseRef() { return count.fetch_sub(1, std::memory_order_acq_rel) == 1; }

private:
  std::atomic<int> count{1}; // the creator's reference
};

} // namespace dpk::plugin

#endif // DPK_PLUGINS_SUPPORT_REFCOUNTED_H

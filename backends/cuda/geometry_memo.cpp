// geometry_memo.cpp - filling and freeing a kernel's remembered geometries.
#include "geometry_memo.hpp"

#include <new>

namespace dpk::cuda {

GeometryMemo::~GeometryMemo() {
  for (std::atomic<const Entry *> &slot : slots_)
    delete slot.load(std::memory_order_relaxed);
}

void GeometryMemo::remember(const dpk_launch_config_t &config, const Geometry &geometry) {
  std::lock_guard<std::mutex> guard(writers_);
  for (std::atomic<const Entry *> &slot : slots_) {
    const Entry *entry = slot.load(std::memory_order_relaxed);
    if (entry && sameLaunch(entry->config, config))
      return; // another thread remembered it first
    if (entry)
      continue;
    // Without memory for the entry the launch goes on unremembered: the memo only saves time.
    if (const Entry *fresh = new (std::nothrow) Entry{config, geometry})
      slot.store(fresh, std::memory_order_release);
    return;
  }
}

} // namespace dpk::cuda

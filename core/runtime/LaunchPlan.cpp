// LaunchPlan.cpp - the per-kernel cache of launch plans.
#include "runtime/LaunchPlan.h"

#include <memory>

namespace dpk::runtime {

LaunchPlanCache::~LaunchPlanCache() {
  // The kernel is going, so no launch uses it: nobody reads.
  for (std::atomic<const Entry *> &slot : slots_)
    delete slot.load();
  for (const Entry *entry : retired_)
    delete entry;
}

bool LaunchPlanCache::matches(const Entry &entry, const Device &device, bool inOrder,
                              const dpk_launch_config_t &config, const MarshalledArgs &args,
                              uint32_t unitStrideViews) {
  if (entry.device != &device || entry.inOrder != inOrder ||
      entry.unitStrideViews != unitStrideViews || entry.config.dims != config.dims)
    return false;
  // All three entries, not only `dims` of them: nothing may depend on what a plan did not see.
  for (int d = 0; d < 3; ++d) {
    if (entry.config.global_size[d] != config.global_size[d] ||
        entry.config.local_size[d] != config.local_size[d])
      return false;
  }
  const MarshalledArgs::ArgList &given = args.args();
  if (entry.args.size() != given.size())
    return false;
  const ArgShape *shape = entry.args.data();
  for (const dpk_kernel_arg_t &arg : given) {
    if (shape->kind != arg.kind || shape->size != arg.size)
      return false;
    ++shape;
  }
  return true;
}

LaunchPlanCache::Found LaunchPlanCache::find(const Device &device, bool inOrder,
                                             const dpk_launch_config_t &config,
                                             const MarshalledArgs &args,
                                             uint32_t unitStrideViews) const {
  // Counted before the slots are read (both sequentially consistent): a remember() that frees
  // a plan after seeing no reader replaced it before this lookup could see it.
  readers_.fetch_add(1);
  for (const std::atomic<const Entry *> &slot : slots_) {
    const Entry *entry = slot.load();
    if (entry && matches(*entry, device, inOrder, config, args, unitStrideViews))
      return Found(this, &entry->plan);
  }
  readers_.fetch_sub(1);
  return Found(nullptr, nullptr);
}

void LaunchPlanCache::remember(const Device &device, bool inOrder,
                               const dpk_launch_config_t &config, const MarshalledArgs &args,
                               uint32_t unitStrideViews, const LaunchPlan &plan) {
  // Built outside the lock: launches of other shapes need not wait for the allocations.
  auto fresh = std::make_unique<Entry>();
  fresh->device = &device;
  fresh->inOrder = inOrder;
  fresh->unitStrideViews = unitStrideViews;
  fresh->config = config;
  fresh->args.reserve(args.args().size());
  for (const dpk_kernel_arg_t &arg : args.args())
    fresh->args.push_back({arg.kind, arg.size});
  fresh->plan = plan;

  std::vector<const Entry *> unused; // freed after the lock is released
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (retired_.size() >= MaxRetired && readers_.load() != 0)
      return; // too many replaced plans wait for their readers: this launch leaves none
    // Two threads that missed with the same key both get here: the second replaces the first's.
    size_t index = Slots;
    for (size_t i = 0; i < Slots; ++i) {
      const Entry *entry = slots_[i].load();
      if (entry && matches(*entry, device, inOrder, config, args, unitStrideViews))
        index = i;
    }
    if (index == Slots) {
      index = next_;
      next_ = (next_ + 1) % Slots;
    }
    if (const Entry *replaced = slots_[index].exchange(fresh.release()))
      retired_.push_back(replaced);
    if (readers_.load() == 0)
      unused.swap(retired_);
  }
  for (const Entry *entry : unused)
    delete entry;
}

} // namespace dpk::runtime

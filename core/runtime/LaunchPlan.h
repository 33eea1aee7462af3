// LaunchPlan.h - the outcome of a launch's checks and preparation, remembered per kernel so that
// a launch repeated with the same shape does only the work that changes per call.
//
// What a launch checks and prepares (Launch.h: the range, the dimensions the kernel indexes, the
// argument signature, the device's limits and local memory, the program's device, the policy's
// kernel rules, the build and its plugin kernels) depends only on the kernel, the queue's device
// and order, the launch configuration, the kinds and sizes of the marshalled arguments and, for
// kernels with view parameters, which views have a unit innermost stride (that picks the build).
// The policy, device properties and builds do not change while a kernel lives. A plan records
// that key and what the checks and preparation produced, for a launch that passed them all and
// that the device's plugin accepted. A later launch with the same key submits with the plan and
// checks only what it cannot know: the argument values (a scalar without a value), the
// placement of its pointers (any call may pass another device's memory) and its dependencies.
// Every other launch takes the full path, so every error is reported by the same code, in the
// same order, with the same message as without plans.
//
// Why per kernel and a few slots: a kernel is launched in few shapes, while a queue sees many
// kernels (the array layer generates dozens), so slots per queue would thrash.
//
// Thread safety without a lock on the launch path (a lock and unlock cost about 90 instructions,
// as much as the rest of a planned launch's lookup): plans are immutable once published, a
// lookup counts itself as a reader while it uses one, and a plan that remember() replaces is
// retired and freed only by a remember() that sees no reader. A reader that starts after the
// replacement cannot find the old plan, and one that started before is counted, so no plan is
// freed while in use. While readers never reach zero, at most MaxRetired plans wait, and after
// that new plans are not remembered until they can be freed.
#ifndef DPK_CORE_RUNTIME_LAUNCHPLAN_H
#define DPK_CORE_RUNTIME_LAUNCHPLAN_H

#include "runtime/Launch.h"

#include <array>
#include <atomic>
#include <mutex>
#include <vector>

namespace dpk::runtime {

/// The native kernels a launch runs: `whole` for one launch of the range, or the builds its
/// pieces need (compiler::RangeGuardKind: `offsets` for the bulk, `guarded` for the rest).
/// Builds live as long as their program, which the kernel keeps alive, so these stay valid.
struct PreparedKernels {
  dpk_pl_kernel_t whole = nullptr;
  dpk_pl_kernel_t offsets = nullptr;
  dpk_pl_kernel_t guarded = nullptr;
};

/// What a launch that passed every check and reached the device leaves for the next one.
struct LaunchPlan {
  dpk_launch_config_t launch{}; ///< the configuration after lane remapping (fallback runs it)
  DeviceRange range;            ///< the range as the device runs it
  PreparedKernels kernels;
};

/// A kernel's remembered plans (see the file comment). Thread-safe.
class LaunchPlanCache {
public:
  /// A plan found for a launch, valid while this object lives (it counts as a reader).
  class Found {
  public:
    Found(Found &&other) noexcept : cache_(other.cache_), plan_(other.plan_) {
      other.cache_ = nullptr;
    }
    Found(const Found &) = delete;
    Found &operator=(const Found &) = delete;
    Found &operator=(Found &&) = delete;
    ~Found() {
      if (cache_)
        cache_->readers_.fetch_sub(1);
    }
    explicit operator bool() const { return plan_ != nullptr; }
    const LaunchPlan &operator*() const { return *plan_; }

  private:
    friend class LaunchPlanCache;
    Found(const LaunchPlanCache *cache, const LaunchPlan *plan) : cache_(cache), plan_(plan) {}
    const LaunchPlanCache *cache_; ///< non-null while counted as a reader
    const LaunchPlan *plan_;
  };

  LaunchPlanCache() = default;
  LaunchPlanCache(const LaunchPlanCache &) = delete;
  LaunchPlanCache &operator=(const LaunchPlanCache &) = delete;
  ~LaunchPlanCache();

  /// The plan of a launch of this key, if one is remembered.
  Found find(const Device &device, bool inOrder, const dpk_launch_config_t &config,
             const MarshalledArgs &args, uint32_t unitStrideViews) const;
  /// Remembers `plan` for this key, replacing the plan of the same key or else the oldest.
  void remember(const Device &device, bool inOrder, const dpk_launch_config_t &config,
                const MarshalledArgs &args, uint32_t unitStrideViews, const LaunchPlan &plan);

private:
  /// One marshalled argument's part of the key: its kind and size (a scalar's or local
  /// memory's bytes; a pointer's is always sizeof(void *)). Values are not part of it.
  struct ArgShape {
    dpk_arg_kind_t kind;
    size_t size;
  };
  /// A key and its plan; immutable once published in a slot.
  struct Entry {
    const Device *device = nullptr; ///< devices live as long as the process
    bool inOrder = true;
    uint32_t unitStrideViews = 0;
    dpk_launch_config_t config{};
    std::vector<ArgShape> args;
    LaunchPlan plan;
  };
  /// Enough for a kernel launched in a few shapes (sizes of a sweep, a remainder launch).
  static constexpr size_t Slots = 4;
  /// Replaced plans kept while readers are counted (see the file comment).
  static constexpr size_t MaxRetired = 64;

  static bool matches(const Entry &entry, const Device &device, bool inOrder,
                      const dpk_launch_config_t &config, const MarshalledArgs &args,
                      uint32_t unitStrideViews);

  std::array<std::atomic<const Entry *>, Slots> slots_{};
  mutable std::atomic<uint32_t> readers_{0};
  std::mutex mutex_; ///< remember(): one writer at a time; guards retired_ and next_
  std::vector<const Entry *> retired_;
  size_t next_ = 0; ///< the slot the next new plan takes (round robin)
};

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_LAUNCHPLAN_H

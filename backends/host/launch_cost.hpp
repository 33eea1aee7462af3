// launch_cost.hpp - how finely a host launch is split over the arena, from what the kernel's
// earlier launches cost.
//
// A work-item's cost is unknown before a kernel runs, so a first launch lets oneTBB's
// partitioner spread its work-groups over every thread. That is right for big launches and
// wrong for small ones: waking sixteen threads for a few microseconds of work costs more than
// the work (pairwise distance, n = 64, 4096 work-items: 13.7 us against 5.9 for oneTBB's own
// loop over four row blocks). So every launch measures the work its groups took, per
// work-item, and the next launch of the kernel is cut into about one task per
// `taskWorkNanos()` of expected work: one task runs on the calling thread without entering
// the arena; up to half the threads' worth the tasks are that many; from there on oneTBB
// decides.
//
// Work measured over several threads reads higher than the same work on one (each thread
// starts with cold caches), so the estimate would depend on how the last launch was split: on
// the 16-core Xeon, pairwise distance n = 64 settled at one task (0.90x of oneTBB) or at two
// (0.58x) in runs of the same setting. A kernel whose estimate is below one task per thread is
// therefore run once on one thread (a probe), and what that launch measured decides while it
// says one task is enough; later one-task launches refresh it (a lower reading at once, a higher
// one half way, so one slow reading does not move a kernel off one thread but a kernel that
// got much costlier is split again from its next launch on).
// Only the schedule changes: work-groups are independent, so any split gives the same results.
#ifndef DPK_BACKENDS_HOST_LAUNCH_COST_HPP
#define DPK_BACKENDS_HOST_LAUNCH_COST_HPP

#include <atomic>
#include <cstdint>

namespace dpk::host {

/// What a kernel's launches cost so far (shared by the program entry, its kernels and their
/// commands in flight).
struct LaunchCost {
  std::atomic<uint64_t> picosPerItem{0}; // work per work-item of the last launch; 0: none yet
  std::atomic<uint64_t> picosAlone{0};   // the same, of the last launch run as one task; 0: none
};

/// The expected work a task should have, in nanoseconds: DPK_HOST_TASK_WORK_NS when set (0
/// turns the model off: every launch is split as a first one), else kDefaultTaskWorkNanos.
uint64_t taskWorkNanos();

/// How many tasks a launch of `items` work-items should have: 0 when nothing is known or the
/// work would keep half the threads or more busy (oneTBB's partitioner decides), else 1 (the
/// submitting thread runs it) up to half the threads.
uint64_t plannedTasks(const LaunchCost &cost, uint64_t items, uint64_t threads);

/// Records a launch of `items` work-items whose groups took `workNanos` summed over threads;
/// `alone`: it ran as one task on the submitting thread.
void recordLaunch(LaunchCost &cost, uint64_t items, uint64_t workNanos, bool alone);

} // namespace dpk::host

#endif

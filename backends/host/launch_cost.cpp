// launch_cost.cpp - the host launch cost model (launch_cost.hpp).
#include "launch_cost.hpp"

#include <cstdlib>

namespace dpk::host {
namespace {

// Expected work per task. A task handed to another thread costs that thread's wake-up and a
// steal, a few microseconds on the 16-core Xeon of the GPU machine (a one-group launch there
// takes 3.4 us, two groups 6.7 us). Swept there against oneTBB's loops (docs/benchmarks.md,
// "Host launch cost model"): 2, 5 and 10 us; 5 and 10 gave pairwise n = 64 0.58-0.66x of
// oneTBB (0.40-0.42x without the model), 2 us 0.46-0.55x.
constexpr uint64_t kDefaultTaskWorkNanos = 5000;
constexpr long double kAloneBelowTasks = 2.0L;

uint64_t readTaskWorkNanos() {
  const char *text = std::getenv("DPK_HOST_TASK_WORK_NS");
  if (!text || !*text)
    return kDefaultTaskWorkNanos;
  char *end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  return end && *end == '\0' ? value : kDefaultTaskWorkNanos;
}

} // namespace

uint64_t taskWorkNanos() {
  static const uint64_t nanos = readTaskWorkNanos();
  return nanos;
}

uint64_t plannedTasks(const LaunchCost &cost, uint64_t items, uint64_t threads) {
  const uint64_t perTask = taskWorkNanos();
  const uint64_t picos = cost.picosPerItem.load(std::memory_order_relaxed);
  if (perTask == 0 || picos == 0 || items == 0)
    return 0;
  // Work in nanoseconds, without overflow for any launch that fits 64 bits of work-items.
  auto tasksFor = [&](uint64_t picosPerItem) {
    return static_cast<long double>(items) * picosPerItem / 1000.0L / perTask;
  };
  const uint64_t alone = cost.picosAlone.load(std::memory_order_relaxed);
  // Measured alone, work up to two tasks' worth stays on one thread: splitting it in two saves
  // at most one task's time and costs a wake-up of about that much (pairwise n = 64 on the
  // 16-core Xeon: 6.5 us alone, 9-11 us over two or more threads).
  if (alone != 0 && tasksFor(alone) < kAloneBelowTasks)
    return 1;
  const long double tasks = tasksFor(picos);
  // The probe: an estimate from a split launch below one task per thread may be mostly the
  // split's own cost (pairwise n = 64: 4096 items read as 3-5 tasks over threads, 1.2 alone).
  if (tasks < 1.5L || (alone == 0 && tasks < static_cast<long double>(threads)))
    return 1;
  // Work for half the threads or more gets all of them: the same sweep had nbody n = 256
  // (about 60 us of work, 12 tasks of 16 threads) at 0.54-0.59x of oneTBB with its tasks
  // limited and 0.70x without.
  if (2.0L * tasks >= static_cast<long double>(threads))
    return 0;
  return static_cast<uint64_t>(tasks + 0.5L);
}

void recordLaunch(LaunchCost &cost, uint64_t items, uint64_t workNanos, bool alone) {
  if (items == 0)
    return;
  // At least 1 ps: zero means "not measured".
  uint64_t picos = static_cast<uint64_t>(static_cast<long double>(workNanos) * 1000.0L / items);
  picos = picos ? picos : 1;
  cost.picosPerItem.store(picos, std::memory_order_relaxed);
  if (!alone)
    return;
  // A lower reading is taken as it is; a higher one moves the figure half way. A one-thread
  // launch that a preemption or cold caches slowed down would otherwise send the kernel to the
  // split path, which never measures alone again; a kernel that really got costlier (by more
  // than a factor of about four near the boundary) is split from its next launch on.
  const uint64_t before = cost.picosAlone.load(std::memory_order_relaxed);
  cost.picosAlone.store(before == 0 || picos <= before ? picos : before + (picos - before) / 2,
                        std::memory_order_relaxed);
}

} // namespace dpk::host

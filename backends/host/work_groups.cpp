// work_groups.cpp - the CPU execution model: one call of a work-group function per work-group,
// work-groups spread over the task arena with tbb::parallel_for.
#include "work_groups.hpp"

#include "device.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace dpk::host {
namespace {

constexpr size_t kSlotAlign = 16;
static_assert(sizeof(ArgumentPack::Slot) == kSlotAlign, "an argument slot is kSlotAlign bytes");
constexpr size_t kLocalAlign = 64;
// Work-items per group along the last dimension in a Range launch: enough for the compiled
// work-item loop to run long vectorized stretches, small enough to spread over the cores.
constexpr uint64_t kRangeRowLength = 1024;
// A Range launch is cut into at least this many work-groups per thread of the arena where its
// size allows. The cost of a work-item is unknown: a Range(4 * cores) of serial walkers (the
// CPU-shaped sort, scan and bincount passes) must not run as one group on one core, which is
// what a fixed row length did (the 16-core sort ran its 64 walkers on one core).
constexpr uint64_t kRangeGroupsPerThread = 4;
// ... but no shorter than this: the work-item loop is vectorized across work-items, so a group
// of one vector's worth (16 float32 lanes of AVX-512) costs about what a group of 1 does for a
// vectorizable kernel (measured: a Range(8) of long dependent float64 chains takes 11 ms as one
// group on one core, 44 ms as 8 groups on 2), and a launch of one group runs on the calling
// thread without the arena's dispatch (runLaunch). A launch that wants one work-item per task
// (a serial walker) says so with NdRange(n, 1).
constexpr uint64_t kRangeMinRowLength = 16;

size_t alignUp(size_t value, size_t align) { return (value + align - 1) / align * align; }

// One rectangular block of work-groups: `shape` gives sizes, groups start at groupOrigin.
struct GroupBlock {
  GroupShape shape;
  uint64_t groupOrigin[3] = {0, 0, 0};
  uint64_t groupCount[3] = {1, 1, 1};

  uint64_t totalGroups() const { return groupCount[0] * groupCount[1] * groupCount[2]; }
};

struct LocalMemory {
  void *base = nullptr;
  ~LocalMemory() { std::free(base); }
};

// A work-group function's argument array: a pointer to each argument's value; a DPK_ARG_LOCAL
// argument's value is a pointer to its slice of the chunk's local memory.
struct BoundArguments {
  InlineArray<void *, ArgumentPack::kInlineArguments> pointers;
  InlineArray<void *, ArgumentPack::kInlineArguments> localPointers;
  LocalMemory local;
};

// Points at every argument's value. Without local memory the array is read only, and one per
// launch serves every chunk.
void bindValues(const ArgumentPack &args, BoundArguments &bound) {
  const size_t count = args.offsets.size();
  bound.pointers.resize(count);
  for (size_t i = 0; i < count; ++i)
    bound.pointers[i] = args.value(i);
}

// Gives each DPK_ARG_LOCAL argument its own slice of one allocation (a chunk's work-groups run
// one after another and share it) and points the other arguments at their values.
void bindWithLocalMemory(const ArgumentPack &args, BoundArguments &bound) {
  bindValues(args, bound);
  size_t total = 0;
  for (size_t bytes : args.localSizes)
    total += alignUp(bytes, kLocalAlign);
  if (total)
    bound.local.base = std::aligned_alloc(kLocalAlign, total);
  if (total && !bound.local.base)
    throw std::bad_alloc();

  const size_t count = args.offsets.size();
  bound.localPointers.resize(count);
  size_t cursor = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!args.localSizes[i])
      continue;
    bound.localPointers[i] = static_cast<char *>(bound.local.base) + cursor;
    cursor += alignUp(args.localSizes[i], kLocalAlign);
    bound.pointers[i] = &bound.localPointers[i];
  }
}

// What runGroups needs besides the groups: the kernel, its arguments, and their array when one
// serves every chunk (null: each chunk binds its own local memory).
struct LaunchBody {
  const dpk_host_kernel_entry_t &entry;
  const ArgumentPack &args;
  void *const *sharedPointers;
};

void runItems(const dpk_host_kernel_entry_t &entry, const dpk_host_work_group_t &group,
              void *const *args) {
  auto fn = reinterpret_cast<dpk_host_item_fn>(entry.fn);
  dpk_host_item_t item;
  std::memset(&item, 0, sizeof item);
  item.dims = group.dims;
  for (int d = 0; d < 3; ++d) {
    item.group_id[d] = group.group_id[d];
    item.global_size[d] = group.global_size[d];
    item.local_size[d] = group.local_size[d];
  }
  for (uint64_t i = 0; i < group.local_size[0]; ++i)
    for (uint64_t j = 0; j < group.local_size[1]; ++j)
      for (uint64_t k = 0; k < group.local_size[2]; ++k) {
        uint64_t local[3] = {i, j, k};
        for (int d = 0; d < 3; ++d) {
          item.local_id[d] = local[d];
          item.global_id[d] = group.group_id[d] * group.local_size[d] + local[d];
        }
        fn(&item, args);
      }
}

// Runs groups [begin, end) of `block` (row-major linear numbers) on the calling thread.
void runGroups(const LaunchBody &body, const GroupBlock &block, uint64_t begin, uint64_t end) {
  const dpk_host_kernel_entry_t &entry = body.entry;
  void *const *pointers = body.sharedPointers;
  BoundArguments bound;
  if (!pointers) {
    bindWithLocalMemory(body.args, bound);
    pointers = bound.pointers.data();
  }

  dpk_host_work_group_t group;
  std::memset(&group, 0, sizeof group);
  group.dims = block.shape.dims;
  for (int d = 0; d < 3; ++d) {
    group.global_size[d] = block.shape.global[d];
    group.local_size[d] = block.shape.local[d];
    group.num_groups[d] = block.shape.global[d] / block.shape.local[d];
  }
  // Row-major: dimension 0 varies slowest, as in the index space every backend shares. The
  // ids of the chunk's first group are divided out once; after that they advance like an
  // odometer. (Three 64-bit divisions per group cost about 7% of pairwise distance, n = 4096,
  // whose 16 K groups each take well under a microsecond.)
  uint64_t offset[3];
  uint64_t rest = begin;
  for (int d = 2; d >= 0; --d) {
    offset[d] = rest % block.groupCount[d];
    rest /= block.groupCount[d];
  }
  for (uint64_t linear = begin; linear != end; ++linear) {
    for (int d = 0; d < 3; ++d)
      group.group_id[d] = block.groupOrigin[d] + offset[d];
    if (entry.kind == DPK_HOST_KERNEL_ITEM)
      runItems(entry, group, pointers);
    else
      reinterpret_cast<dpk_host_group_fn>(entry.fn)(&group, pointers);
    for (int d = 2; d >= 0; --d) { // next group: the last dimension turns fastest
      if (++offset[d] < block.groupCount[d])
        break;
      offset[d] = 0;
    }
  }
}

uint64_t nanosSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

// Runs groups [begin, end) of `block` and adds the time they took to `workNanos`.
void runGroupsTimed(const LaunchBody &body, const GroupBlock &block, uint64_t begin, uint64_t end,
                    std::atomic<uint64_t> &workNanos) {
  const auto start = std::chrono::steady_clock::now();
  runGroups(body, block, begin, end);
  workNanos.fetch_add(nanosSince(start), std::memory_order_relaxed);
}

// Spreads the block's groups over the arena: in about `tasks` equal chunks (the cost model's
// plan), or as oneTBB's partitioner sees fit (tasks == 0).
void runBlock(const LaunchBody &launch, const GroupBlock &block, uint64_t tasks,
              std::atomic<uint64_t> &workNanos) {
  const uint64_t count = block.totalGroups();
  if (count == 0)
    return;
  auto body = [&](const tbb::blocked_range<uint64_t> &range) {
    runGroupsTimed(launch, block, range.begin(), range.end(), workNanos);
  };
  if (tasks == 0 || tasks >= count) {
    tbb::parallel_for(tbb::blocked_range<uint64_t>(0, count), body);
    return;
  }
  const uint64_t grain = (count + tasks - 1) / tasks;
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, count, grain), body, tbb::simple_partitioner());
}

// The last-dimension group size of a Range launch: kRangeRowLength, shortened where the rows
// above it are too few to give every thread kRangeGroupsPerThread groups.
uint64_t rangeRowLength(const GroupShape &shape, uint32_t last) {
  uint64_t rows = 1;
  for (uint32_t d = 0; d < last; ++d)
    rows *= shape.global[d];
  const uint64_t threads = static_cast<uint64_t>(std::max(hostDevice()->arena.max_concurrency(), 1));
  const uint64_t wanted = kRangeGroupsPerThread * threads;
  uint64_t length = std::min<uint64_t>(shape.global[last], kRangeRowLength);
  if (rows < wanted) {
    const uint64_t groupsPerRow = (wanted + rows - 1) / rows;
    const uint64_t shortest = std::min<uint64_t>(shape.global[last], kRangeMinRowLength);
    length = std::min(length, std::max<uint64_t>(shape.global[last] / groupsPerRow, shortest));
  }
  return length;
}

} // namespace

void ArgumentPack::assign(uint32_t numArgs, const dpk_kernel_arg_t *args) {
  offsets.resize(numArgs);
  uint32_t *offset = offsets.data();
  uint32_t count = 0;
  bool anyLocal = false;
  for (uint32_t i = 0; i < numArgs; ++i) {
    offset[i] = count;
    const dpk_arg_kind_t kind = args[i].kind;
    const size_t bytes = kind == DPK_ARG_POINTER ? sizeof(void *) : kind == DPK_ARG_SCALAR ? args[i].size : 0;
    count += static_cast<uint32_t>((bytes + kSlotAlign - 1) / kSlotAlign);
    anyLocal = anyLocal || kind == DPK_ARG_LOCAL;
  }
  slots.resize(0);
  slots.resize(count + 1); // one more: never empty; every padding byte is zero
  Slot *slot = slots.data();
  localSizes.resize(0);
  if (anyLocal)
    localSizes.resize(numArgs);
  for (uint32_t i = 0; i < numArgs; ++i) {
    switch (args[i].kind) {
    case DPK_ARG_POINTER:
      std::memcpy(slot[offset[i]].bytes, args[i].value, sizeof(void *)); // a constant size: no call
      break;
    case DPK_ARG_SCALAR:
      std::memcpy(slot[offset[i]].bytes, args[i].value, args[i].size);
      break;
    case DPK_ARG_LOCAL:
      localSizes[i] = args[i].size;
      break;
    }
  }
}

dpk_status_t chooseGroupShape(const dpk_launch_config_t &config, const dpk_host_kernel_entry_t &entry,
                              GroupShape &out, std::string &error) {
  GroupShape shape;
  shape.dims = config.dims;
  // As the core reads it (LaunchRange.h): no local size set in the dimensions the launch uses.
  bool isRange = true;
  for (uint32_t d = 0; d < config.dims; ++d)
    isRange = isRange && config.local_size[d] == 0;
  const uint64_t *required = entry.required_local_size;
  const bool specialized = required[0] || required[1] || required[2];
  for (uint32_t d = 0; d < 3; ++d) {
    bool used = d < config.dims;
    shape.global[d] = used ? config.global_size[d] : 1;
    shape.local[d] = !used ? 1 : isRange ? 0 : config.local_size[d];
  }
  if (specialized) {
    for (uint32_t d = 0; d < config.dims; ++d) {
      uint64_t want = required[d] ? required[d] : 1;
      if (!isRange && shape.local[d] != want) {
        error = "kernel '" + std::string(entry.name) + "' was compiled for local size " + std::to_string(want) +
                " in dimension " + std::to_string(d) + " but launched with " + std::to_string(shape.local[d]);
        return DPK_ERROR_INVALID_RANGE;
      }
      shape.local[d] = want;
    }
  } else if (isRange) {
    for (uint32_t d = 0; d < config.dims; ++d)
      shape.local[d] = 1;
    uint32_t last = config.dims - 1;
    shape.local[last] = rangeRowLength(shape, last);
    out = shape;
    return DPK_SUCCESS; // a Range may leave a remainder: runLaunch covers it
  }
  // The core checks that an NdRange's local sizes divide; a kernel compiled for a local size
  // launched as a Range gets that size, which may not.
  uint64_t product = 1;
  for (uint32_t d = 0; d < 3; ++d) {
    if (shape.global[d] % shape.local[d] != 0) {
      error = "local size " + std::to_string(shape.local[d]) + " does not divide global size " +
              std::to_string(shape.global[d]) + " in dimension " + std::to_string(d);
      return DPK_ERROR_INVALID_RANGE;
    }
    product *= shape.local[d];
  }
  if (product > kMaxWorkGroupSize) {
    error = "work-group of " + std::to_string(product) + " work-items exceeds the host maximum of " +
            std::to_string(kMaxWorkGroupSize);
    return DPK_ERROR_INVALID_RANGE;
  }
  out = shape;
  return DPK_SUCCESS;
}

void runLaunch(const dpk_host_kernel_entry_t &entry, const GroupShape &shape, const ArgumentPack &args,
               LaunchCost *cost) {
  const uint32_t last = shape.dims - 1;
  GroupBlock main;
  main.shape = shape;
  for (int d = 0; d < 3; ++d)
    main.groupCount[d] = shape.global[d] / shape.local[d];
  const uint64_t remainder = shape.global[last] % shape.local[last];
  // A Range whose last dimension is not a multiple of the row length: the leftover columns
  // run as single-item groups, whose group ids are then their global ids.
  GroupBlock tail;
  tail.shape = shape;
  for (int d = 0; d < 3; ++d) {
    tail.shape.local[d] = 1;
    tail.groupCount[d] = shape.global[d];
  }
  tail.groupOrigin[last] = shape.global[last] - remainder;
  tail.groupCount[last] = remainder;

  const uint64_t items = shape.global[0] * shape.global[1] * shape.global[2];
  const uint64_t threads = static_cast<uint64_t>(std::max(hostDevice()->arena.max_concurrency(), 1));
  const uint64_t tasks = cost ? plannedTasks(*cost, items, threads) : 0;
  std::atomic<uint64_t> workNanos{0};
  BoundArguments shared;
  if (args.localSizes.empty())
    bindValues(args, shared);
  const LaunchBody body{entry, args, args.localSizes.empty() ? shared.pointers.data() : nullptr};
  // One group, or work the cost model gives one task: nothing to spread, so it runs here
  // without entering the arena (a launch + wait of an empty kernel spends most of its time
  // there otherwise).
  const bool alone = tasks == 1 || (!remainder && main.totalGroups() == 1);
  if (alone) {
    runGroupsTimed(body, main, 0, main.totalGroups(), workNanos);
    if (remainder)
      runGroupsTimed(body, tail, 0, tail.totalGroups(), workNanos);
  } else {
    hostDevice()->arena.execute([&] {
      runBlock(body, main, tasks, workNanos);
      if (remainder)
        runBlock(body, tail, tasks, workNanos);
    });
  }
  if (cost)
    recordLaunch(*cost, items, workNanos.load(std::memory_order_relaxed), alone);
}

} // namespace dpk::host

// HostBackendTest.cpp - the host plugin through its dispatch table: what only the host does
// (device properties from hwloc, huge-page allocations, launches of item and work-group
// functions: NdRange, Range with remainder, local memory with a barrier-style two-phase kernel;
// dependencies across queues; its own launch limits; failures of launches without events and
// of launches after a failed one, named as before; a queued launch of more arguments than it
// keeps in place). The contract every plugin shares (argument
// checks, allocations, copies, fills, events) is tests/plugin_abi's.
#include "dpk/plugin.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <new>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

class HostBackend : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // Tasks of 1 ms of expected work (launch_cost.hpp), unless the run sets its own: every
    // repeated launch here is far below that, also under sanitizers.
    setenv("DPK_HOST_TASK_WORK_NS", "1000000", 0);
    handle = dlopen(DPK_HOST_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    auto entry = reinterpret_cast<dpk_plugin_get_dispatch_fn>(dlsym(handle, DPK_PLUGIN_ENTRY_SYMBOL));
    ASSERT_NE(entry, nullptr);
    table.struct_size = sizeof table;
    ASSERT_EQ(entry(DPK_PLUGIN_ABI_VERSION, &table), DPK_SUCCESS);
    ASSERT_EQ(table.init(nullptr), DPK_SUCCESS);
  }
  void SetUp() override {
    uint32_t count = 1;
    ASSERT_EQ(table.get_devices(&count, &device), DPK_SUCCESS);
    ASSERT_EQ(count, 1u);
    ASSERT_EQ(table.context_create(&context, device), DPK_SUCCESS);
    ASSERT_EQ(table.queue_create(&queue, context, DPK_PL_QUEUE_IN_ORDER), DPK_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(table.queue_release(queue), DPK_SUCCESS);
    EXPECT_EQ(table.context_release(context), DPK_SUCCESS);
  }

  dpk_pl_kernel_t makeKernel(const dpk_host_kernel_entry_t &entry) {
    dpk_host_module_t module{sizeof(dpk_host_module_t), 1, &entry};
    dpk_pl_program_t program = nullptr;
    EXPECT_EQ(table.program_create(&program, context, DPK_FORMAT_HOST_NATIVE, &module, sizeof module, nullptr),
              DPK_SUCCESS);
    dpk_pl_kernel_t kernel = nullptr;
    EXPECT_EQ(table.kernel_create(&kernel, program, entry.name), DPK_SUCCESS);
    // The kernel keeps the program alive.
    EXPECT_EQ(table.program_release(program), DPK_SUCCESS);
    return kernel;
  }

  static void *handle;
  static dpk_plugin_dispatch_t table;
  dpk_pl_device_t device = nullptr;
  dpk_pl_context_t context = nullptr;
  dpk_pl_queue_t queue = nullptr;
};
void *HostBackend::handle = nullptr;
dpk_plugin_dispatch_t HostBackend::table{};

// out[gid] = gid * 2 over a 2-D range, written as a per-item function.
void doubleIds(const dpk_host_item_t *item, void *const *args) {
  float *out = *static_cast<float *const *>(args[0]);
  uint64_t linear = item->global_id[0] * item->global_size[1] + item->global_id[1];
  out[linear] = static_cast<float>(linear) * 2.0f;
}

// Work-group sum: phase 1 copies the group's inputs into local memory, phase 2 (after the
// implicit "barrier" between the loops) has item 0 sum them. sums[group] = sum of inputs.
void groupSum(const dpk_host_work_group_t *group, void *const *args) {
  const int *in = *static_cast<int *const *>(args[0]);
  int *sums = *static_cast<int *const *>(args[1]);
  int *scratch = *static_cast<int *const *>(args[2]);
  uint64_t n = group->local_size[0];
  for (uint64_t l = 0; l < n; ++l)
    scratch[l] = in[group->group_id[0] * n + l];
  int total = 0;
  for (uint64_t l = 0; l < n; ++l)
    total += scratch[l];
  sums[group->group_id[0]] = total;
}

// Counts calls of every work-item in a Range launch.
void countItems(const dpk_host_work_group_t *group, void *const *args) {
  auto *hits = *static_cast<std::atomic<int> *const *>(args[0]);
  for (uint64_t l = 0; l < group->local_size[0]; ++l)
    hits[group->group_id[0] * group->local_size[0] + l].fetch_add(1);
}

// Counts calls of every work-item, and groups run on a thread other than `*submitter`; each
// group takes 20 us (long enough for oneTBB to hand groups to other threads when it may).
void countItemsAndThreads(const dpk_host_work_group_t *group, void *const *args) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
  while (std::chrono::steady_clock::now() < until) {
  }
  auto *hits = *static_cast<std::atomic<int> *const *>(args[0]);
  auto *foreign = *static_cast<std::atomic<int> *const *>(args[1]);
  auto *submitter = *static_cast<std::thread::id *const *>(args[2]);
  for (uint64_t l = 0; l < group->local_size[0]; ++l)
    hits[group->group_id[0] * group->local_size[0] + l].fetch_add(1);
  if (std::this_thread::get_id() != *submitter)
    foreign->fetch_add(1);
}

// Fails every work-group (the queue reports it, naming the launch).
void throwsBoom(const dpk_host_work_group_t *, void *const *) { throw std::runtime_error("boom"); }
void throwsBadAlloc(const dpk_host_work_group_t *, void *const *) { throw std::bad_alloc(); }

// Spins until *args[1] is set, after setting *args[0]: holds its queue busy while a test
// submits elsewhere.
void waitForRelease(const dpk_host_work_group_t *, void *const *args) {
  auto *started = *static_cast<std::atomic<bool> *const *>(args[0]);
  auto *release = *static_cast<std::atomic<bool> *const *>(args[1]);
  started->store(true);
  while (!release->load())
    std::this_thread::yield();
}

// out[0] = the sum of the 16 int64 scalars args[1..16], copied through local memory args[17];
// out[1] = the int32 scalar args[18].
void sumManyScalars(const dpk_host_work_group_t *, void *const *args) {
  auto *out = *static_cast<int64_t *const *>(args[0]);
  auto *scratch = *static_cast<int64_t *const *>(args[17]);
  for (int i = 0; i < 16; ++i)
    scratch[i] = *static_cast<const int64_t *>(args[1 + i]);
  int64_t total = 0;
  for (int i = 0; i < 16; ++i)
    total += scratch[i];
  out[0] = total;
  out[1] = *static_cast<const int32_t *>(args[18]);
}

TEST_F(HostBackend, DevicePropertiesDescribeTheMachine) {
  dpk_device_props_t props{};
  props.struct_size = sizeof props;
  ASSERT_EQ(table.device_get_props(&props, device), DPK_SUCCESS);
  EXPECT_EQ(props.type, DPK_DEVICE_TYPE_CPU);
  EXPECT_GE(props.compute_units, 1u);
  EXPECT_GT(props.global_mem_size, 0u);
  EXPECT_EQ(props.formats, static_cast<uint32_t>(DPK_FORMAT_HOST_NATIVE));
  EXPECT_GE(props.numa_nodes, 1u);
  EXPECT_NE(std::string(props.extra).find("cores="), std::string::npos);
  EXPECT_STREQ(table.backend, "host");
}

// Every allocation starts on a cache line (a full AVX-512 vector), large ones on 2 MiB so that
// the huge-page advice covers whole huge pages (memory.cpp); they must stay usable, end included.
TEST_F(HostBackend, AllocationsAreCacheLineOrHugePageAligned) {
  for (dpk_mem_kind_t kind : {DPK_MEM_DEVICE, DPK_MEM_SHARED, DPK_MEM_HOST}) {
    void *small = nullptr;
    ASSERT_EQ(table.mem_alloc(&small, context, kind, 12, 0), DPK_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u) << "kind " << kind;
    EXPECT_EQ(table.mem_free(context, small), DPK_SUCCESS);
  }
  const size_t bytes = (size_t(16) << 20) + 12; // not a multiple of the page size
  void *ptr = nullptr;
  ASSERT_EQ(table.mem_alloc(&ptr, context, DPK_MEM_DEVICE, bytes, 0), DPK_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % (size_t(2) << 20), 0u);
  uint8_t pattern = 0x5A;
  ASSERT_EQ(table.enqueue_fill(nullptr, queue, ptr, &pattern, 1, bytes, 0, nullptr), DPK_SUCCESS);
  ASSERT_EQ(table.queue_finish(queue), DPK_SUCCESS);
  EXPECT_EQ(static_cast<uint8_t *>(ptr)[0], pattern);
  EXPECT_EQ(static_cast<uint8_t *>(ptr)[bytes - 1], pattern);
  EXPECT_EQ(table.mem_free(context, ptr), DPK_SUCCESS);
}

TEST_F(HostBackend, ItemKernelOverTwoDimensionalNdRange) {
  dpk_host_kernel_entry_t entry{"double_ids", DPK_HOST_KERNEL_ITEM, reinterpret_cast<void (*)(void)>(doubleIds), {0, 0, 0}};
  dpk_pl_kernel_t kernel = makeKernel(entry);
  std::vector<float> out(64 * 48, -1.0f);
  void *ptr = out.data();
  dpk_kernel_arg_t arg{DPK_ARG_POINTER, sizeof(void *), &ptr};
  dpk_launch_config_t config{2, {64, 48, 1}, {8, 16, 1}};
  dpk_pl_event_t event = nullptr;
  ASSERT_EQ(table.enqueue_launch(&event, queue, kernel, &config, 1, &arg, 0, nullptr), DPK_SUCCESS);
  ASSERT_EQ(table.event_wait(1, &event), DPK_SUCCESS);
  dpk_event_status_t status;
  ASSERT_EQ(table.event_status(&status, event), DPK_SUCCESS);
  EXPECT_EQ(status, DPK_EVENT_COMPLETE);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], 2.0f * i) << i;
  table.event_release(event);
  table.kernel_release(kernel);
}

TEST_F(HostBackend, GroupKernelWithLocalMemory) {
  dpk_host_kernel_entry_t entry{"group_sum", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(groupSum), {0, 0, 0}};
  dpk_pl_kernel_t kernel = makeKernel(entry);
  const uint64_t groups = 37, local = 128;
  std::vector<int> in(groups * local);
  std::iota(in.begin(), in.end(), 1);
  std::vector<int> sums(groups, 0);
  void *inPtr = in.data(), *sumPtr = sums.data();
  dpk_kernel_arg_t args[3] = {{DPK_ARG_POINTER, 8, &inPtr}, {DPK_ARG_POINTER, 8, &sumPtr}, {DPK_ARG_LOCAL, local * 4, nullptr}};
  dpk_launch_config_t config{1, {groups * local, 1, 1}, {local, 1, 1}};
  ASSERT_EQ(table.enqueue_launch(nullptr, queue, kernel, &config, 3, args, 0, nullptr), DPK_SUCCESS);
  ASSERT_EQ(table.queue_finish(queue), DPK_SUCCESS);
  for (uint64_t g = 0; g < groups; ++g) {
    long expected = 0;
    for (uint64_t l = 0; l < local; ++l)
      expected += static_cast<long>(g * local + l + 1);
    ASSERT_EQ(sums[g], expected) << "group " << g;
  }
  table.kernel_release(kernel);
}

TEST_F(HostBackend, RangeLaunchWithRemainderRunsEveryItemOnce) {
  dpk_host_kernel_entry_t entry{"count", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(countItems), {0, 0, 0}};
  dpk_pl_kernel_t kernel = makeKernel(entry);
  const uint64_t n = 5 * 1024 + 77; // not a multiple of the chosen row length
  std::vector<std::atomic<int>> hits(n);
  void *ptr = hits.data();
  dpk_kernel_arg_t arg{DPK_ARG_POINTER, 8, &ptr};
  dpk_launch_config_t config{1, {n, 0, 0}, {0, 0, 0}};
  ASSERT_EQ(table.enqueue_launch(nullptr, queue, kernel, &config, 1, &arg, 0, nullptr), DPK_SUCCESS);
  ASSERT_EQ(table.queue_finish(queue), DPK_SUCCESS);
  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(hits[i].load(), 1) << i;
  table.kernel_release(kernel);
}

// Records the shape of every work-group a Range launch runs: how many, and the largest.
struct GroupLog {
  std::atomic<uint64_t> groups{0};
  std::atomic<uint64_t> largest{0};
  std::thread::id submitter = std::this_thread::get_id();
  std::atomic<bool> onSubmitter{true}; // every group ran on the thread that made the log
};

void logGroup(const dpk_host_work_group_t *group, void *const *args) {
  auto *log = *static_cast<GroupLog *const *>(args[0]);
  log->groups.fetch_add(1);
  if (std::this_thread::get_id() != log->submitter)
    log->onSubmitter.store(false);
  uint64_t seen = log->largest.load();
  while (group->local_size[0] > seen && !log->largest.compare_exchange_weak(seen, group->local_size[0])) {
  }
}

// A Range's work-group size is the backend's choice: long rows where the range is large (the
// work-item loop vectorizes), but a short range of expensive items (serial walkers) must still
// reach every core instead of running as one group on one.
TEST_F(HostBackend, RangeLaunchesSpreadSmallRangesOverTheThreads) {
  dpk_device_props_t props{};
  props.struct_size = sizeof props;
  ASSERT_EQ(table.device_get_props(&props, device), DPK_SUCCESS);
  dpk_host_kernel_entry_t entry{"log", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(logGroup), {0, 0, 0}};
  dpk_pl_kernel_t kernel = makeKernel(entry);
  auto launch = [&](uint64_t n, GroupLog &log) {
    void *ptr = &log;
    dpk_kernel_arg_t arg{DPK_ARG_POINTER, 8, &ptr};
    dpk_launch_config_t config{1, {n, 0, 0}, {0, 0, 0}};
    ASSERT_EQ(table.enqueue_launch(nullptr, queue, kernel, &config, 1, &arg, 0, nullptr), DPK_SUCCESS);
    ASSERT_EQ(table.queue_finish(queue), DPK_SUCCESS);
  };
  GroupLog small;
  launch(64, small); // 64 items: groups of 16 at least (vector width), as many as the cores need
  EXPECT_GE(small.groups.load(), std::min<uint64_t>(props.compute_units, 4));
  EXPECT_GE(small.largest.load(), 16u);
  GroupLog tiny;
  launch(16, tiny); // one vector's worth: one group, run by the submitting thread
  EXPECT_EQ(tiny.groups.load(), 1u);
  EXPECT_EQ(tiny.largest.load(), 16u);
  EXPECT_TRUE(tiny.onSubmitter.load());
  GroupLog large;
  launch(uint64_t(1) << 22, large); // long rows where the range is large
  EXPECT_EQ(large.largest.load(), 1024u);
  EXPECT_EQ(large.groups.load(), (uint64_t(1) << 22) / 1024);
  table.kernel_release(kernel);
}

TEST_F(HostBackend, DependenciesAcrossQueuesOrderCommands) {
  dpk_pl_queue_t other = nullptr;
  ASSERT_EQ(table.queue_create(&other, context, DPK_PL_QUEUE_OUT_OF_ORDER), DPK_SUCCESS);
  const size_t n = 1 << 22;
  std::vector<uint8_t> a(n, 0), b(n, 0);
  uint8_t seven = 7;
  dpk_pl_event_t filled = nullptr, copied = nullptr;
  ASSERT_EQ(table.enqueue_fill(&filled, queue, a.data(), &seven, 1, n, 0, nullptr), DPK_SUCCESS);
  ASSERT_EQ(table.enqueue_copy(&copied, other, b.data(), a.data(), n, 1, &filled), DPK_SUCCESS);
  ASSERT_EQ(table.event_wait(1, &copied), DPK_SUCCESS);
  EXPECT_EQ(b[0], 7);
  EXPECT_EQ(b[n - 1], 7);
  table.event_release(filled);
  table.event_release(copied);
  table.queue_release(other);
}

// What only the host knows: its work-group limit, the local size a kernel was compiled for, and
// the kernels of a program. (Malformed ranges never reach a plugin: tests/plugin_abi.)
TEST_F(HostBackend, RejectsLaunchesBeyondItsLimitsWithReasons) {
  dpk_host_kernel_entry_t entry{"count", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(countItems), {0, 0, 0}};
  dpk_pl_kernel_t kernel = makeKernel(entry);
  void *ptr = nullptr;
  dpk_kernel_arg_t arg{DPK_ARG_POINTER, 8, &ptr};
  dpk_launch_config_t tooLarge{1, {1 << 20, 1, 1}, {1 << 16, 1, 1}};
  EXPECT_EQ(table.enqueue_launch(nullptr, queue, kernel, &tooLarge, 1, &arg, 0, nullptr), DPK_ERROR_INVALID_RANGE);
  std::string message = table.last_error(nullptr);
  EXPECT_NE(message.find("exceeds the host maximum"), std::string::npos) << message;
  // A kernel compiled for work-groups of 64 cannot run a Range of 100 items.
  dpk_host_kernel_entry_t fixed{"fixed", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(countItems), {64, 0, 0}};
  dpk_pl_kernel_t specialized = makeKernel(fixed);
  dpk_launch_config_t range{1, {100, 1, 1}, {0, 0, 0}};
  EXPECT_EQ(table.enqueue_launch(nullptr, queue, specialized, &range, 1, &arg, 0, nullptr), DPK_ERROR_INVALID_RANGE);
  message = table.last_error(nullptr);
  EXPECT_NE(message.find("does not divide global size 100 in dimension 0"), std::string::npos) << message;
  dpk_launch_config_t otherShape{1, {128, 1, 1}, {32, 1, 1}};
  EXPECT_EQ(table.enqueue_launch(nullptr, queue, specialized, &otherShape, 1, &arg, 0, nullptr), DPK_ERROR_INVALID_RANGE);
  message = table.last_error(nullptr);
  EXPECT_NE(message.find("was compiled for local size 64"), std::string::npos) << message;
  dpk_pl_kernel_t missing = nullptr;
  dpk_host_module_t module{sizeof(dpk_host_module_t), 1, &entry};
  dpk_pl_program_t program = nullptr;
  ASSERT_EQ(table.program_create(&program, context, DPK_FORMAT_HOST_NATIVE, &module, sizeof module, nullptr), DPK_SUCCESS);
  EXPECT_EQ(table.kernel_create(&missing, program, "nope"), DPK_ERROR_NOT_FOUND);
  table.program_release(program);
  table.kernel_release(specialized);
  table.kernel_release(kernel);
}

// The launch cost model (backends/host/launch_cost.hpp): once a kernel has run, a launch whose
// measured work is below one task's (1 ms here, SetUpTestSuite) runs on the submitting thread
// without entering the arena, and every work-item still runs exactly once, remainder included.
TEST_F(HostBackend, CheapLaunchesOfAKnownKernelRunOnTheSubmittingThread) {
  const char *setting = std::getenv("DPK_HOST_TASK_WORK_NS");
  if (setting && std::string(setting) == "0")
    GTEST_SKIP() << "DPK_HOST_TASK_WORK_NS=0 turns the cost model off";
  dpk_host_kernel_entry_t entry{"count_threads", DPK_HOST_KERNEL_GROUP,
                                reinterpret_cast<void (*)(void)>(countItemsAndThreads), {0, 0, 0}};
  dpk_pl_kernel_t kernel = makeKernel(entry);
  std::thread::id submitter = std::this_thread::get_id();
  const uint64_t sizes[] = {259, 259, 35}; // 16 groups of 16 and a remainder of 3; 2 and 3
  for (int launch = 0; launch < 3; ++launch) {
    const uint64_t items = sizes[launch];
    std::vector<std::atomic<int>> hits(items);
    std::atomic<int> foreign{0};
    void *pointers[3] = {hits.data(), &foreign, &submitter};
    dpk_kernel_arg_t args[3];
    for (int i = 0; i < 3; ++i)
      args[i] = dpk_kernel_arg_t{DPK_ARG_POINTER, sizeof(void *), &pointers[i]};
    dpk_launch_config_t range{1, {items, 1, 1}, {0, 0, 0}};
    ASSERT_EQ(table.enqueue_launch(nullptr, queue, kernel, &range, 3, args, 0, nullptr), DPK_SUCCESS);
    ASSERT_EQ(table.queue_finish(queue), DPK_SUCCESS);
    for (uint64_t i = 0; i < items; ++i)
      ASSERT_EQ(hits[i].load(), 1) << "item " << i << " of " << items;
    // The first launch measures the kernel (oneTBB may run its groups anywhere); later ones
    // expect well under 1 ms of work and stay on this thread.
    if (launch > 0)
      EXPECT_EQ(foreign.load(), 0) << "launch " << launch << " of " << items << " items";
  }
  table.kernel_release(kernel);
}

// A launch asked for no event: its failure still reaches the queue's finish, naming the launch
// as it always did (the plugin builds that text only when a launch fails).
TEST_F(HostBackend, FailuresOfLaunchesWithoutEventsSurfaceAtFinish) {
  dpk_host_kernel_entry_t entry{"throws", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(throwsBoom), {0, 0, 0}};
  dpk_pl_kernel_t kernel = makeKernel(entry);
  void *ptr = nullptr;
  dpk_kernel_arg_t arg{DPK_ARG_POINTER, sizeof(void *), &ptr};
  dpk_launch_config_t one{1, {1, 1, 1}, {1, 1, 1}};
  ASSERT_EQ(table.enqueue_launch(nullptr, queue, kernel, &one, 1, &arg, 0, nullptr), DPK_SUCCESS);
  EXPECT_EQ(table.queue_finish(queue), DPK_ERROR_DEVICE);
  EXPECT_EQ(std::string(table.last_error(nullptr)), "launch of 'throws': boom");
  // The failure is reported once; the queue runs on.
  EXPECT_EQ(table.queue_finish(queue), DPK_SUCCESS);

  // A launch that runs out of host memory says so, named the same way.
  dpk_host_kernel_entry_t oomEntry{"no_memory", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(throwsBadAlloc), {0, 0, 0}};
  dpk_pl_kernel_t sum = makeKernel(oomEntry);
  ASSERT_EQ(table.enqueue_launch(nullptr, queue, sum, &one, 1, &arg, 0, nullptr), DPK_SUCCESS);
  EXPECT_EQ(table.queue_finish(queue), DPK_ERROR_OUT_OF_HOST_MEMORY);
  EXPECT_EQ(std::string(table.last_error(nullptr)), "launch of 'no_memory': out of host memory");
  table.kernel_release(sum);
  table.kernel_release(kernel);
}

// A launch after a failed one (an event of another queue) does not run and fails with the
// dependency's cause; the failed launch's event says so too.
TEST_F(HostBackend, AFailedDependencyFailsTheLaunch) {
  dpk_host_kernel_entry_t failing{"throws", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(throwsBoom), {0, 0, 0}};
  dpk_host_kernel_entry_t counting{"count", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(countItems), {0, 0, 0}};
  dpk_pl_kernel_t thrower = makeKernel(failing);
  dpk_pl_kernel_t counter = makeKernel(counting);
  dpk_pl_queue_t other = nullptr;
  ASSERT_EQ(table.queue_create(&other, context, DPK_PL_QUEUE_IN_ORDER), DPK_SUCCESS);
  std::vector<std::atomic<int>> hits(4);
  void *ptr = hits.data();
  dpk_kernel_arg_t arg{DPK_ARG_POINTER, sizeof(void *), &ptr};
  dpk_launch_config_t config{1, {4, 1, 1}, {4, 1, 1}};
  dpk_pl_event_t failed = nullptr;
  ASSERT_EQ(table.enqueue_launch(&failed, queue, thrower, &config, 1, &arg, 0, nullptr), DPK_SUCCESS);
  ASSERT_EQ(table.enqueue_launch(nullptr, other, counter, &config, 1, &arg, 1, &failed), DPK_SUCCESS);
  EXPECT_EQ(table.queue_finish(other), DPK_ERROR_DEVICE);
  EXPECT_EQ(std::string(table.last_error(nullptr)),
            "launch of 'count' not run: a dependency failed: launch of 'throws': boom");
  for (auto &hit : hits)
    EXPECT_EQ(hit.load(), 0);
  dpk_event_status_t status;
  ASSERT_EQ(table.event_status(&status, failed), DPK_SUCCESS);
  EXPECT_EQ(status, DPK_EVENT_ERROR);
  EXPECT_EQ(table.event_wait(1, &failed), DPK_ERROR_DEVICE);
  EXPECT_EQ(std::string(table.last_error(nullptr)), "launch of 'throws': boom");
  EXPECT_EQ(table.queue_finish(queue), DPK_ERROR_DEVICE);
  table.event_release(failed);
  table.queue_release(other);
  table.kernel_release(counter);
  table.kernel_release(thrower);
}

// More arguments than a launch keeps in place (ArgumentPack::kInlineArguments), a local one
// among them, on a launch that waits in the queue for another queue's command while the caller
// has released its kernel and reused its argument storage.
TEST_F(HostBackend, AQueuedLaunchKeepsManyArgumentsAndItsKernel) {
  dpk_host_kernel_entry_t waitEntry{"wait", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(waitForRelease), {0, 0, 0}};
  dpk_host_kernel_entry_t sumEntry{"sum_many", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(sumManyScalars), {0, 0, 0}};
  dpk_pl_kernel_t waiter = makeKernel(waitEntry);
  dpk_pl_kernel_t summer = makeKernel(sumEntry);
  dpk_pl_queue_t other = nullptr;
  ASSERT_EQ(table.queue_create(&other, context, DPK_PL_QUEUE_IN_ORDER), DPK_SUCCESS);
  dpk_launch_config_t one{1, {1, 1, 1}, {1, 1, 1}};

  // The waiting launch runs on a thread of its own (an idle queue runs it on the submitter).
  std::atomic<bool> started{false}, release{false};
  dpk_pl_event_t blocker = nullptr;
  std::thread holder([&] {
    void *flags[2] = {&started, &release};
    dpk_kernel_arg_t args[2] = {{DPK_ARG_POINTER, 8, &flags[0]}, {DPK_ARG_POINTER, 8, &flags[1]}};
    dpk_pl_event_t event = nullptr;
    EXPECT_EQ(table.enqueue_launch(&event, other, waiter, &one, 2, args, 0, nullptr), DPK_SUCCESS);
    table.event_release(event);
  });
  while (!started.load())
    std::this_thread::yield();
  // The holder's launch is running; its event is not handed out until it returns, so depend on
  // a marker command queued behind it instead.
  uint8_t marker = 0, one8 = 1;
  ASSERT_EQ(table.enqueue_fill(&blocker, other, &marker, &one8, 1, 1, 0, nullptr), DPK_SUCCESS);

  std::vector<int64_t> out(2, 0);
  {
    void *outPtr = out.data();
    int64_t scalars[16];
    int32_t last = -7;
    std::vector<dpk_kernel_arg_t> args;
    args.push_back({DPK_ARG_POINTER, sizeof(void *), &outPtr});
    for (int i = 0; i < 16; ++i) {
      scalars[i] = int64_t(1) << (i + 20);
      args.push_back({DPK_ARG_SCALAR, sizeof(int64_t), &scalars[i]});
    }
    args.push_back({DPK_ARG_LOCAL, 16 * sizeof(int64_t), nullptr});
    args.push_back({DPK_ARG_SCALAR, sizeof(int32_t), &last});
    ASSERT_EQ(table.enqueue_launch(nullptr, queue, summer, &one, static_cast<uint32_t>(args.size()), args.data(), 1,
                                   &blocker),
              DPK_SUCCESS);
    std::fill(std::begin(scalars), std::end(scalars), 0);
    last = 0;
    outPtr = nullptr;
  }
  table.kernel_release(summer);
  table.event_release(blocker);
  EXPECT_EQ(out[0], 0) << "the launch ran before its dependency";
  release.store(true);
  holder.join();
  ASSERT_EQ(table.queue_finish(queue), DPK_SUCCESS);
  EXPECT_EQ(out[0], ((int64_t(1) << 16) - 1) << 20);
  EXPECT_EQ(out[1], -7);
  EXPECT_EQ(marker, 1);
  table.queue_release(other);
  table.kernel_release(waiter);
}

} // namespace

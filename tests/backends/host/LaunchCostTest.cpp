// The host launch cost model (backends/host/launch_cost.hpp): how many tasks a launch gets from
// what the kernel's earlier launches measured. Default task size: 5 us of expected work.
#include "launch_cost.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace dpk::host {
namespace {

constexpr uint64_t kThreads = 16;

class LaunchCostModel : public ::testing::Test {
protected:
  void SetUp() override {
    const char *setting = std::getenv("DPK_HOST_TASK_WORK_NS");
    if (setting && *setting)
      GTEST_SKIP() << "DPK_HOST_TASK_WORK_NS is set: these cases assume the default";
    ASSERT_EQ(taskWorkNanos(), 5000u);
  }
};

TEST_F(LaunchCostModel, AnUnmeasuredKernelIsLeftToOneTbb) {
  LaunchCost cost;
  EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 0u);
}

TEST_F(LaunchCostModel, WorkForHalfTheThreadsOrMoreIsLeftToOneTbb) {
  LaunchCost cost;
  recordLaunch(cost, 1000, 200'000, true); // 200 ns per item: 1000 items = 40 tasks
  EXPECT_EQ(plannedTasks(cost, 1000, kThreads), 0u);
  EXPECT_EQ(plannedTasks(cost, 200, kThreads), 0u); // 8 tasks: half the threads
  EXPECT_EQ(plannedTasks(cost, 100, kThreads), 4u);
}

TEST_F(LaunchCostModel, MiddleSizedWorkGetsOneTaskPerFiveMicroseconds) {
  LaunchCost cost;
  recordLaunch(cost, 1000, 30'000, true); // measured alone: 30 ns per item
  EXPECT_EQ(plannedTasks(cost, 1000, kThreads), 6u);   // 30 us
  EXPECT_EQ(plannedTasks(cost, 100, kThreads), 1u);    // 3 us: the submitting thread
  EXPECT_EQ(plannedTasks(cost, 10'000, kThreads), 0u); // 300 us: every thread
}

// Work measured over several threads reads high; a kernel whose estimate is below one task per
// thread is probed once on one thread, and while that says one task suffices, it keeps one.
TEST_F(LaunchCostModel, FewTasksAreProbedOnOneThreadAndTheProbeDecides) {
  LaunchCost cost;
  recordLaunch(cost, 4096, 60'000, false); // 60 us over threads: 12 tasks
  EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 1u) << "the probe";
  recordLaunch(cost, 4096, 9'000, true); // alone it took 9 us: 1.8 tasks, kept on one thread
  for (int launch = 0; launch < 3; ++launch) {
    EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 1u) << launch;
    recordLaunch(cost, 4096, 9'000, true);
  }
  // One slow reading alone (10 us, 2 tasks) moves the figure half way (9.5 us): still one.
  recordLaunch(cost, 4096, 10'000, true);
  EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 1u);
  recordLaunch(cost, 4096, 9'000, true); // a lower reading is taken at once
  // Alone it took 31 us (the kernel got costlier): half way is 20 us, split again, by the
  // last launch's figure.
  recordLaunch(cost, 4096, 31'000, true);
  EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 6u);
  // A split launch measured high does not bring the probe back: the one-thread figure stands.
  recordLaunch(cost, 4096, 30'000, false);
  EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 6u);
}

TEST_F(LaunchCostModel, AProbeThatNeedsMoreThanOneTaskIsNotRepeated) {
  LaunchCost cost;
  recordLaunch(cost, 4096, 15'000, false); // 3 tasks by the split figure: probe
  EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 1u);
  recordLaunch(cost, 4096, 11'000, true); // alone 11 us: 2.2 tasks
  EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 2u);
  recordLaunch(cost, 4096, 14'000, false);
  EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 3u);
}

TEST_F(LaunchCostModel, WorkForEveryThreadIsNotProbed) {
  LaunchCost cost;
  recordLaunch(cost, 4096, 90'000, false); // 18 tasks: more than one per thread
  EXPECT_EQ(plannedTasks(cost, 4096, kThreads), 0u);
}

TEST_F(LaunchCostModel, EmptyLaunchesRecordNothing) {
  LaunchCost cost;
  recordLaunch(cost, 0, 1000, true);
  EXPECT_EQ(cost.picosPerItem.load(), 0u);
  EXPECT_EQ(cost.picosAlone.load(), 0u);
  recordLaunch(cost, 10, 0, true); // too fast to measure: 1 ps, not "unmeasured"
  EXPECT_EQ(cost.picosAlone.load(), 1u);
  EXPECT_EQ(plannedTasks(cost, 10, kThreads), 1u);
}

} // namespace
} // namespace dpk::host

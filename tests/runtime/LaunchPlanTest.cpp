// LaunchPlanTest.cpp - launch plans (core/runtime/LaunchPlan.h): a kernel that has launched in a
// shape reports every bad launch after it with the status and message that a kernel without
// plans gives; planned launches take each call's pointers, scalars and strides; only launches
// that reached the device leave a plan; threads share a kernel's plans.
#include "DpkTest.h"
#include "HostKernels.h"

#include "runtime/Kernel.h"
#include "runtime/Launch.h"
#include "runtime/Memory.h"
#include "runtime/Queue.h"
#include "runtime/Registry.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace dpk::test;

namespace {

const char *const IrText = R"(
kernel @axpy(%x: ptr<global, f32>, %y: ptr<global, f32>, %a: f32) {
  %i = global_id 0 : i64
  %xv = load %x[%i] : f32
  %yv = load %y[%i] : f32
  %p = mul %xv, %a : f32
  %s = add %p, %yv : f32
  store %y[%i], %s
  return
}
kernel @scale(%v: view<global, f32, 1>, %k: f32) {
  %i = global_id 0 : i64
  %x = view_load %v[%i] : f32
  %y = mul %x, %k : f32
  view_store %v[%i], %y
  return
}
)";

constexpr size_t N = 1024;

/// A launch's status and, on failure, its message (the launch is waited for when it succeeds).
struct Outcome {
  dpk_status_t status;
  std::string message;
};

Outcome launchAndWait(dpk_queue_t queue, dpk_kernel_t kernel, const dpk_launch_config_t &config,
                      const std::vector<dpk_arg_t> &args) {
  dpk_status_t status = dpk_enqueue_launch(
      nullptr, queue, kernel, &config, static_cast<uint32_t>(args.size()), args.data(), 0, nullptr);
  if (status == DPK_SUCCESS)
    status = dpk_queue_wait(queue);
  return {status, status == DPK_SUCCESS ? std::string() : std::string(dpk_last_error())};
}

dpk_arg_t floatArg(const float *value) { return {DPK_ARG_SCALAR, sizeof(*value), value}; }

class LaunchPlans : public ::testing::Test {
protected:
  void SetUp() override {
    host_ = findDevice("host");
    if (!host_)
      GTEST_SKIP() << "no host device: " << dpk_last_error();
    DPK_ASSERT_OK(
        dpk_program_create_from_ir(&program_, IrText, std::strlen(IrText), "plans.dpkir"));
    DPK_ASSERT_OK(dpk_kernel_get(&axpy_, program_, "axpy"));
    DPK_ASSERT_OK(dpk_queue_create(&queue_, host_, 0));
    for (void **p : {&x_, &y_})
      DPK_ASSERT_OK(dpk_mem_alloc(p, host_, DPK_MEM_SHARED, N * sizeof(float)));
    fill(x_, y_);
  }
  void TearDown() override {
    for (void *p : {x_, y_})
      if (p)
        dpk_mem_free(p);
    if (queue_)
      dpk_queue_release(queue_);
    if (axpy_)
      dpk_kernel_release(axpy_);
    if (program_)
      dpk_program_release(program_);
  }

  static void fill(void *x, void *y) {
    for (size_t i = 0; i < N; ++i) {
      static_cast<float *>(x)[i] = float(i);
      static_cast<float *>(y)[i] = 1.0f;
    }
  }
  std::vector<dpk_arg_t> goodArgs() { return {pointerArg(x_), pointerArg(y_), floatArg(&a_)}; }
  /// Launches axpy twice in `config` (the first leaves a plan, the second takes it).
  void warm(const dpk_launch_config_t &config) {
    for (int i = 0; i < 2; ++i) {
      Outcome outcome = launchAndWait(queue_, axpy_, config, goodArgs());
      ASSERT_EQ(outcome.status, DPK_SUCCESS) << outcome.message;
    }
  }
  /// The bad launch fails on axpy_ (which has plans) exactly as on a new handle of the same
  /// kernel (which has none), with `status` and a message containing `text`.
  void expectSameFailure(dpk_queue_t queue, const dpk_launch_config_t &config,
                         const std::vector<dpk_arg_t> &args, dpk_status_t status,
                         const std::string &text) {
    dpk_kernel_t cold = nullptr;
    DPK_ASSERT_OK(dpk_kernel_get(&cold, program_, "axpy"));
    Outcome withoutPlan = launchAndWait(queue, cold, config, args);
    Outcome withPlan = launchAndWait(queue, axpy_, config, args);
    DPK_ASSERT_OK(dpk_kernel_release(cold));
    EXPECT_EQ(withoutPlan.status, status) << withoutPlan.message;
    EXPECT_NE(withoutPlan.message.find(text), std::string::npos) << withoutPlan.message;
    EXPECT_EQ(withPlan.status, withoutPlan.status) << withPlan.message;
    EXPECT_EQ(withPlan.message, withoutPlan.message);
  }

  dpk_device_t host_ = nullptr;
  dpk_program_t program_ = nullptr;
  dpk_kernel_t axpy_ = nullptr;
  dpk_queue_t queue_ = nullptr;
  void *x_ = nullptr, *y_ = nullptr;
  float a_ = 2.0f;
};

} // namespace

TEST_F(LaunchPlans, PlannedLaunchesTakeEachCallsPointersAndScalars) {
  warm(range1d(N)); // y = 1 + 2x, twice: 1 + 4x
  const float *y = static_cast<const float *>(y_);
  for (size_t i = 0; i < N; ++i)
    ASSERT_EQ(y[i], 1.0f + 4.0f * float(i)) << "at " << i;
  void *x2 = nullptr, *y2 = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&x2, host_, DPK_MEM_SHARED, N * sizeof(float)));
  DPK_ASSERT_OK(dpk_mem_alloc(&y2, host_, DPK_MEM_SHARED, N * sizeof(float)));
  fill(x2, y2);
  for (float a : {3.0f, -1.0f}) {
    dpk_launch_config_t config = range1d(N);
    Outcome outcome =
        launchAndWait(queue_, axpy_, config, {pointerArg(x2), pointerArg(y2), floatArg(&a)});
    ASSERT_EQ(outcome.status, DPK_SUCCESS) << outcome.message;
  }
  for (size_t i = 0; i < N; ++i) {
    ASSERT_EQ(static_cast<const float *>(y2)[i], 1.0f + 2.0f * float(i)) << "at " << i;
    ASSERT_EQ(y[i], 1.0f + 4.0f * float(i)) << "the old buffers changed at " << i;
  }
  DPK_ASSERT_OK(dpk_mem_free(x2));
  DPK_ASSERT_OK(dpk_mem_free(y2));
}

TEST_F(LaunchPlans, BadArgumentsAfterAPlanFailAsWithoutOne) {
  dpk_launch_config_t config = range1d(N);
  warm(config);
  double wide = 2.0;
  expectSameFailure(queue_, config, {pointerArg(x_), pointerArg(y_)}, DPK_ERROR_INVALID_ARGUMENT,
                    "kernel 'axpy' takes 3 parameters");
  expectSameFailure(queue_, config, {pointerArg(x_), pointerArg(y_), floatArg(&a_), floatArg(&a_)},
                    DPK_ERROR_INVALID_ARGUMENT, "kernel 'axpy' takes 3 parameters");
  expectSameFailure(queue_, config, {pointerArg(x_), floatArg(&a_), floatArg(&a_)},
                    DPK_ERROR_INVALID_ARGUMENT, "argument 1 for parameter 1 ('y'");
  expectSameFailure(queue_, config,
                    {pointerArg(x_), pointerArg(y_), {DPK_ARG_SCALAR, sizeof(wide), &wide}},
                    DPK_ERROR_INVALID_ARGUMENT, "must be a scalar of 4 bytes, got 8");
  // The key matches the plan's (same kinds and sizes); only the value is missing.
  expectSameFailure(queue_, config, {pointerArg(x_), pointerArg(y_), {DPK_ARG_SCALAR, 4, nullptr}},
                    DPK_ERROR_INVALID_ARGUMENT, "argument 2 is a scalar without a value or size");
  expectSameFailure(queue_, config,
                    {pointerArg(x_), pointerArg(y_), {static_cast<dpk_arg_kind_t>(7), 4, &a_}},
                    DPK_ERROR_INVALID_ARGUMENT, "argument 2 has unknown kind 7");
  // A bad range is reported before the arguments, plan or not.
  dpk_launch_config_t none = {0, {N, 0, 0}, {0, 0, 0}};
  expectSameFailure(queue_, none, {pointerArg(x_), pointerArg(y_)}, DPK_ERROR_INVALID_RANGE,
                    "dims is 0");
  warm(config); // the plan still serves good launches
}

TEST_F(LaunchPlans, RangesAfterAPlanAreCheckedAsWithoutOne) {
  dpk_device_info_t info{};
  info.struct_size = sizeof(info);
  DPK_ASSERT_OK(dpk_device_get_info(&info, host_));
  warm(ndRange1d(N, 64));
  warm(range1d(N));
  expectSameFailure(queue_, ndRange1d(1000, 64), goodArgs(), DPK_ERROR_INVALID_RANGE,
                    "local size 64 does not divide global size 1000 in dimension 0");
  dpk_launch_config_t partial = {2, {32, 32, 0}, {8, 0, 0}};
  expectSameFailure(queue_, partial, goodArgs(), DPK_ERROR_INVALID_RANGE,
                    "local size of dimension 1 is 0");
  uint64_t tooLarge = info.max_work_group_size * 2;
  expectSameFailure(queue_, ndRange1d(tooLarge * 2, tooLarge), goodArgs(), DPK_ERROR_INVALID_RANGE,
                    "exceeds the device's maximum");
  dpk_launch_config_t four = {4, {N, 1, 1}, {0, 0, 0}};
  expectSameFailure(queue_, four, goodArgs(), DPK_ERROR_INVALID_RANGE, "dims");
  warm(ndRange1d(N, 64));
}

// The placement check runs on every planned launch: a plan made while one device held device
// memory must still catch a pointer into another device's memory, before and after the owners
// change, and on the shape the plan was made for.
TEST_F(LaunchPlans, ForeignPointerAfterAPlanIsAPlacementError) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  void *hostMemory = nullptr, *faultMemory = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&hostMemory, host_, DPK_MEM_DEVICE, N * sizeof(float)));
  dpk_launch_config_t config = range1d(N);
  std::vector<dpk_arg_t> onHost = {pointerArg(x_), pointerArg(hostMemory), floatArg(&a_)};
  for (int i = 0; i < 2; ++i) // the host alone holds device memory: no lookup
    ASSERT_EQ(launchAndWait(queue_, axpy_, config, onHost).status, DPK_SUCCESS);
  DPK_ASSERT_OK(dpk_mem_alloc(&faultMemory, fault, DPK_MEM_DEVICE, N * sizeof(float)));
  std::vector<dpk_arg_t> foreign = {pointerArg(x_), pointerArg(faultMemory), floatArg(&a_)};
  expectSameFailure(queue_, config, foreign, DPK_ERROR_PLACEMENT,
                    "argument 1 points to device memory of");
  ASSERT_EQ(launchAndWait(queue_, axpy_, config, onHost).status, DPK_SUCCESS); // two owners
  DPK_ASSERT_OK(dpk_mem_free(hostMemory));
  expectSameFailure(queue_, config, foreign, DPK_ERROR_PLACEMENT, // the fault device alone
                    "argument 1 points to device memory of");
  DPK_ASSERT_OK(dpk_mem_free(faultMemory));
}

// A plan is the queue's device's: the same kernel and shape on another device plans anew, and
// its placement follows that device.
TEST_F(LaunchPlans, PlansAreKeptPerDevice) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  dpk_launch_config_t config = range1d(N);
  warm(config);
  dpk_queue_t faultQueue = nullptr;
  DPK_ASSERT_OK(dpk_queue_create(&faultQueue, fault, 0));
  void *fx = nullptr, *fy = nullptr, *hostMemory = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&fx, fault, DPK_MEM_SHARED, N * sizeof(float)));
  DPK_ASSERT_OK(dpk_mem_alloc(&fy, fault, DPK_MEM_SHARED, N * sizeof(float)));
  fill(fx, fy);
  for (int i = 0; i < 2; ++i) {
    Outcome outcome =
        launchAndWait(faultQueue, axpy_, config, {pointerArg(fx), pointerArg(fy), floatArg(&a_)});
    ASSERT_EQ(outcome.status, DPK_SUCCESS) << outcome.message;
  }
  for (size_t i = 0; i < N; ++i)
    ASSERT_EQ(static_cast<const float *>(fy)[i], 1.0f + 4.0f * float(i)) << "at " << i;
  DPK_ASSERT_OK(dpk_mem_alloc(&hostMemory, host_, DPK_MEM_DEVICE, N * sizeof(float)));
  void *faultMemory = nullptr; // two devices hold device memory: the check looks pointers up
  DPK_ASSERT_OK(dpk_mem_alloc(&faultMemory, fault, DPK_MEM_DEVICE, N * sizeof(float)));
  expectSameFailure(faultQueue, config, {pointerArg(fx), pointerArg(hostMemory), floatArg(&a_)},
                    DPK_ERROR_PLACEMENT, "argument 1 points to device memory of");
  expectSameFailure(queue_, config, {pointerArg(x_), pointerArg(faultMemory), floatArg(&a_)},
                    DPK_ERROR_PLACEMENT, "argument 1 points to device memory of");
  for (void *p : {fx, fy, hostMemory, faultMemory})
    DPK_ASSERT_OK(dpk_mem_free(p));
  DPK_ASSERT_OK(dpk_queue_release(faultQueue));
}

// Which views have a unit innermost stride picks the build (Specialization), so it is part of
// a plan's key: the same shape with another stride must not run the unit-stride build.
TEST_F(LaunchPlans, ViewStridesPickTheBuildOnThePlannedPath) {
  dpk_kernel_t scale = nullptr;
  DPK_ASSERT_OK(dpk_kernel_get(&scale, program_, "scale"));
  float k = 2.0f;
  dpk_launch_config_t config = range1d(N / 2);
  dpk_view_arg_t unit = {x_, 1, {int64_t(N / 2), 0, 0}, {1, 0, 0}};
  dpk_view_arg_t strided = {x_, 1, {int64_t(N / 2), 0, 0}, {2, 0, 0}};
  std::vector<float> expected(N);
  for (size_t i = 0; i < N; ++i)
    expected[i] = float(i);
  for (const dpk_view_arg_t *view : {&unit, &unit, &strided, &strided, &unit}) {
    Outcome outcome = launchAndWait(queue_, scale, config, {{DPK_ARG_VIEW, 0, view}, floatArg(&k)});
    ASSERT_EQ(outcome.status, DPK_SUCCESS) << outcome.message;
    for (size_t i = 0; i < N / 2; ++i)
      expected[i * size_t(view->strides[0])] *= k;
  }
  for (size_t i = 0; i < N; ++i)
    ASSERT_EQ(static_cast<const float *>(x_)[i], expected[i]) << "at " << i;
  DPK_ASSERT_OK(dpk_kernel_release(scale));
}

TEST_F(LaunchPlans, ReleasedHandlesAfterAPlanAreInvalid) {
  dpk_launch_config_t config = range1d(N);
  warm(config);
  std::vector<dpk_arg_t> args = goodArgs();
  dpk_kernel_t kernel = axpy_;
  DPK_ASSERT_OK(dpk_kernel_release(axpy_));
  axpy_ = nullptr;
  DPK_EXPECT_STATUS(
      dpk_enqueue_launch(nullptr, queue_, kernel, &config, 3, args.data(), 0, nullptr),
      DPK_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(lastErrorHas("not a live kernel handle")) << dpk_last_error();
  DPK_ASSERT_OK(dpk_kernel_get(&axpy_, program_, "axpy"));
  warm(config);
  dpk_queue_t queue = queue_;
  DPK_ASSERT_OK(dpk_queue_release(queue_));
  queue_ = nullptr;
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue, axpy_, &config, 3, args.data(), 0, nullptr),
                    DPK_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(lastErrorHas("not a live queue handle")) << dpk_last_error();
}

// Kernels without a signature (native host functions) plan too; their local memory is part of
// the key, so a larger request is checked against the device again.
TEST_F(LaunchPlans, LocalMemoryAfterAPlanIsCheckedAsWithoutOne) {
  dpk_device_info_t info{};
  info.struct_size = sizeof(info);
  DPK_ASSERT_OK(dpk_device_get_info(&info, host_));
  dpk_program_t hostProgram = nullptr;
  dpk_kernel_t warmIota = nullptr, coldIota = nullptr;
  DPK_ASSERT_OK(dpk_program_create_from_host(&hostProgram, TestKernels, NumTestKernels));
  DPK_ASSERT_OK(dpk_kernel_get(&warmIota, hostProgram, "iota"));
  DPK_ASSERT_OK(dpk_kernel_get(&coldIota, hostProgram, "iota"));
  dpk_launch_config_t config = range1d(64);
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(
        launchAndWait(queue_, warmIota, config, {pointerArg(y_), {DPK_ARG_LOCAL, 16, nullptr}})
            .status,
        DPK_SUCCESS);
  std::vector<dpk_arg_t> tooMuch = {pointerArg(y_),
                                    {DPK_ARG_LOCAL, info.local_mem_size + 1, nullptr}};
  Outcome withoutPlan = launchAndWait(queue_, coldIota, config, tooMuch);
  Outcome withPlan = launchAndWait(queue_, warmIota, config, tooMuch);
  EXPECT_EQ(withoutPlan.status, DPK_ERROR_INVALID_RANGE);
  EXPECT_NE(withoutPlan.message.find("local memory"), std::string::npos) << withoutPlan.message;
  EXPECT_EQ(withPlan.status, withoutPlan.status);
  EXPECT_EQ(withPlan.message, withoutPlan.message);
  for (dpk_kernel_t k : {warmIota, coldIota})
    DPK_ASSERT_OK(dpk_kernel_release(k));
  DPK_ASSERT_OK(dpk_program_release(hostProgram));
}

// A planned launch the device refuses, or that fails while it runs, is reported (or falls back,
// as the policy says) as any launch is.
TEST_F(LaunchPlans, DeviceFailuresOfPlannedLaunchesAreReported) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  dpk_queue_t faultQueue = nullptr;
  DPK_ASSERT_OK(dpk_queue_create(&faultQueue, fault, 0));
  void *fy = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&fy, fault, DPK_MEM_SHARED, N * sizeof(float)));
  dpk_launch_config_t config = range1d(N);
  std::vector<dpk_arg_t> args = {pointerArg(x_), pointerArg(fy), floatArg(&a_)};
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(launchAndWait(faultQueue, axpy_, config, args).status, DPK_SUCCESS);
  for (const char *fault : {"launch", "async"}) {
    dpk_kernel_t cold = nullptr;
    DPK_ASSERT_OK(dpk_kernel_get(&cold, program_, "axpy"));
    ::setenv("DPK_FAULT_INJECT", fault, 1); // read by the plugin at each call
    Outcome withoutPlan = launchAndWait(faultQueue, cold, config, args);
    Outcome withPlan = launchAndWait(faultQueue, axpy_, config, args);
    ::unsetenv("DPK_FAULT_INJECT");
    DPK_ASSERT_OK(dpk_kernel_release(cold));
    EXPECT_EQ(withPlan.status, withoutPlan.status) << fault << ": " << withPlan.message;
    EXPECT_EQ(withPlan.message, withoutPlan.message) << fault;
    if (std::string(fault) == "async") {
      EXPECT_EQ(withPlan.status, DPK_ERROR_DEVICE) << withPlan.message;
      EXPECT_NE(withPlan.message.find("kernel 'axpy'"), std::string::npos) << withPlan.message;
    }
  }
  ASSERT_EQ(launchAndWait(faultQueue, axpy_, config, args).status, DPK_SUCCESS);
  DPK_ASSERT_OK(dpk_mem_free(fy));
  DPK_ASSERT_OK(dpk_queue_release(faultQueue));
}

// Threads launch one kernel through its plans while others replace them: more shapes than a
// kernel keeps slots for. Every result must be right (and TSan quiet: scripts/sanitize.sh).
TEST_F(LaunchPlans, ThreadsShareAKernelsPlans) {
  constexpr int Threads = 4, Rounds = 40;
  const uint64_t sizes[] = {N, N / 2, N / 4, N / 8, N / 16, N / 32};
  std::vector<std::thread> threads;
  std::vector<std::string> failures(Threads);
  for (int t = 0; t < Threads; ++t) {
    threads.emplace_back([&, t] {
      dpk_queue_t queue = nullptr;
      void *x = nullptr, *y = nullptr;
      if (dpk_queue_create(&queue, host_, 0) || dpk_mem_alloc(&x, host_, DPK_MEM_SHARED, N * 4) ||
          dpk_mem_alloc(&y, host_, DPK_MEM_SHARED, N * 4)) {
        failures[t] = dpk_last_error();
        return;
      }
      fill(x, y);
      float a = 1.0f;
      std::vector<float> expected(N, 1.0f);
      for (int round = 0; round < Rounds && failures[t].empty(); ++round) {
        // Thread t uses t + 2 of the shapes, so some threads keep to the plans others evict.
        uint64_t n = sizes[round % (t + 2 < 6 ? t + 2 : 6)];
        Outcome outcome =
            launchAndWait(queue, axpy_, range1d(n), {pointerArg(x), pointerArg(y), floatArg(&a)});
        if (outcome.status != DPK_SUCCESS)
          failures[t] = outcome.message;
        for (uint64_t i = 0; i < n; ++i)
          expected[i] += float(i);
      }
      for (size_t i = 0; i < N && failures[t].empty(); ++i) {
        if (static_cast<const float *>(y)[i] != expected[i])
          failures[t] = "wrong result at " + std::to_string(i);
      }
      dpk_mem_free(x);
      dpk_mem_free(y);
      dpk_queue_release(queue);
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < Threads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}

// Below the C API: only a launch that passed its checks and reached the device leaves a plan,
// and the plan answers only its own key.
TEST(LaunchPlanCache, OnlyLaunchesThatReachedTheDeviceLeavePlans) {
  using namespace dpk::runtime;
  ASSERT_FALSE(static_cast<bool>(Registry::ensure()));
  Device *host = Registry::get().hostDevice();
  if (!host)
    GTEST_SKIP() << "no host device";
  dpk::Expected<Ref<Program>> program = Program::fromIr(IrText, "plans.dpkir");
  ASSERT_TRUE(static_cast<bool>(program)) << program.error().message();
  dpk::Expected<Ref<Kernel>> kernel = Kernel::create(**program, "axpy");
  ASSERT_TRUE(static_cast<bool>(kernel)) << kernel.error().message();
  dpk::Expected<Ref<Queue>> queue = Queue::create(*host, 0);
  ASSERT_TRUE(static_cast<bool>(queue)) << queue.error().message();
  dpk::Expected<void *> x = allocateMemory(*host, DPK_MEM_SHARED, N * sizeof(float));
  dpk::Expected<void *> y = allocateMemory(*host, DPK_MEM_SHARED, N * sizeof(float));
  ASSERT_TRUE(x && y);
  float a = 2.0f;
  LaunchArg args[] = {{LaunchArgKind::Pointer, 0, *x, nullptr},
                      {LaunchArgKind::Pointer, 0, *y, nullptr},
                      {LaunchArgKind::Scalar, sizeof(a), &a, nullptr}};
  auto hasPlan = [&](const dpk_launch_config_t &config, uint32_t count) {
    MarshalledArgs marshalled;
    EXPECT_FALSE(static_cast<bool>(expandArguments(**kernel, args, count, marshalled)));
    return static_cast<bool>(
        (*kernel)->launchPlans().find(*host, (*queue)->inOrder(), config, marshalled, 0));
  };
  dpk_launch_config_t good = range1d(N), bad = ndRange1d(1000, 64);
  EXPECT_FALSE(hasPlan(good, 3));
  ASSERT_TRUE(static_cast<bool>(launchKernel(**queue, **kernel, good, args, 3, {}, false)));
  ASSERT_FALSE(static_cast<bool>((*queue)->wait()));
  EXPECT_TRUE(hasPlan(good, 3));
  EXPECT_FALSE(hasPlan(good, 2));           // another signature
  EXPECT_FALSE(hasPlan(range1d(N / 2), 3)); // another shape
  EXPECT_FALSE(static_cast<bool>(launchKernel(**queue, **kernel, bad, args, 3, {}, false)));
  EXPECT_FALSE(hasPlan(bad, 3));
  EXPECT_FALSE(static_cast<bool>(launchKernel(**queue, **kernel, good, args, 2, {}, false)));
  EXPECT_FALSE(hasPlan(good, 2));
  // The same key on another device has no plan.
  if (Device *fault = [] {
        for (const auto &device : Registry::get().allDevices())
          if (device->backend() == "fault")
            return device.get();
        return static_cast<Device *>(nullptr);
      }()) {
    MarshalledArgs marshalled;
    ASSERT_FALSE(static_cast<bool>(expandArguments(**kernel, args, 3, marshalled)));
    EXPECT_FALSE(
        static_cast<bool>((*kernel)->launchPlans().find(*fault, true, good, marshalled, 0)));
  }
  ASSERT_FALSE(static_cast<bool>(freeMemory(*x)));
  ASSERT_FALSE(static_cast<bool>(freeMemory(*y)));
}

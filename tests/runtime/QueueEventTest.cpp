// QueueEventTest.cpp - ordering on in-order and out-of-order queues, dependencies within and
// across queues and devices, event status and retain/release, async errors at wait, threads.
#include "DpkTest.h"
#include "HostKernels.h"

#include <thread>
#include <vector>

using namespace dpk::test;

namespace {

class Queues : public ::testing::Test {
protected:
  void SetUp() override {
    host_ = findDevice("host");
    if (!host_)
      GTEST_SKIP() << "no host device: " << dpk_last_error();
    DPK_ASSERT_OK(dpk_program_create_from_host(&program_, TestKernels, NumTestKernels));
    for (const char *name : {"iota", "double", "add"}) {
      dpk_kernel_t kernel;
      DPK_ASSERT_OK(dpk_kernel_get(&kernel, program_, name));
      kernels_.push_back(kernel);
    }
  }
  void TearDown() override {
    for (dpk_kernel_t kernel : kernels_)
      dpk_kernel_release(kernel);
    if (program_)
      dpk_program_release(program_);
  }
  dpk_kernel_t iota() const { return kernels_[0]; }
  dpk_kernel_t twice() const { return kernels_[1]; }
  dpk_kernel_t add() const { return kernels_[2]; }

  dpk_device_t host_ = nullptr;
  dpk_program_t program_ = nullptr;
  std::vector<dpk_kernel_t> kernels_;
};

} // namespace

TEST_F(Queues, InOrderQueueRunsCommandsInSubmissionOrder) {
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host_, DPK_QUEUE_IN_ORDER));
  const uint64_t n = 1 << 16;
  int32_t *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&x), host_, DPK_MEM_SHARED, n * 4));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(n);
  int32_t three = 3;
  dpk_arg_t addArgs[] = {pointerArg(x), scalarArg(&three)};
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, iota(), &range, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, twice(), &range, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, add(), &range, 2, addArgs, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(x[i], static_cast<int32_t>(2 * i + 3)) << "at " << i;
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST_F(Queues, OutOfOrderQueueHonoursExplicitDependencies) {
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host_, DPK_QUEUE_OUT_OF_ORDER));
  const uint64_t n = 1 << 16;
  int32_t *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&x), host_, DPK_MEM_SHARED, n * 4));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(n);
  for (int round = 0; round < 5; ++round) {
    dpk_event_t first, second;
    DPK_ASSERT_OK(dpk_enqueue_launch(&first, queue, iota(), &range, 1, &arg, 0, nullptr));
    DPK_ASSERT_OK(dpk_enqueue_launch(&second, queue, twice(), &range, 1, &arg, 1, &first));
    DPK_ASSERT_OK(dpk_event_wait(1, &second));
    dpk_event_status_t status;
    DPK_ASSERT_OK(dpk_event_status(&status, first));
    EXPECT_EQ(status, DPK_EVENT_COMPLETE);
    for (uint64_t i = 0; i < n; ++i)
      ASSERT_EQ(x[i], static_cast<int32_t>(2 * i)) << "round " << round << " at " << i;
    DPK_ASSERT_OK(dpk_event_release(first));
    DPK_ASSERT_OK(dpk_event_release(second));
  }
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST_F(Queues, DependenciesAcrossQueuesOfOneDevice) {
  dpk_queue_t producer, consumer;
  DPK_ASSERT_OK(dpk_queue_create(&producer, host_, 0));
  DPK_ASSERT_OK(dpk_queue_create(&consumer, host_, 0));
  const uint64_t n = 1 << 16;
  int32_t *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&x), host_, DPK_MEM_DEVICE, n * 4));
  std::vector<int32_t> out(n);
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(n);
  dpk_event_t produced, doubled;
  DPK_ASSERT_OK(dpk_enqueue_launch(&produced, producer, iota(), &range, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_launch(&doubled, consumer, twice(), &range, 1, &arg, 1, &produced));
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, consumer, out.data(), x, n * 4, 1, &doubled));
  DPK_ASSERT_OK(dpk_queue_wait(consumer));
  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], static_cast<int32_t>(2 * i)) << "at " << i;
  DPK_ASSERT_OK(dpk_event_release(produced));
  DPK_ASSERT_OK(dpk_event_release(doubled));
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_queue_release(producer));
  DPK_ASSERT_OK(dpk_queue_release(consumer));
}

TEST_F(Queues, DependenciesAcrossDevicesAreResolvedOnTheHost) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  dpk_queue_t hostQueue, faultQueue;
  DPK_ASSERT_OK(dpk_queue_create(&hostQueue, host_, 0));
  DPK_ASSERT_OK(dpk_queue_create(&faultQueue, fault, 0));
  const uint64_t n = 1 << 14;
  int32_t *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&x), host_, DPK_MEM_SHARED, n * 4));
  void *onFault = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&onFault, fault, DPK_MEM_DEVICE, n * 4));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(n);
  dpk_event_t produced, copied;
  DPK_ASSERT_OK(dpk_enqueue_launch(&produced, hostQueue, iota(), &range, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_copy(&copied, faultQueue, onFault, x, n * 4, 1, &produced));
  std::vector<int32_t> out(n);
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, faultQueue, out.data(), onFault, n * 4, 1, &copied));
  DPK_ASSERT_OK(dpk_queue_wait(faultQueue));
  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], static_cast<int32_t>(i));
  DPK_ASSERT_OK(dpk_event_release(produced));
  DPK_ASSERT_OK(dpk_event_release(copied));
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_mem_free(onFault));
  DPK_ASSERT_OK(dpk_queue_release(hostQueue));
  DPK_ASSERT_OK(dpk_queue_release(faultQueue));
}

TEST_F(Queues, EventRetainReleaseAndProfiling) {
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host_, DPK_QUEUE_PROFILING));
  const uint64_t n = 1024;
  int32_t *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&x), host_, DPK_MEM_SHARED, n * 4));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(n);
  dpk_event_t event;
  DPK_ASSERT_OK(dpk_enqueue_launch(&event, queue, iota(), &range, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_event_retain(event));
  DPK_ASSERT_OK(dpk_event_release(event));
  DPK_ASSERT_OK(dpk_event_wait(1, &event));
  uint64_t ns = 0;
  dpk_status_t status = dpk_event_elapsed_ns(&ns, event);
  EXPECT_TRUE(status == DPK_SUCCESS || status == DPK_ERROR_UNSUPPORTED) << dpk_last_error();
  DPK_ASSERT_OK(dpk_event_release(event));
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

// A queue created without DPK_QUEUE_PROFILING times nothing: asking an event of it for its time
// is DPK_ERROR_UNSUPPORTED on every device (the host plugin times every command, OpenCL refuses,
// CUDA has no timing events: the answer must not depend on which).
TEST_F(Queues, ElapsedTimeNeedsAProfilingQueue) {
  for (const char *filter : {"host", "fault"}) {
    dpk_device_t device = findDevice(filter);
    if (!device)
      continue;
    SCOPED_TRACE(filter);
    dpk_queue_t queue;
    DPK_ASSERT_OK(dpk_queue_create(&queue, device, 0));
    int32_t *x = nullptr;
    DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&x), device, DPK_MEM_SHARED, 256));
    int32_t host[64] = {};
    int32_t zero = 0;
    dpk_arg_t arg = pointerArg(x);
    dpk_launch_config_t range = range1d(64);
    dpk_event_t events[3] = {};
    DPK_ASSERT_OK(dpk_enqueue_launch(&events[0], queue, iota(), &range, 1, &arg, 0, nullptr));
    DPK_ASSERT_OK(dpk_enqueue_copy(&events[1], queue, host, x, sizeof host, 0, nullptr));
    DPK_ASSERT_OK(dpk_enqueue_fill(&events[2], queue, x, &zero, 4, 256, 0, nullptr));
    DPK_ASSERT_OK(dpk_event_wait(3, events));
    for (dpk_event_t event : events) {
      uint64_t ns = 12345;
      DPK_EXPECT_STATUS(dpk_event_elapsed_ns(&ns, event), DPK_ERROR_UNSUPPORTED);
      EXPECT_EQ(ns, 12345u); // out-parameter untouched
      EXPECT_TRUE(lastErrorHas("profiling")) << dpk_last_error();
      DPK_ASSERT_OK(dpk_event_release(event));
    }
    DPK_ASSERT_OK(dpk_mem_free(x));
    DPK_ASSERT_OK(dpk_queue_release(queue));
  }
}

TEST_F(Queues, ElapsedTimeOfAProfilingQueueOnTheHost) {
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host_, DPK_QUEUE_PROFILING));
  int32_t *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&x), host_, DPK_MEM_SHARED, 1 << 20));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(1 << 18);
  dpk_event_t event;
  DPK_ASSERT_OK(dpk_enqueue_launch(&event, queue, iota(), &range, 1, &arg, 0, nullptr));
  uint64_t ns = 0;
  DPK_EXPECT_STATUS(dpk_event_elapsed_ns(&ns, event), DPK_SUCCESS);
  EXPECT_GT(ns, 0u);
  DPK_ASSERT_OK(dpk_event_release(event));
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST_F(Queues, AsyncErrorSurfacesAtTheNextWaitWithDeviceKernelAndCause) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, fault, 0));
  void *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&x, fault, DPK_MEM_SHARED, 64 * 4));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(64);
  dpk_event_t event;
  ::setenv("DPK_FAULT_INJECT", "async", 1);
  dpk_status_t submitted = dpk_enqueue_launch(&event, queue, iota(), &range, 1, &arg, 0, nullptr);
  ::unsetenv("DPK_FAULT_INJECT");
  DPK_ASSERT_OK(submitted); // the failure is asynchronous: submission succeeds

  DPK_EXPECT_STATUS(dpk_event_wait(1, &event), DPK_ERROR_DEVICE);
  EXPECT_TRUE(lastErrorHas("kernel 'iota'")) << dpk_last_error();
  EXPECT_TRUE(lastErrorHas("fault:gpu:0")) << dpk_last_error();
  EXPECT_TRUE(lastErrorHas("injected asynchronous device error")) << dpk_last_error();
  dpk_event_status_t status;
  DPK_ASSERT_OK(dpk_event_status(&status, event));
  EXPECT_EQ(status, DPK_EVENT_ERROR);

  DPK_EXPECT_STATUS(dpk_queue_wait(queue), DPK_ERROR_DEVICE);
  EXPECT_TRUE(lastErrorHas("kernel 'iota'")) << dpk_last_error();
  // Reported once: the queue is usable again.
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, iota(), &range, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  DPK_ASSERT_OK(dpk_event_release(event));
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

// A launch without an out-event gets no plugin event (issue 6: an event per launch was most of
// an empty launch's overhead on a GPU); its asynchronous failure still surfaces at the next
// queue wait, naming the kernel, the device and the cause, and only once.
TEST_F(Queues, AsyncErrorOfALaunchWithoutAnEventSurfacesAtTheNextWait) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, fault, 0));
  void *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&x, fault, DPK_MEM_SHARED, 64 * 4));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(64);
  ::setenv("DPK_FAULT_INJECT", "async", 1);
  dpk_status_t submitted = dpk_enqueue_launch(nullptr, queue, iota(), &range, 1, &arg, 0, nullptr);
  ::unsetenv("DPK_FAULT_INJECT");
  DPK_ASSERT_OK(submitted);
  DPK_EXPECT_STATUS(dpk_queue_wait(queue), DPK_ERROR_DEVICE);
  EXPECT_TRUE(lastErrorHas("kernel 'iota'")) << dpk_last_error();
  EXPECT_TRUE(lastErrorHas("fault:gpu:0")) << dpk_last_error();
  EXPECT_TRUE(lastErrorHas("injected asynchronous device error")) << dpk_last_error();
  DPK_ASSERT_OK(dpk_queue_wait(queue)); // reported once

  // Several launches without events, one of them failing: the message names the last kernel and
  // says that an earlier launch may be the one that failed.
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, iota(), &range, 1, &arg, 0, nullptr));
  ::setenv("DPK_FAULT_INJECT", "async", 1);
  submitted = dpk_enqueue_launch(nullptr, queue, iota(), &range, 1, &arg, 0, nullptr);
  ::unsetenv("DPK_FAULT_INJECT");
  DPK_ASSERT_OK(submitted);
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, iota(), &range, 1, &arg, 0, nullptr));
  DPK_EXPECT_STATUS(dpk_queue_wait(queue), DPK_ERROR_DEVICE);
  EXPECT_TRUE(lastErrorHas("kernel 'iota' (or one of the 2 launches before it")) << dpk_last_error();
  EXPECT_TRUE(lastErrorHas("injected asynchronous device error")) << dpk_last_error();

  // An event asked for beside event-less launches still reports its own outcome.
  dpk_event_t event;
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, iota(), &range, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_launch(&event, queue, iota(), &range, 1, &arg, 0, nullptr));
  DPK_ASSERT_OK(dpk_event_wait(1, &event));
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  DPK_ASSERT_OK(dpk_event_release(event));
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

// Run under TSan (-DDPK_SANITIZE=thread): several threads submit, wait and share events. The
// fault device runs kernels in the submitting thread, so TSan sees every synchronization (the
// host backend's oneTBB is not instrumented and reports false positives inside it).
void submitFromThreads(dpk_device_t device, dpk_kernel_t iota, dpk_kernel_t twice) {
  const int threads = 4;
  const uint64_t n = 4096;
  dpk_queue_t shared;
  DPK_ASSERT_OK(dpk_queue_create(&shared, device, 0));
  std::vector<int32_t *> buffers(threads);
  for (auto &buffer : buffers)
    DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&buffer), device, DPK_MEM_SHARED, n * 4));
  std::vector<int> failures(threads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      dpk_queue_t own;
      if (dpk_queue_create(&own, device, DPK_QUEUE_OUT_OF_ORDER) != DPK_SUCCESS) {
        ++failures[t];
        return;
      }
      dpk_arg_t arg = pointerArg(buffers[t]);
      dpk_launch_config_t range = range1d(n);
      for (int round = 0; round < 20; ++round) {
        dpk_event_t first, second;
        if (dpk_enqueue_launch(&first, shared, iota, &range, 1, &arg, 0, nullptr) ||
            dpk_enqueue_launch(&second, own, twice, &range, 1, &arg, 1, &first) ||
            dpk_event_wait(1, &second)) {
          ++failures[t];
          break;
        }
        for (uint64_t i = 0; i < n; ++i)
          if (buffers[t][i] != static_cast<int32_t>(2 * i))
            ++failures[t];
        dpk_event_release(first);
        dpk_event_release(second);
      }
      dpk_queue_wait(own);
      dpk_queue_release(own);
    });
  }
  for (std::thread &worker : workers)
    worker.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  DPK_ASSERT_OK(dpk_queue_wait(shared));
  for (auto *buffer : buffers)
    DPK_ASSERT_OK(dpk_mem_free(buffer));
  DPK_ASSERT_OK(dpk_queue_release(shared));
}

TEST_F(Queues, ThreadsSubmitAndWaitConcurrently) { submitFromThreads(host_, iota(), twice()); }

TEST_F(Queues, ThreadsSubmitAndWaitConcurrentlyOnTheFaultDevice) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  submitFromThreads(fault, iota(), twice());
}

// ThreadStressTest.cpp - many threads launching on every device at once: each thread with its
// own queue, and threads sharing one queue per device; programs compiled for the first time by
// threads racing each other. Every launch's result is checked element by element, every event
// is waited for and released.
#include "StressSupport.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <thread>

using namespace dpk::stress;

namespace {

constexpr uint64_t N = 2048;

/// Lets `count` threads start together (std::barrier is C++20; dpk builds as C++17).
class StartLine {
public:
  explicit StartLine(size_t count) : waiting_(count) {}
  void arriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ == 0) {
      ready_.notify_all();
      return;
    }
    ready_.wait(lock, [this] { return waiting_ == 0; });
  }

private:
  std::mutex mutex_;
  std::condition_variable ready_;
  size_t waiting_;
};

/// Collects failures from worker threads (reported on the test's thread, at most a few).
class Failures {
public:
  void add(const std::string &what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (messages_.size() < 8)
      messages_.push_back(what);
    ++count_;
  }
  void report() const {
    for (const std::string &message : messages_)
      ADD_FAILURE() << message;
    if (count_ > messages_.size())
      ADD_FAILURE() << (count_ - messages_.size()) << " more failures";
  }
  bool empty() const { return count_ == 0; }

private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
  size_t count_ = 0;
};

std::string where(const DeviceParam &device, int thread, const char *step) {
  return device.filter + " thread " + std::to_string(thread) + ": " + step;
}

#define STRESS_CHECK(call, failures, context)                                                    \
  do {                                                                                           \
    dpk_status_t stressStatus_ = (call);                                                         \
    if (stressStatus_ != DPK_SUCCESS) {                                                          \
      (failures).add((context) + std::string(" " #call ": ") +                                   \
                     dpk::conformance::lastError(stressStatus_));                                \
      return;                                                                                    \
    }                                                                                            \
  } while (0)

/// One worker's buffers on one device: x (input) and y (accumulated), with the host's model.
struct Lane {
  void *x = nullptr;
  void *y = nullptr;
  // Upload sources: a copy from host memory reads it when the copy runs, which may be after
  // dpk_enqueue_copy returns (docs/c-api.md), so they never change after the upload; the
  // expected values live in a vector of their own.
  std::vector<int32_t> hostX, hostY;
  std::vector<int32_t> expectedY;
};

/// Allocates and uploads a lane whose values depend on `seed`.
void openLane(Lane &lane, dpk_device_t device, dpk_queue_t queue, int seed, Failures &failures,
              const std::string &context) {
  lane.hostX.resize(N);
  lane.hostY.resize(N);
  for (uint64_t i = 0; i < N; ++i) {
    lane.hostX[i] = static_cast<int32_t>((i * 7 + seed * 13) % 1000) - 500;
    lane.hostY[i] = static_cast<int32_t>(i) ^ seed;
  }
  STRESS_CHECK(dpk_mem_alloc(&lane.x, device, DPK_MEM_DEVICE, N * 4), failures, context);
  STRESS_CHECK(dpk_mem_alloc(&lane.y, device, DPK_MEM_DEVICE, N * 4), failures, context);
  STRESS_CHECK(dpk_enqueue_copy(nullptr, queue, lane.x, lane.hostX.data(), N * 4, 0, nullptr),
               failures, context);
  STRESS_CHECK(dpk_enqueue_copy(nullptr, queue, lane.y, lane.hostY.data(), N * 4, 0, nullptr),
               failures, context);
  lane.expectedY = lane.hostY;
}

/// Launches y = x*k + y + bias `launches` times (each after the previous one's event, events
/// waited and released as it goes), then reads y back and compares it with the model.
void runLane(Lane &lane, dpk_queue_t queue, dpk_kernel_t kernel, int32_t bias, int launches,
             int seed, Failures &failures, const std::string &context) {
  dpk_event_t previous = nullptr;
  for (int launch = 0; launch < launches; ++launch) {
    int32_t k = (seed + launch) % 5 - 2;
    dpk_arg_t args[] = {{DPK_ARG_POINTER, sizeof(void *), lane.x},
                        {DPK_ARG_POINTER, sizeof(void *), lane.y},
                        {DPK_ARG_SCALAR, sizeof k, &k}};
    dpk_launch_config_t range = launch % 2 ? dpk_launch_config_t{1, {N, 0, 0}, {64, 0, 0}}
                                           : dpk_launch_config_t{1, {N, 0, 0}, {0, 0, 0}};
    dpk_event_t done = nullptr;
    dpk_status_t status = dpk_enqueue_launch(&done, queue, kernel, &range, 3, args,
                                             previous ? 1 : 0, previous ? &previous : nullptr);
    if (previous) {
      dpk_status_t released = dpk_event_release(previous);
      if (released != DPK_SUCCESS)
        failures.add(context + " dpk_event_release: " + dpk::conformance::lastError(released));
      previous = nullptr;
    }
    STRESS_CHECK(status, failures, context + " launch " + std::to_string(launch));
    for (uint64_t i = 0; i < N; ++i)
      lane.expectedY[i] = axpyExpected(lane.hostX[i], lane.expectedY[i], k, bias);
    if (launch % 4 == 3) { // wait now and then, and look at the event's status
      STRESS_CHECK(dpk_event_wait(1, &done), failures, context);
      dpk_event_status_t state = DPK_EVENT_QUEUED;
      STRESS_CHECK(dpk_event_status(&state, done), failures, context);
      if (state != DPK_EVENT_COMPLETE)
        failures.add(context + ": a waited event is not complete");
    }
    previous = done;
  }
  if (previous) {
    STRESS_CHECK(dpk_event_wait(1, &previous), failures, context);
    STRESS_CHECK(dpk_event_release(previous), failures, context);
  }
  std::vector<int32_t> out(N, 0);
  dpk_event_t copied = nullptr;
  STRESS_CHECK(dpk_enqueue_copy(&copied, queue, out.data(), lane.y, N * 4, 0, nullptr), failures,
               context);
  STRESS_CHECK(dpk_event_wait(1, &copied), failures, context);
  STRESS_CHECK(dpk_event_release(copied), failures, context);
  for (uint64_t i = 0; i < N; ++i)
    if (out[i] != lane.expectedY[i]) {
      std::ostringstream message;
      message << context << ": y[" << i << "] = " << out[i] << ", expected " << lane.expectedY[i];
      failures.add(message.str());
      return;
    }
}

void closeLane(Lane &lane) {
  if (lane.x)
    dpk_mem_free(lane.x);
  if (lane.y)
    dpk_mem_free(lane.y);
}

/// One kernel of one program shared by all threads, from IR text with `bias`.
struct SharedKernel {
  dpk_program_t program = nullptr;
  dpk_kernel_t kernel = nullptr;
  SharedKernel(const std::string &name, int bias) {
    std::string error;
    program = irProgram(axpyIr(name, bias), name + ".dpkir", error);
    EXPECT_NE(program, nullptr) << error;
    if (program) {
      EXPECT_EQ(dpk_kernel_get(&kernel, program, name.c_str()), DPK_SUCCESS) << dpk_last_error();
    }
  }
  ~SharedKernel() {
    if (kernel)
      dpk_kernel_release(kernel);
    if (program)
      dpk_program_release(program);
  }
};

std::vector<dpk_device_t> openDevices(const std::vector<DeviceParam> &params) {
  std::vector<dpk_device_t> handles;
  for (const DeviceParam &param : params) {
    dpk_device_t device = nullptr;
    EXPECT_EQ(dpk_device_get(&device, param.index), DPK_SUCCESS) << dpk_last_error();
    handles.push_back(device);
  }
  return handles;
}

} // namespace

// Each thread has its own queue and buffers; all threads of all devices start together and
// launch one program that none of them has compiled yet (a program of its own per run, so the
// first launches on every device race through the compile and the kernel cache).
TEST(StressThreads, OwnQueuePerThreadOnEveryDevice) {
  std::vector<DeviceParam> params = devices();
  ASSERT_FALSE(params.empty()) << "no devices: " << dpk_last_error();
  const int threadsPerDevice = scaled(3, 8), launches = scaled(24, 200);
  const int32_t bias = 1000 + static_cast<int32_t>(::getpid() % 1000); // cold in every run
  SharedKernel shared("stress_own_queue", bias);
  ASSERT_NE(shared.kernel, nullptr);
  std::vector<dpk_device_t> handles = openDevices(params);
  Failures failures;
  StartLine start(params.size() * threadsPerDevice);
  std::vector<std::thread> threads;
  for (size_t d = 0; d < params.size(); ++d)
    for (int t = 0; t < threadsPerDevice; ++t)
      threads.emplace_back([&, d, t] {
        std::string context = where(params[d], t, "own queue");
        dpk_queue_t queue = nullptr;
        Lane lane;
        dpk_status_t status = dpk_queue_create(&queue, handles[d], DPK_QUEUE_IN_ORDER);
        if (status == DPK_SUCCESS)
          openLane(lane, handles[d], queue, static_cast<int>(d * 100 + t), failures, context);
        else
          failures.add(context + " dpk_queue_create: " + dpk::conformance::lastError(status));
        start.arriveAndWait();
        if (queue && lane.y)
          runLane(lane, queue, shared.kernel, bias, launches, static_cast<int>(d * 100 + t),
                  failures, context);
        if (queue) {
          dpk_queue_wait(queue);
          dpk_queue_release(queue);
        }
        closeLane(lane);
      });
  for (std::thread &thread : threads)
    thread.join();
  for (dpk_device_t device : handles)
    dpk_device_release(device);
  failures.report();
}

// Threads share one in-order queue per device (and one out-of-order queue per device, where
// only each thread's own event chain orders its launches); one more thread per device keeps
// waiting on the shared queues while they work.
TEST(StressThreads, SharedQueuesOnEveryDevice) {
  std::vector<DeviceParam> params = devices();
  ASSERT_FALSE(params.empty()) << "no devices: " << dpk_last_error();
  const int threadsPerQueue = scaled(3, 8), launches = scaled(16, 150);
  SharedKernel shared("stress_shared_queue", 7);
  ASSERT_NE(shared.kernel, nullptr);
  std::vector<dpk_device_t> handles = openDevices(params);
  std::vector<dpk_queue_t> queues;
  for (dpk_device_t device : handles)
    for (uint32_t flags : {uint32_t(DPK_QUEUE_IN_ORDER), uint32_t(DPK_QUEUE_OUT_OF_ORDER)}) {
      dpk_queue_t queue = nullptr;
      ASSERT_EQ(dpk_queue_create(&queue, device, flags), DPK_SUCCESS) << dpk_last_error();
      queues.push_back(queue);
    }
  Failures failures;
  std::atomic<bool> working{true};
  std::vector<std::thread> waiters;
  for (dpk_queue_t queue : queues)
    waiters.emplace_back([&, queue] {
      while (working.load()) {
        dpk_status_t status = dpk_queue_wait(queue);
        if (status != DPK_SUCCESS)
          failures.add("dpk_queue_wait on a shared queue: " +
                       dpk::conformance::lastError(status));
        std::this_thread::yield();
      }
    });
  StartLine start(queues.size() * threadsPerQueue);
  std::vector<std::thread> threads;
  for (size_t q = 0; q < queues.size(); ++q)
    for (int t = 0; t < threadsPerQueue; ++t)
      threads.emplace_back([&, q, t] {
        const DeviceParam &param = params[q / 2];
        std::string context = where(param, t, q % 2 ? "shared out-of-order queue"
                                                     : "shared in-order queue");
        Lane lane;
        int seed = static_cast<int>(q * 100 + t);
        openLane(lane, handles[q / 2], queues[q], seed, failures, context);
        // The uploads must be done before the first launch reads them on an out-of-order
        // queue: wait for the queue (other threads' work included) once.
        dpk_status_t status = dpk_queue_wait(queues[q]);
        if (status != DPK_SUCCESS)
          failures.add(context + " dpk_queue_wait: " + dpk::conformance::lastError(status));
        start.arriveAndWait();
        if (lane.y)
          runLane(lane, queues[q], shared.kernel, 7, launches, seed, failures, context);
        closeLane(lane);
      });
  for (std::thread &thread : threads)
    thread.join();
  working = false;
  for (std::thread &waiter : waiters)
    waiter.join();
  for (dpk_queue_t queue : queues) {
    EXPECT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
    dpk_queue_release(queue);
  }
  for (dpk_device_t device : handles)
    dpk_device_release(device);
  failures.report();
}

// Threads create, use and release programs, kernels and queues of their own from the same IR
// text at once (handles born and dying on many threads; one cache key compiled once).
TEST(StressThreads, ProgramsCreatedAndReleasedConcurrently) {
  std::vector<DeviceParam> params = devices();
  ASSERT_FALSE(params.empty()) << "no devices: " << dpk_last_error();
  const int threadsPerDevice = scaled(2, 6), rounds = scaled(4, 30);
  std::vector<dpk_device_t> handles = openDevices(params);
  Failures failures;
  std::string text = axpyIr("stress_churn", 3);
  std::vector<std::thread> threads;
  for (size_t d = 0; d < params.size(); ++d)
    for (int t = 0; t < threadsPerDevice; ++t)
      threads.emplace_back([&, d, t] {
        for (int round = 0; round < rounds; ++round) {
          std::string context = where(params[d], t, "churn") + " round " + std::to_string(round);
          std::string error;
          dpk_program_t program = irProgram(text, "stress_churn.dpkir", error);
          if (!program) {
            failures.add(context + ": " + error);
            return;
          }
          dpk_kernel_t kernel = nullptr;
          dpk_queue_t queue = nullptr;
          Lane lane;
          dpk_status_t status = dpk_kernel_get(&kernel, program, "stress_churn");
          if (status == DPK_SUCCESS)
            status = dpk_queue_create(&queue, handles[d], DPK_QUEUE_IN_ORDER);
          if (status != DPK_SUCCESS)
            failures.add(context + ": " + dpk::conformance::lastError(status));
          // The program goes before its kernel and queue work: the kernel keeps it alive.
          dpk_program_release(program);
          if (queue) {
            openLane(lane, handles[d], queue, static_cast<int>(d * 1000 + t * 100 + round),
                     failures, context);
            if (lane.y && kernel)
              runLane(lane, queue, kernel, 3, 3, round, failures, context);
            dpk_queue_wait(queue);
            dpk_queue_release(queue);
          }
          closeLane(lane);
          if (kernel)
            dpk_kernel_release(kernel);
        }
      });
  for (std::thread &thread : threads)
    thread.join();
  for (dpk_device_t device : handles)
    dpk_device_release(device);
  failures.report();
}

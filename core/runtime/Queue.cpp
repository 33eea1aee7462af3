// Queue.cpp - queue creation, dependency resolution and wait.
#include "runtime/Queue.h"

#include "runtime/Device.h"
#include "runtime/Kernel.h"
#include "runtime/RuntimePolicy.h"

namespace dpk::runtime {
namespace {

// Finished events are dropped from the wait list once it grows past this, so a queue that is
// never waited on does not grow without bound.
constexpr size_t PruneThreshold = 256;

/// Whether the backend's queue_finish reports failures of commands that have no event, as
/// plugin.h asks. The OpenCL plugin's is clFinish, which OpenCL does not require to report a
/// kernel's execution failure (that is in the command's event status), so its launches keep
/// their events.
bool backendFinishReportsFailures(const std::string &backend) { return backend != "opencl"; }

} // namespace

Queue::Queue(Device &device, dpk_pl_queue_t native, uint32_t flags)
    : RefCounted(HandleKind::Queue), device_(device), native_(native), flags_(flags),
      finishReportsFailures_(backendFinishReportsFailures(device.backend())) {}

Queue::~Queue() {
  submitted_.clear();
  (void)device_.plugin().table.queue_finish(native_);
  (void)device_.plugin().table.queue_release(native_);
}

Expected<Ref<Queue>> Queue::create(Device &device, uint32_t flags) {
  if (flags & ~uint32_t(DPK_PL_QUEUE_OUT_OF_ORDER | DPK_PL_QUEUE_PROFILING))
    return Error(DPK_ERROR_INVALID_ARGUMENT, "unknown queue flags 0x" + std::to_string(flags));
  Expected<dpk_pl_context_t> context = device.context();
  if (!context)
    return context.takeError();
  dpk_pl_queue_t native = nullptr;
  if (Error error = device.plugin().check(
          device.plugin().table.queue_create(&native, *context, flags),
          "creating a queue on " + device.describe()))
    return error;
  return Ref<Queue>::adopt(new Queue(device, native, flags));
}

Expected<Ref<Queue>> Queue::createFromNative(Device &device, const dpk_native_queue_t &native) {
  Expected<dpk_pl_context_t> context = device.context();
  if (!context)
    return context.takeError();
  dpk_pl_queue_t handle = nullptr;
  if (Error error = device.plugin().check(
          device.plugin().table.queue_create_from_native(&handle, *context, &native),
          "adopting a native queue on " + device.describe()))
    return error;
  return Ref<Queue>::adopt(new Queue(device, handle, DPK_PL_QUEUE_IN_ORDER));
}

Expected<std::vector<dpk_pl_event_t>>
Queue::resolveDependencies(const std::vector<Event *> &deps) {
  std::vector<dpk_pl_event_t> natives;
  for (Event *dep : deps) {
    if (dep->native() && dep->device() == &device_) {
      natives.push_back(dep->native());
      continue;
    }
    if (Error error = dep->wait())
      return Error(error.status(), "a dependency failed: " + error.message());
  }
  return natives;
}

Error Queue::drainBefore(const std::vector<Event *> &deps) {
  for (Event *dep : deps) {
    if (Error error = dep->wait())
      return Error(error.status(), "a dependency failed: " + error.message());
  }
  if (!inOrder())
    return Error::success();
  return wait();
}

void Queue::track(const Ref<Event> &event) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (submitted_.size() >= PruneThreshold) {
    std::vector<Ref<Event>> unfinished;
    for (Ref<Event> &old : submitted_) {
      Expected<dpk_event_status_t> status = old->status();
      // Failed events stay so the next wait reports them.
      if (status && *status == DPK_EVENT_COMPLETE)
        continue;
      unfinished.push_back(std::move(old));
    }
    submitted_ = std::move(unfinished);
  }
  submitted_.push_back(event);
  submittedCount_.store(submitted_.size());
}

bool Queue::needsPluginEvent(bool wanted) const {
  return wanted || diagnosticsEnabled(3) || !finishReportsFailures_;
}

void Queue::noteEventlessLaunch(const Kernel &kernel) {
  eventlessLaunches_.fetch_add(1);
  // The name is copied (under the lock: wait() reads it) only when another kernel launched
  // last; the kernel's serial, unlike its address, is never reused. With several threads
  // launching at once, "last" is any of theirs, as it would be with the copy under the lock.
  if (lastEventlessSerial_.load() == kernel.serial())
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  lastEventlessKernel_ = kernel.name();
  lastEventlessSerial_.store(kernel.serial());
}

Error Queue::wait() {
  std::vector<Ref<Event>> events;
  // Without tracked events (launches without an out-event) there is no list to take. An event
  // tracked by another thread after this load is one submitted after this wait began.
  if (submittedCount_.load() != 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    events.swap(submitted_);
    submittedCount_.store(0);
  }
  size_t eventless = eventlessLaunches_.exchange(0);
  Error first = Error::success();
  for (Ref<Event> &event : events) {
    Error error = event->wait();
    if (error && !first)
      first = std::move(error);
  }
  dpk_status_t finished = device_.plugin().table.queue_finish(native_);
  if (first)
    return first;
  if (finished == DPK_SUCCESS)
    return Error::success();
  if (!eventless)
    return device_.plugin().check(finished, "waiting for the queue on " + device_.describe());
  // Every event succeeded, so the failure is a launch without an event. Only the plugin may know
  // which one; name the last, as an event would have.
  // The name is read only now, on failure, so that a wait that succeeds copies no string; a
  // launch submitted by another thread since the wait began would be named instead.
  std::string lastEventless;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lastEventless = lastEventlessKernel_;
  }
  std::string who = "kernel '" + lastEventless + "'";
  if (eventless > 1)
    who += " (or one of the " + std::to_string(eventless - 1) +
           " launches before it without an event)";
  Error cause = device_.plugin().check(finished, "wait");
  return Error(cause.status(),
               who + " on device " + device_.describe() + " failed: " + cause.message());
}

Error Queue::nativeHandles(dpk_native_queue_t *out) {
  return device_.plugin().check(device_.plugin().table.queue_get_native(out, native_),
                                "getting the native handles of a queue on " +
                                    device_.describe());
}

} // namespace dpk::runtime

// Event.cpp - waiting on events and turning their failures into messages that say where.
#include "runtime/Event.h"

#include "runtime/Device.h"

namespace dpk::runtime {

Event::Event(Device *device, dpk_pl_event_t native, std::string command, std::string kernel)
    : RefCounted(HandleKind::Event), device_(device), native_(native),
      command_(std::move(command)), kernel_(std::move(kernel)) {}

Event::~Event() {
  if (native_ && device_)
    (void)device_->plugin().table.event_release(native_);
}

Ref<Event> Event::fromPlugin(Device &device, dpk_pl_event_t native, std::string command,
                             std::string kernel) {
  return Ref<Event>::adopt(new Event(&device, native, std::move(command), std::move(kernel)));
}

Ref<Event> Event::finished(Device *device, std::string command, std::string kernel,
                           Error outcome, uint64_t elapsedNs) {
  Ref<Event> event =
      Ref<Event>::adopt(new Event(device, nullptr, std::move(command), std::move(kernel)));
  event->outcome_ = outcome ? event->describeFailure(outcome) : Error::success();
  event->coreElapsedNs_ = elapsedNs;
  return event;
}

std::string Event::describe() const {
  std::string text = kernel_.empty() ? command_ : "kernel '" + kernel_ + "'";
  if (device_)
    text += " on device " + device_->describe();
  return text;
}

Error Event::describeFailure(const Error &cause) const {
  return Error(cause.status(), describe() + " failed: " + cause.message());
}

Error Event::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (outcome_)
    return Error(outcome_->status(), outcome_->message());
  lock.unlock();
  // Waiting happens without the lock so several threads may wait on one event.
  Error result = Error::success();
  if (native_) {
    dpk_status_t status = device_->plugin().table.event_wait(1, &native_);
    result = device_->plugin().check(status, "wait");
    if (result)
      result = describeFailure(result);
  }
  lock.lock();
  if (!outcome_)
    outcome_ = result;
  keepAlive_.clear();
  return Error(outcome_->status(), outcome_->message());
}

Expected<dpk_event_status_t> Event::status() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (outcome_)
      return *outcome_ ? DPK_EVENT_ERROR : DPK_EVENT_COMPLETE;
  }
  if (!native_)
    return DPK_EVENT_COMPLETE; // a plugin that returned no event finished synchronously
  dpk_event_status_t status = DPK_EVENT_QUEUED;
  if (Error error = device_->plugin().check(
          device_->plugin().table.event_status(&status, native_), "event status"))
    return error;
  return status;
}

Expected<uint64_t> Event::elapsedNs() {
  if (!profiled_)
    return Error(DPK_ERROR_UNSUPPORTED, describe() + " was not submitted to a profiling queue: "
                                                     "create the queue with profiling to time "
                                                     "its commands");
  if (Error error = wait())
    return error;
  if (!native_)
    return coreElapsedNs_;
  if (!device_->plugin().table.raw().event_elapsed_ns)
    return Error(DPK_ERROR_UNSUPPORTED, "the " + device_->backend() +
                                            " plugin does not report command times");
  uint64_t elapsed = 0;
  if (Error error = device_->plugin().check(
          device_->plugin().table.event_elapsed_ns(&elapsed, native_),
          "reading the time of " + describe()))
    return error;
  return elapsed;
}

void Event::keepAlive(std::shared_ptr<void> object) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (outcome_)
    return; // already finished: nothing needs it any more
  keepAlive_.push_back(std::move(object));
}

} // namespace dpk::runtime

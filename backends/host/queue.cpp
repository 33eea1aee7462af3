// queue.cpp - the dispatcher thread of a host queue and the queue entry points.
#include "queue.hpp"

#include "NativeQueue.h"
#include "PluginSupport.h"
#include "device.hpp"

namespace plugin = dpk::plugin;
using dpk::host::Command;
using dpk::host::LaunchCommand;

namespace dpk::host {

std::string Command::description() const {
  switch (kind) {
  case Kind::Launch:
    return "launch of '" + std::string(launch.entry.name) + "'";
  case Kind::Function:
    return what;
  }
  return what;
}

} // namespace dpk::host

dpk_pl_queue_s::dpk_pl_queue_s(uint32_t queueFlags)
    : flags(queueFlags), dispatcher([this] { dispatchLoop(); }) {}

dpk_pl_queue_s::~dpk_pl_queue_s() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wakeDispatcher.notify_all();
  dispatcher.join();
}

// A command whose dependencies are complete, submitted to an idle queue, runs right here on
// the submitting thread: on a CPU device the caller would only wait for the cores the command
// uses anyway, and skipping the hand-off to the dispatcher (two thread wake-ups) is most of the
// cost of a small launch. Anything that has to wait goes to the dispatcher, so submission
// order is kept either way.
static bool dependenciesComplete(const Command &command) {
  for (dpk_pl_event_t dependency : command.dependencies) {
    std::lock_guard<std::mutex> lock(dependency->mutex);
    if (dependency->status != DPK_EVENT_COMPLETE)
      return false;
  }
  return true;
}

void dpk_pl_queue_s::submit(Command &&command) {
  std::unique_lock<std::mutex> lock(mutex);
  if (!pending.empty() || running || !dependenciesComplete(command)) {
    pending.push_back(std::move(command));
    lock.unlock();
    wakeDispatcher.notify_one();
    return;
  }
  running = true;
  lock.unlock();
  execute(command);
  lock.lock();
  running = false;
  if (pending.empty())
    idle.notify_all();
  else
    wakeDispatcher.notify_one();
}

dpk_status_t dpk_pl_queue_s::finish() {
  std::unique_lock<std::mutex> lock(mutex);
  idle.wait(lock, [&] { return pending.empty() && !running; });
  dpk_status_t status = firstError;
  std::string cause = std::move(firstErrorCause);
  firstError = DPK_SUCCESS;
  firstErrorCause.clear();
  lock.unlock();
  if (status != DPK_SUCCESS)
    return plugin::fail(status, cause);
  return DPK_SUCCESS;
}

// Runs the command's own work: a launch's work-groups or a function command's function.
static dpk_status_t runBody(Command &command, std::string &cause) {
  switch (command.kind) {
  case Command::Kind::Launch: {
    const LaunchCommand &launch = command.launch;
    dpk::host::runLaunch(launch.entry, launch.shape, launch.arguments, launch.cost);
    return DPK_SUCCESS;
  }
  case Command::Kind::Function:
    return command.run(cause);
  }
  return DPK_ERROR_DEVICE;
}

// Runs one command: waits for its dependencies, then its body. A failed dependency fails the
// command without running it, so no output is computed from inputs that were never produced.
static dpk_status_t runCommand(Command &command, std::string &cause) {
  for (dpk_pl_event_t dependency : command.dependencies) {
    if (dependency->wait() == DPK_SUCCESS)
      continue;
    std::lock_guard<std::mutex> lock(dependency->mutex);
    cause = command.description() + " not run: a dependency failed: " + dependency->cause;
    return DPK_ERROR_DEVICE;
  }
  if (command.event)
    command.event->markRunning();
  try {
    dpk_status_t status = runBody(command, cause);
    if (status != DPK_SUCCESS && cause.empty())
      cause = command.description() + " failed";
    return status;
  } catch (const std::bad_alloc &) {
    cause = command.description() + ": out of host memory";
    return DPK_ERROR_OUT_OF_HOST_MEMORY;
  } catch (const std::exception &e) {
    cause = command.description() + ": " + e.what();
    return DPK_ERROR_DEVICE;
  }
}

// Runs a command and completes its event; records the queue's first failure. Called with the
// queue unlocked and `running` set.
void dpk_pl_queue_s::execute(Command &command) {
  std::string cause;
  dpk_status_t status = runCommand(command, cause);
  if (command.event) {
    command.event->complete(status, cause);
    command.event->release();
  }
  for (dpk_pl_event_t dependency : command.dependencies)
    dependency->release();
  if (status == DPK_SUCCESS)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  if (firstError == DPK_SUCCESS) {
    firstError = status;
    firstErrorCause = cause;
  }
}

void dpk_pl_queue_s::dispatchLoop() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    // A command running inline on a submitting thread must finish before the next one starts.
    wakeDispatcher.wait(lock, [&] { return (stopping && !running) || (!pending.empty() && !running); });
    if (pending.empty()) // stopping and drained
      return;
    Command command = std::move(pending.front());
    pending.pop_front();
    running = true;
    lock.unlock();
    execute(command);
    lock.lock();
    running = false;
    if (pending.empty())
      idle.notify_all();
  }
}

namespace dpk::host {

dpk_status_t queueCreate(dpk_pl_queue_t *out, dpk_pl_context_t context, uint32_t flags) {
  *out = new dpk_pl_queue_s(flags);
  return DPK_SUCCESS;
}

dpk_status_t queueRelease(dpk_pl_queue_t queue) {
  delete queue;
  return DPK_SUCCESS;
}

dpk_status_t queueFinish(dpk_pl_queue_t queue) {
  return queue->finish();
}

// No native queue: an extension waits for the dpk queue and runs its work before returning,
// in the arena dpk's kernels use if it wants the same threads.
dpk_status_t queueCreateFromNative(dpk_pl_queue_t *, dpk_pl_context_t, const dpk_native_queue_t *) {
  return plugin::fail(DPK_ERROR_UNSUPPORTED,
                      "queue_create_from_native: the host backend has no native queues to adopt");
}

dpk_status_t queueGetNative(dpk_native_queue_t *out, dpk_pl_queue_t) {
  dpk_native_queue_t handles = plugin::emptyNativeQueue(
      DPK_NATIVE_API_HOST, DPK_NATIVE_MEMORY_HOST, DPK_NATIVE_ORDER_WAIT_THEN_RUN);
  handles.arena = &hostDevice()->arena;
  return plugin::copyNativeQueue(handles, out);
}

} // namespace dpk::host

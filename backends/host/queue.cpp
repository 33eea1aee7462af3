// queue.cpp - the dispatcher thread of a host queue and the queue entry points.
#include "queue.hpp"

#include "PluginSupport.h"

namespace plugin = dpk::plugin;
using dpk::host::Command;

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

void dpk_pl_queue_s::submit(Command command) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    pending.push_back(std::move(command));
  }
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

// Runs one command: waits for its dependencies, then its body. A failed dependency fails the
// command without running it, so no output is computed from inputs that were never produced.
static dpk_status_t runCommand(Command &command, std::string &cause) {
  for (dpk_pl_event_t dependency : command.dependencies) {
    if (dependency->wait() == DPK_SUCCESS)
      continue;
    std::lock_guard<std::mutex> lock(dependency->mutex);
    cause = command.what + " not run: a dependency failed: " + dependency->cause;
    return DPK_ERROR_DEVICE;
  }
  if (command.event)
    command.event->markRunning();
  try {
    dpk_status_t status = command.run(cause);
    if (status != DPK_SUCCESS && cause.empty())
      cause = command.what + " failed";
    return status;
  } catch (const std::bad_alloc &) {
    cause = command.what + ": out of host memory";
    return DPK_ERROR_OUT_OF_HOST_MEMORY;
  } catch (const std::exception &e) {
    cause = command.what + ": " + e.what();
    return DPK_ERROR_DEVICE;
  }
}

void dpk_pl_queue_s::dispatchLoop() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    wakeDispatcher.wait(lock, [&] { return stopping || !pending.empty(); });
    if (pending.empty()) // stopping and drained
      return;
    Command command = std::move(pending.front());
    pending.pop_front();
    running = true;
    lock.unlock();

    std::string cause;
    dpk_status_t status = runCommand(command, cause);
    if (command.event) {
      command.event->complete(status, cause);
      command.event->release();
    }
    for (dpk_pl_event_t dependency : command.dependencies)
      dependency->release();

    lock.lock();
    running = false;
    if (status != DPK_SUCCESS && firstError == DPK_SUCCESS) {
      firstError = status;
      firstErrorCause = cause;
    }
    if (pending.empty())
      idle.notify_all();
  }
}

namespace dpk::host {

dpk_status_t queueCreate(dpk_pl_context_t context, uint32_t flags, dpk_pl_queue_t *out) {
  return plugin::guardEntry("queue_create", [&] {
    if (!context || !out)
      return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "queue_create: null argument");
    *out = new dpk_pl_queue_s(flags);
    return DPK_SUCCESS;
  });
}

dpk_status_t queueRelease(dpk_pl_queue_t queue) {
  return plugin::guardEntry("queue_release", [&] {
    if (!queue)
      return plugin::fail(DPK_ERROR_INVALID_HANDLE, "queue_release: null queue");
    delete queue;
    return DPK_SUCCESS;
  });
}

dpk_status_t queueFinish(dpk_pl_queue_t queue) {
  return plugin::guardEntry("queue_finish", [&] {
    if (!queue)
      return plugin::fail(DPK_ERROR_INVALID_HANDLE, "queue_finish: null queue");
    return queue->finish();
  });
}

} // namespace dpk::host

// Queue.h - a command queue on one device, and how dependencies between devices are honoured.
//
// Commands go to the device's plugin queue (in-order by default, out-of-order on request).
// Dependencies on events of the same device are handed to the plugin. Dependencies on events of
// another device (or of commands the core ran itself) are resolved on the host: the submitting
// thread waits for them before it submits. That keeps plugins ignorant of each other at the
// price of blocking the submitter, which only cross-device chains pay (docs/architecture.md).
//
// Every submitted event is remembered until the next wait, so dpk_queue_wait can name the
// kernel and device of the first asynchronous failure. A launch nobody asked an event for gets
// none (an event costs the plugin a record per launch and a wait per event, which on a GPU is
// most of an empty launch's overhead): the queue only counts such launches and remembers the
// last one's kernel, and wait() learns of their failures from the plugin's queue_finish, which
// reports the queue's first asynchronous error (plugin.h). A copy nobody asked an event for
// gets none either (Transfer.h: a read to the host is a copy and a wait).
#ifndef DPK_CORE_RUNTIME_QUEUE_H
#define DPK_CORE_RUNTIME_QUEUE_H

#include "runtime/Event.h"
#include "runtime/RefCounted.h"
#include "support/Error.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace dpk::runtime {

class Device;
class Kernel;

class Queue final : public RefCounted {
public:
  /// flags: the plugin ABI's DPK_PL_QUEUE_* bits (frontends translate their own).
  static Expected<Ref<Queue>> create(Device &device, uint32_t flags);
  /// A queue over a native queue someone else made (a CUDA stream of CuPy, PyTorch, ...): dpk's
  /// commands go to it, in order; it is borrowed, never destroyed (docs/extensions.md).
  static Expected<Ref<Queue>> createFromNative(Device &device, const dpk_native_queue_t &native);

  Device &device() const { return device_; }
  dpk_pl_queue_t native() const { return native_; }
  uint32_t flags() const { return flags_; }
  bool inOrder() const { return (flags_ & DPK_PL_QUEUE_OUT_OF_ORDER) == 0; }

  /// The plugin events of `deps` that this queue's plugin can wait on itself. Others are waited
  /// for here, on the host; a failed dependency fails the submission.
  Expected<std::vector<dpk_pl_event_t>> resolveDependencies(const std::vector<Event *> &deps);
  /// Makes the core's own work ordered after everything submitted so far (in-order queues) and
  /// after `deps`: waits for them on the host.
  Error drainBefore(const std::vector<Event *> &deps);
  /// Remembers a submitted command for wait().
  void track(const Ref<Event> &event);
  /// Whether a launch without an out-event may skip the plugin event: true when the plugin's
  /// queue_finish reports asynchronous failures of commands that have no event.
  bool finishReportsFailures() const { return finishReportsFailures_; }
  /// Whether a command asks its plugin for an event: when the caller wants one (`wanted`), when
  /// diagnostics level 3 times each command, or when queue_finish would not report the
  /// command's asynchronous failure. An event costs a record per command and a wait per event
  /// (most of an empty launch on a GPU), so it is asked for only when someone can use it.
  bool needsPluginEvent(bool wanted) const;
  /// Remembers a launch of `kernel` submitted without a plugin event, so that a failure
  /// queue_finish reports at the next wait can name it.
  void noteEventlessLaunch(const Kernel &kernel);
  /// Waits for every submitted command; the first failure names device, kernel and cause.
  Error wait();
  /// The plugin queue's native handles (out->struct_size set by the caller), for native code
  /// that enqueues its own work in order with this queue's (docs/extensions.md).
  Error nativeHandles(dpk_native_queue_t *out);

private:
  Queue(Device &device, dpk_pl_queue_t native, uint32_t flags);
  ~Queue() override;

  Device &device_;
  dpk_pl_queue_t native_;
  uint32_t flags_;
  bool finishReportsFailures_;
  // Launches and waits read the counts below without the lock, which guards the lists and the
  // name: a lock and unlock cost about as much as the rest of the queue's part of a launch.
  std::mutex mutex_;
  std::vector<Ref<Event>> submitted_;
  std::atomic<size_t> submittedCount_{0};       // submitted_.size(), for wait()
  std::atomic<size_t> eventlessLaunches_{0};    // since the last wait
  std::string lastEventlessKernel_;
  std::atomic<uint64_t> lastEventlessSerial_{0}; // Kernel::serial() of lastEventlessKernel_
};

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_QUEUE_H

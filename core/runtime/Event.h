// Event.h - the completion of one command: a plugin event, or a command the core ran itself.
//
// An event remembers where its command ran (device), what it was (command: "launch", "copy",
// "fill") and which kernel, so that an asynchronous failure reported at wait time names the
// device, the kernel and the cause. The outcome is kept once known: every later wait on the
// same event returns the same error.
#ifndef DPK_CORE_RUNTIME_EVENT_H
#define DPK_CORE_RUNTIME_EVENT_H

#include "dpk/plugin.h"
#include "runtime/RefCounted.h"
#include "support/Error.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dpk::runtime {

class Device;

class Event final : public RefCounted {
public:
  /// Adopts a plugin event of `device`.
  static Ref<Event> fromPlugin(Device &device, dpk_pl_event_t native, std::string command,
                               std::string kernel);
  /// A command the core finished itself (staged copy, host fallback), with its outcome.
  static Ref<Event> finished(Device *device, std::string command, std::string kernel,
                             Error outcome, uint64_t elapsedNs = 0);

  Device *device() const { return device_; }
  /// Null for core-run commands.
  dpk_pl_event_t native() const { return native_; }
  const std::string &command() const { return command_; }
  const std::string &kernel() const { return kernel_; }
  /// "kernel 'k' on device 'name' (cuda:gpu:0)" / "copy on device ...".
  std::string describe() const;

  /// Blocks until the command finished; its failure names device, kernel and cause.
  Error wait();
  Expected<dpk_event_status_t> status();
  /// The command's execution time. DPK_ERROR_UNSUPPORTED unless the event is profiled: plugins
  /// differ in what they report for a queue without profiling (the host times every command,
  /// OpenCL refuses, CUDA has no timing events), so the core answers for all of them.
  Expected<uint64_t> elapsedNs();
  /// Marks the event as one of a queue created with profiling (DPK_PL_QUEUE_PROFILING); set
  /// by the frontend that hands the event out.
  void setProfiled(bool profiled) { profiled_ = profiled; }
  /// Keeps `object` alive until the command finished (staging buffers).
  void keepAlive(std::shared_ptr<void> object);

private:
  Event(Device *device, dpk_pl_event_t native, std::string command, std::string kernel);
  ~Event() override;
  Error describeFailure(const Error &cause) const;

  Device *device_;
  dpk_pl_event_t native_;
  std::string command_;
  std::string kernel_;

  std::mutex mutex_;
  std::optional<Error> outcome_; // set once the command finished
  uint64_t coreElapsedNs_ = 0;
  bool profiled_ = false;
  std::vector<std::shared_ptr<void>> keepAlive_;
};

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_EVENT_H

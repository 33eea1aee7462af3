// queue.hpp - a host queue: one dispatcher thread running commands after their dependencies.
//
// Commands run one at a time in submission order; each command itself runs in parallel (a
// launch spreads its work-groups over the task arena). Running an out-of-order queue in order
// is a valid schedule, and keeps the dispatcher simple; dependencies on other queues' events are
// waited for before the command starts. A command submitted to an idle queue with nothing to
// wait for runs inline on the submitting thread (see submit()).
#ifndef DPK_BACKENDS_HOST_QUEUE_HPP
#define DPK_BACKENDS_HOST_QUEUE_HPP

#include "entries.hpp"
#include "event.hpp"
#include "inline_array.hpp"
#include "program.hpp"
#include "work_groups.hpp"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace dpk::host {

/// A kernel launch: what runLaunch needs. The program is retained, so `entry` (the function
/// and the name failures give) stays valid after the caller released its kernel.
struct LaunchCommand {
  LaunchCommand() = default;
  LaunchCommand(LaunchCommand &&other) noexcept
      : program(std::exchange(other.program, nullptr)), entry(other.entry), shape(other.shape),
        arguments(std::move(other.arguments)), cost(other.cost) {}
  LaunchCommand &operator=(LaunchCommand &&) = delete;
  ~LaunchCommand() {
    if (program)
      program->release();
  }

  dpk_pl_program_t program = nullptr; // retained
  dpk_host_kernel_entry_t entry{};
  GroupShape shape{};
  ArgumentPack arguments;
  LaunchCost *cost = nullptr; // the program entry's
};

/// A unit of work: a kernel launch, or a function (copies, fills, GEMMs). A launch is the
/// common command and carries its own fields, so submitting one allocates nothing and formats
/// no text (its description is built only when a failure needs it).
struct Command {
  enum class Kind { Launch, Function };

  Kind kind = Kind::Function;
  InlineArray<dpk_pl_event_t, 4> dependencies; // retained; released after the command ran
  dpk_pl_event_t event = nullptr; // retained for the queue; null when the caller wants none
  LaunchCommand launch;           // Kind::Launch
  // Kind::Function: `run` returns a status and, on failure, fills `cause`; `what` ("copy of
  // 4096 bytes") names the command in failures.
  std::string what;
  std::function<dpk_status_t(std::string &cause)> run;

  /// What failures name: "launch of 'vadd'", "copy of 4096 bytes".
  std::string description() const;
};

} // namespace dpk::host

struct dpk_pl_queue_s {
  explicit dpk_pl_queue_s(uint32_t flags);
  ~dpk_pl_queue_s(); // drains pending commands, then joins the dispatcher

  /// Takes ownership of the command; the event (if any) is completed when it ran.
  void submit(dpk::host::Command &&command);
  /// Waits until every submitted command ran; returns and clears the first failure since the
  /// previous finish (the cause goes to the thread's last error).
  dpk_status_t finish();

  uint32_t flags;

private:
  void dispatchLoop();
  void execute(dpk::host::Command &command);

  std::mutex mutex;
  std::condition_variable wakeDispatcher;
  std::condition_variable idle;
  std::deque<dpk::host::Command> pending;
  bool running = false; // a command is executing
  bool stopping = false;
  dpk_status_t firstError = DPK_SUCCESS;
  std::string firstErrorCause;
  std::thread dispatcher;
};

namespace dpk::host {
} // namespace dpk::host

#endif

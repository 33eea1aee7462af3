// event.hpp - dpk events over Level Zero events, and the command bookkeeping that orders a
// queue's commands.
//
// Every command signals an event of its own (one event pool of one event each, host visible,
// with kernel timestamps on profiling queues), and waits on the previous command's event and on
// its dependencies. The queue keeps each event alive until the device is done with it, so a
// dpk event may be released at any time.
#ifndef DPK_BACKENDS_LEVEL_ZERO_EVENT_HPP
#define DPK_BACKENDS_LEVEL_ZERO_EVENT_HPP

#include "context.hpp"
#include "entries.hpp"

#include "CommandKind.h"

#include <memory>
#include <string>
#include <vector>

namespace dpk::level_zero {

struct Queue;

using plugin::CommandKind;

struct Event {
  Context *context = nullptr; // holds a reference: the pool belongs to the context
  const Device *device = nullptr;
  ze_event_pool_handle_t pool = nullptr;
  ze_event_handle_t native = nullptr;
  bool timestamps = false;
  CommandKind kind = CommandKind::Kernel;
  size_t bytes = 0;
  std::string kernel;

  Event() = default;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  /// "kernel 'vadd' on Level Zero device 0 (...)".
  std::string describe() const;
};

/// What a dpk_pl_event_t points to: one owner of the shared event.
struct EventHandle {
  std::shared_ptr<Event> event;
};

inline Event &toEvent(dpk_pl_event_t handle) {
  return *reinterpret_cast<EventHandle *>(handle)->event;
}

/// A command being enqueued: its event and what it waits for.
struct Command {
  std::shared_ptr<Event> event;
  std::vector<ze_event_handle_t> waits;
  std::vector<std::shared_ptr<Event>> keepAlive;
};

/// Creates the command's event and its wait list (dependencies + the queue's previous command).
/// The caller holds queue.lock from here to commitCommand.
dpk_status_t prepareCommand(Queue &queue, uint32_t numDeps, const dpk_pl_event_t *deps,
                            CommandKind kind, size_t bytes, const std::string &kernel,
                            Command &out);
/// After a successful append: makes the event the queue's latest and hands out a handle.
dpk_status_t commitCommand(Queue &queue, Command &command, dpk_pl_event_t *outEvent);


} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_EVENT_HPP

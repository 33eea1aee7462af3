// queue.hpp - a dpk queue: one immediate command list on the device's compute engine group.
//
// Immediate command lists submit each command as it is appended: dpk hands the plugin one
// command at a time and expects it to start without a separate flush, so the
// create/append/close/execute cycle of regular command lists would only add latency and
// bookkeeping. API 1.4 (this loader's headers) has no in-order flag, so ordering comes from
// events: each command waits on the previous one's event. Out-of-order queues are ordered the
// same way, which is one of the orders they allow.
#ifndef DPK_BACKENDS_LEVEL_ZERO_QUEUE_HPP
#define DPK_BACKENDS_LEVEL_ZERO_QUEUE_HPP

#include "event.hpp"
#include "entries.hpp"

#include <mutex>

namespace dpk::level_zero {

struct Queue {
  Context *context = nullptr; // holds a reference
  ze_command_list_handle_t list = nullptr;
  bool profiling = false;
  std::mutex lock; // guards the list (appends), last and inFlight
  std::shared_ptr<Event> last;
  /// Events the device may still signal or wait on; pruned as they complete.
  std::vector<std::shared_ptr<Event>> inFlight;
};

inline Queue *toQueue(dpk_pl_queue_t handle) { return reinterpret_cast<Queue *>(handle); }


} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_QUEUE_HPP

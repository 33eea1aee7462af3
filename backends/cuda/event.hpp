// event.hpp - a dpk event: the CUDA event recorded after one command (and, on profiling queues,
// another recorded before it), with what the command was, so a failure can say so.
#ifndef DPK_BACKENDS_CUDA_EVENT_HPP
#define DPK_BACKENDS_CUDA_EVENT_HPP

#include "queue.hpp"
#include "entries.hpp"

#include "CommandKind.h"

#include <memory>
#include <string>

namespace dpk::cuda {

using plugin::CommandKind;

struct Event {
  const Device *device = nullptr;
  Context *context = nullptr; // holds a reference: the CUDA events belong to it
  CUevent start = nullptr;    // only on profiling queues
  CUevent end = nullptr;      // from the context's spares unless profiling
  bool timed = false;
  CommandKind kind = CommandKind::Kernel;
  size_t bytes = 0; // copies and fills
  /// The command's kernel, or for copies and fills the last kernel launched on the queue before
  /// them: a fault raised by that kernel surfaces at this event.
  std::shared_ptr<const std::string> kernel;

  Event() = default;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  /// "kernel 'vadd' on CUDA device 0 (NVIDIA H100 80GB HBM3)".
  std::string describe() const;
};

inline Event *toEvent(dpk_pl_event_t handle) { return reinterpret_cast<Event *>(handle); }

/// Creates the event of a command about to be enqueued on `queue`; on a profiling queue it
/// records the start now. Returns null in *out when the caller wants no event.
dpk_status_t beginCommandEvent(Queue &queue, bool wanted, CommandKind kind, size_t bytes,
                               const std::shared_ptr<const std::string> &kernel,
                               std::unique_ptr<Event> &out);
/// Records the end of the command and hands the event to the caller (or drops it).
dpk_status_t endCommandEvent(Queue &queue, std::unique_ptr<Event> &event, dpk_pl_event_t *outEvent);
/// Makes the queue's stream wait for every dependency.
dpk_status_t waitForDependencies(Queue &queue, uint32_t numDeps, const dpk_pl_event_t *deps);


} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_EVENT_HPP

// Transfer.h - copies and fills on a queue, including copies from or to another device.
//
// A copy whose both ends the queue's plugin can reach (host memory, allocations of the queue's
// device, shared and host allocations of any device) goes straight to the plugin. Device memory
// of another device is staged through a host buffer with that device's utility queue; such a
// copy completes before the call returns (the returned event is already finished).
#ifndef DPK_CORE_RUNTIME_TRANSFER_H
#define DPK_CORE_RUNTIME_TRANSFER_H

#include "runtime/Event.h"
#include "support/Error.h"

#include <vector>

namespace dpk::runtime {

class Queue;

/// wantEvent false: the caller never asks about this copy (the C API's out_event is NULL), so
/// where the plugin's queue_finish reports asynchronous failures the plugin makes no event for
/// it and the returned Ref is empty; the queue's wait reports a failure (Queue.h). A read of a
/// reduction's result to the host is a copy and a wait, and the event's record and wait were a
/// microsecond or two of it on a GPU.
Expected<Ref<Event>> enqueueCopy(Queue &queue, void *dst, const void *src, size_t bytes,
                                 const std::vector<Event *> &deps, bool wantEvent = true);
Expected<Ref<Event>> enqueueFill(Queue &queue, void *dst, const void *pattern,
                                 size_t patternSize, size_t bytes,
                                 const std::vector<Event *> &deps);

/// Synchronous copy with a device's utility queue (used for staging and fallback migration).
Error copyOnDevice(Device &device, void *dst, const void *src, size_t bytes);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_TRANSFER_H

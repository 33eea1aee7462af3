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

Expected<Ref<Event>> enqueueCopy(Queue &queue, void *dst, const void *src, size_t bytes,
                                 const std::vector<Event *> &deps);
Expected<Ref<Event>> enqueueFill(Queue &queue, void *dst, const void *pattern,
                                 size_t patternSize, size_t bytes,
                                 const std::vector<Event *> &deps);

/// Synchronous copy with a device's utility queue (used for staging and fallback migration).
Error copyOnDevice(Device &device, void *dst, const void *src, size_t bytes);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_TRANSFER_H

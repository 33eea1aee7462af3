// Transfer.cpp - copies and fills, with staging for memory of other devices.
#include "runtime/Transfer.h"

#include "runtime/Device.h"
#include "runtime/Queue.h"
#include "runtime/Registry.h"
#include "runtime/RuntimePolicy.h"

#include <chrono>
#include <cstring>

namespace dpk::runtime {
namespace {

/// Where one end of a transfer lives, seen from a queue's device.
struct Endpoint {
  std::optional<Allocation> allocation;
  /// Device memory of another device that the queue's plugin cannot copy directly: staged.
  bool foreign = false;
  Device *owner() const { return allocation ? allocation->device : nullptr; }
  bool onDevice() const { return allocation && allocation->kind == DPK_MEM_DEVICE; }
};

/// Whether the queue device's plugin copies `other`'s device memory itself (both devices of one
/// plugin that says so: CUDA GPUs with unified addressing copy peer to peer).
bool peerCopies(const Device &other, const Device &queueDevice) {
  return &other.plugin() == &queueDevice.plugin() &&
         (queueDevice.props().aspects & DPK_ASPECT_PEER_COPY) &&
         (other.props().aspects & DPK_ASPECT_PEER_COPY);
}

Expected<Endpoint> locate(const void *address, size_t bytes, const Device &queueDevice,
                          const char *role) {
  Endpoint endpoint;
  endpoint.allocation = Registry::get().allocations().find(address);
  if (!endpoint.allocation)
    return endpoint; // host memory dpk did not allocate
  const Allocation &allocation = *endpoint.allocation;
  size_t offset = static_cast<const char *>(address) - static_cast<const char *>(allocation.base);
  if (bytes > allocation.size - offset)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 std::string(role) + " range of " + std::to_string(bytes) + " bytes at offset " +
                     std::to_string(offset) + " overruns its allocation of " +
                     std::to_string(allocation.size) + " bytes");
  endpoint.foreign = allocation.kind == DPK_MEM_DEVICE && allocation.device != &queueDevice &&
                     !peerCopies(*allocation.device, queueDevice);
  return endpoint;
}

const char *directionOf(const Endpoint &src, const Endpoint &dst) {
  bool fromDevice = src.onDevice();
  bool toDevice = dst.onDevice();
  if (fromDevice && toDevice)
    return "d2d";
  if (fromDevice)
    return "d2h";
  if (toDevice)
    return "h2d";
  return "h2h";
}

void reportTransfer(const Queue &queue, const char *direction, size_t bytes, double ms,
                    bool staged) {
  emitDiagnostic(3, "transfer",
                 {{"device", queue.device().filterString()},
                  {"direction", direction},
                  {"bytes", static_cast<unsigned long long>(bytes)},
                  {"staged", staged},
                  {"time_ms", ms}});
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

Error copyOnDevice(Device &device, void *dst, const void *src, size_t bytes) {
  Expected<dpk_pl_queue_t> queue = device.utilityQueue();
  if (!queue)
    return queue.takeError();
  const ValidatedDispatch &table = device.plugin().table;
  dpk_pl_event_t event = nullptr;
  if (Error error = device.plugin().check(table.enqueue_copy(&event, *queue, dst, src, bytes, 0, nullptr),
                                          "copying " + std::to_string(bytes) + " bytes on " +
                                              device.describe()))
    return error;
  Error error = device.plugin().check(table.event_wait(1, &event),
                                      "copying " + std::to_string(bytes) + " bytes on " +
                                          device.describe());
  (void)table.event_release(event);
  return error;
}

Expected<Ref<Event>> enqueueCopy(Queue &queue, void *dst, const void *src, size_t bytes,
                                 const std::vector<Event *> &deps, bool wantEvent) {
  Device &device = queue.device();
  Expected<Endpoint> source = locate(src, bytes, device, "copy source");
  if (!source)
    return source.takeError();
  Expected<Endpoint> destination = locate(dst, bytes, device, "copy destination");
  if (!destination)
    return destination.takeError();
  const char *direction = directionOf(*source, *destination);
  bool timed = diagnosticsEnabled(3);
  auto start = std::chrono::steady_clock::now();

  if (!source->foreign && !destination->foreign) {
    Expected<std::vector<dpk_pl_event_t>> natives = queue.resolveDependencies(deps);
    if (!natives)
      return natives.takeError();
    bool pluginEvent = queue.needsPluginEvent(wantEvent);
    dpk_pl_event_t native = nullptr;
    dpk_status_t status = device.plugin().table.enqueue_copy(
        pluginEvent ? &native : nullptr, queue.native(), dst, src, bytes,
        static_cast<uint32_t>(natives->size()), natives->data());
    if (status != DPK_SUCCESS)
      return device.plugin().check(status, "copying " + std::to_string(bytes) + " bytes on " +
                                               device.describe());
    if (!pluginEvent)
      return Ref<Event>();
    Ref<Event> event = Event::fromPlugin(device, native, "copy", "");
    queue.track(event);
    if (timed) {
      Error waited = event->wait(); // level 3 times each transfer
      (void)waited;                 // reported again at the caller's wait
      reportTransfer(queue, direction, bytes, millisecondsSince(start), false);
    }
    return event;
  }

  // Staged through host memory: ordered after everything before it, finished on return.
  if (Error error = queue.drainBefore(deps))
    return error;
  auto staging = std::shared_ptr<char[]>(new char[bytes == 0 ? 1 : bytes]);
  Error outcome = Error::success();
  if (source->foreign)
    outcome = copyOnDevice(*source->owner(), staging.get(), src, bytes);
  else
    outcome = copyOnDevice(device, staging.get(), src, bytes);
  if (!outcome) {
    if (destination->foreign)
      outcome = copyOnDevice(*destination->owner(), dst, staging.get(), bytes);
    else
      outcome = copyOnDevice(device, dst, staging.get(), bytes);
  }
  if (timed)
    reportTransfer(queue, direction, bytes, millisecondsSince(start), true);
  if (outcome)
    return outcome;
  Ref<Event> event = Event::finished(&device, "copy", "", Error::success());
  return event;
}

Expected<Ref<Event>> enqueueFill(Queue &queue, void *dst, const void *pattern,
                                 size_t patternSize, size_t bytes,
                                 const std::vector<Event *> &deps) {
  Device &device = queue.device();
  if (patternSize == 0 || (patternSize & (patternSize - 1)) != 0 || patternSize > 128)
    return Error(DPK_ERROR_INVALID_ARGUMENT, "fill pattern size " + std::to_string(patternSize) +
                                                 " is not a power of two up to 128");
  if (bytes % patternSize != 0)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "fill of " + std::to_string(bytes) + " bytes is not a multiple of the " +
                     std::to_string(patternSize) + "-byte pattern");
  Expected<Endpoint> destination = locate(dst, bytes, device, "fill destination");
  if (!destination)
    return destination.takeError();
  if (destination->foreign)
    return Error(DPK_ERROR_PLACEMENT, "fill destination is device memory of " +
                                          destination->owner()->describe() +
                                          ", but the queue is on " + device.describe());
  Expected<std::vector<dpk_pl_event_t>> natives = queue.resolveDependencies(deps);
  if (!natives)
    return natives.takeError();
  dpk_pl_event_t native = nullptr;
  dpk_status_t status = device.plugin().table.enqueue_fill(
      &native, queue.native(), dst, pattern, patternSize, bytes, static_cast<uint32_t>(natives->size()),
      natives->data());
  if (status != DPK_SUCCESS)
    return device.plugin().check(status, "filling " + std::to_string(bytes) + " bytes on " +
                                             device.describe());
  Ref<Event> event = Event::fromPlugin(device, native, "fill", "");
  queue.track(event);
  return event;
}

} // namespace dpk::runtime

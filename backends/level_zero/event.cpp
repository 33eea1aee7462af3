// event.cpp - event creation around commands, waits, status and kernel timestamps.
#include "event.hpp"

#include "queue.hpp"

#include <algorithm>
#include <cstdint>

namespace dpk::level_zero {

Event::~Event() {
  if (native)
    zeEventDestroy(native);
  if (pool)
    zeEventPoolDestroy(pool);
  if (context)
    releaseContextRef(context);
}

std::string Event::describe() const {
  return plugin::describeCommand(kind, bytes, kernel) + " on " + device->label();
}

namespace {

/// One pool of one event: simple and always correct; a pool allocator shared by a context's
/// commands is the optimization to make once it can be measured on Intel hardware.
dpk_status_t createEvent(Queue &queue, std::shared_ptr<Event> &out) {
  auto event = std::make_shared<Event>();
  Context &context = *queue.context;
  ze_event_pool_desc_t poolDesc{};
  poolDesc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
  poolDesc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
  if (queue.profiling)
    poolDesc.flags |= ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
  poolDesc.count = 1;
  ze_device_handle_t device = context.device->native;
  ZE_RETURN_ON_FAILURE(zeEventPoolCreate(context.native, &poolDesc, 1, &device, &event->pool),
                       "zeEventPoolCreate");
  context.retain();
  event->context = &context;
  event->device = context.device;
  event->timestamps = queue.profiling;
  ze_event_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
  desc.index = 0;
  desc.signal = ZE_EVENT_SCOPE_FLAG_HOST; // results visible to the host when signalled
  desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
  ZE_RETURN_ON_FAILURE(zeEventCreate(event->pool, &desc, &event->native), "zeEventCreate");
  out = std::move(event);
  return DPK_SUCCESS;
}

} // namespace

dpk_status_t prepareCommand(Queue &queue, uint32_t numDeps, const dpk_pl_event_t *deps,
                            CommandKind kind, size_t bytes, const std::string &kernel,
                            Command &out) {
  // Drop what the device is done with, so a long-running queue does not grow without bound.
  queue.inFlight.erase(std::remove_if(queue.inFlight.begin(), queue.inFlight.end(),
                                      [&](const std::shared_ptr<Event> &e) {
                                        return e != queue.last &&
                                               zeEventQueryStatus(e->native) == ZE_RESULT_SUCCESS;
                                      }),
                       queue.inFlight.end());
  RETURN_ON_FAILURE(createEvent(queue, out.event));
  out.event->kind = kind;
  out.event->bytes = bytes;
  out.event->kernel = kernel;
  out.waits.clear();
  out.keepAlive.clear();
  for (uint32_t i = 0; i < numDeps; ++i) {
    auto &dep = reinterpret_cast<EventHandle *>(deps[i])->event;
    out.waits.push_back(dep->native);
    out.keepAlive.push_back(dep);
  }
  if (queue.last)
    out.waits.push_back(queue.last->native);
  return DPK_SUCCESS;
}

dpk_status_t commitCommand(Queue &queue, Command &command, dpk_pl_event_t *outEvent) {
  queue.last = command.event;
  queue.inFlight.push_back(command.event);
  for (auto &dep : command.keepAlive)
    queue.inFlight.push_back(dep);
  if (outEvent)
    *outEvent = reinterpret_cast<dpk_pl_event_t>(new EventHandle{command.event});
  return DPK_SUCCESS;
}

dpk_status_t eventWait(uint32_t numEvents, const dpk_pl_event_t *events) {
  for (uint32_t i = 0; i < numEvents; ++i) {
    const Event &event = toEvent(events[i]);
    ze_result_t rc = zeEventHostSynchronize(event.native, UINT64_MAX);
    if (rc != ZE_RESULT_SUCCESS)
      return checkZe(rc, "zeEventHostSynchronize", event.describe() + " failed");
  }
  return DPK_SUCCESS;
}

dpk_status_t eventStatus(dpk_event_status_t *out, dpk_pl_event_t handle) {
  ze_result_t rc = zeEventQueryStatus(toEvent(handle).native);
  if (rc == ZE_RESULT_SUCCESS)
    *out = DPK_EVENT_COMPLETE;
  else if (rc == ZE_RESULT_NOT_READY)
    *out = DPK_EVENT_RUNNING; // Level Zero does not tell queued from running
  else
    *out = DPK_EVENT_ERROR;
  return DPK_SUCCESS;
}

dpk_status_t eventElapsedNs(uint64_t *out, dpk_pl_event_t handle) {
  const Event &event = toEvent(handle);
  if (!event.timestamps)
    return fail(DPK_ERROR_UNSUPPORTED,
                "event_elapsed_ns: the command was not enqueued on a profiling queue");
  ze_kernel_timestamp_result_t ts{};
  ZE_RETURN_ON_FAILURE(zeEventQueryKernelTimestamp(event.native, &ts),
                       "zeEventQueryKernelTimestamp");
  // Timestamps wrap at kernelTimestampValidBits; timerResolution is in ns per tick for
  // ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES.
  uint32_t bits = event.device->props.kernelTimestampValidBits;
  uint64_t mask = bits >= 64 || bits == 0 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  uint64_t ticks = (ts.global.kernelEnd - ts.global.kernelStart) & mask;
  *out = ticks * event.device->props.timerResolution;
  return DPK_SUCCESS;
}

dpk_status_t eventRelease(dpk_pl_event_t handle) {
  delete reinterpret_cast<EventHandle *>(handle);
  return DPK_SUCCESS;
}

} // namespace dpk::level_zero

// event.cpp - events: creation around commands, dependencies, waits, status and profiling.
#include "event.hpp"

namespace dpk::cuda {

Event::~Event() {
  if (!context)
    return;
  // Destroying an event still pending in a stream is allowed: the driver frees it when done.
  if ((start || (end && timed)) && makeCurrent(context->native) == DPK_SUCCESS) {
    if (start)
      cu.eventDestroy(start);
    if (end && timed)
      cu.eventDestroy(end);
  }
  if (end && !timed)
    context->recycleEvent(end);
  releaseContextRef(context);
}

std::string Event::describe() const {
  std::string what = plugin::describeCommand(kind, bytes, kernel ? *kernel : std::string("?"));
  if (kind != CommandKind::Kernel && kernel)
    what += " (after kernel '" + *kernel + "')";
  return what + " on " + device->label();
}

dpk_status_t beginCommandEvent(Queue &queue, bool wanted, CommandKind kind, size_t bytes,
                               const std::shared_ptr<const std::string> &kernel,
                               std::unique_ptr<Event> &out) {
  out.reset();
  // Nobody can ask about a command without an out-event, profiling queue or not.
  if (!wanted)
    return DPK_SUCCESS;
  auto event = std::make_unique<Event>();
  event->device = queue.context->device;
  queue.context->retain();
  event->context = queue.context;
  event->kind = kind;
  event->bytes = bytes;
  event->kernel = kernel;
  event->timed = queue.profiling;
  // Timing costs a little on every record; only profiling queues pay it (and create their
  // events, which the spares are not).
  if (!queue.profiling) {
    RETURN_ON_FAILURE(event->context->takeEvent(event->end));
  } else {
    CUDA_RETURN_ON_FAILURE(cu.eventCreate(&event->end, CU_EVENT_DEFAULT), "cuEventCreate");
    CUDA_RETURN_ON_FAILURE(cu.eventCreate(&event->start, CU_EVENT_DEFAULT), "cuEventCreate");
    CUDA_RETURN_ON_FAILURE(cu.eventRecord(event->start, queue.stream), "cuEventRecord");
  }
  out = std::move(event);
  return DPK_SUCCESS;
}

dpk_status_t endCommandEvent(Queue &queue, std::unique_ptr<Event> &event,
                             dpk_pl_event_t *outEvent) {
  if (!event || !outEvent)
    return DPK_SUCCESS;
  CUDA_RETURN_ON_FAILURE(cu.eventRecord(event->end, queue.stream), "cuEventRecord");
  *outEvent = reinterpret_cast<dpk_pl_event_t>(event.release());
  return DPK_SUCCESS;
}

dpk_status_t waitForDependencies(Queue &queue, uint32_t numDeps, const dpk_pl_event_t *deps) {
  for (uint32_t i = 0; i < numDeps; ++i) {
    // Works across streams, contexts and devices; the wait happens on the GPU.
    CUDA_RETURN_ON_FAILURE(cu.streamWaitEvent(queue.stream, toEvent(deps[i])->end, 0),
                           "cuStreamWaitEvent");
  }
  return DPK_SUCCESS;
}

dpk_status_t eventWait(uint32_t numEvents, const dpk_pl_event_t *events) {
  for (uint32_t i = 0; i < numEvents; ++i) {
    const Event &event = *toEvent(events[i]);
    RETURN_ON_FAILURE(makeCurrent(event.context->native));
    CUresult rc = cu.eventSynchronize(event.end);
    if (rc != CUDA_SUCCESS)
      return checkCu(rc, "cuEventSynchronize", event.describe() + " failed");
  }
  return DPK_SUCCESS;
}

dpk_status_t eventStatus(dpk_event_status_t *out, dpk_pl_event_t handle) {
  const Event &event = *toEvent(handle);
  RETURN_ON_FAILURE(makeCurrent(event.context->native));
  CUresult rc = cu.eventQuery(event.end);
  if (rc == CUDA_SUCCESS)
    *out = DPK_EVENT_COMPLETE;
  else if (rc == CUDA_ERROR_NOT_READY)
    *out = DPK_EVENT_RUNNING; // the driver does not tell queued from running
  else
    *out = DPK_EVENT_ERROR;
  return DPK_SUCCESS;
}

dpk_status_t eventElapsedNs(uint64_t *out, dpk_pl_event_t handle) {
  const Event &event = *toEvent(handle);
  if (!event.start)
    return fail(DPK_ERROR_UNSUPPORTED,
                "event_elapsed_ns: the command was not enqueued on a profiling queue");
  RETURN_ON_FAILURE(makeCurrent(event.context->native));
  float ms = 0.0f;
  CUresult rc = cu.eventElapsedTime(&ms, event.start, event.end);
  if (rc != CUDA_SUCCESS)
    return checkCu(rc, "cuEventElapsedTime", event.describe());
  *out = static_cast<uint64_t>(static_cast<double>(ms) * 1.0e6);
  return DPK_SUCCESS;
}

dpk_status_t eventRelease(dpk_pl_event_t handle) {
  delete toEvent(handle);
  return DPK_SUCCESS;
}

} // namespace dpk::cuda

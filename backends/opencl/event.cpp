// event.cpp - event entry points.
#include "event.hpp"

#include <cassert>
#include <new>

namespace dpk::opencl {
namespace {

cl_int executionStatus(cl_event event, cl_int *status) {
  return clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof *status, status, nullptr);
}

/// The failure of the first event whose command ended in an error, for event_wait to report.
dpk_status_t firstCommandFailure(uint32_t numEvents, const dpk_pl_event_t *events) {
  for (uint32_t i = 0; i < numEvents; ++i) {
    cl_int status = CL_COMPLETE;
    if (executionStatus(events[i]->native, &status) == CL_SUCCESS && status < 0)
      return fail(DPK_ERROR_DEVICE, status,
                  "event " + std::to_string(i) + ": the command failed with " +
                      clErrorName(status) + " (" + std::to_string(status) + ")");
  }
  return DPK_SUCCESS;
}

} // namespace

void WaitList::assign(uint32_t numDeps, const dpk_pl_event_t *deps) {
  events.clear();
  for (uint32_t i = 0; i < numDeps; ++i) {
    assert(deps[i]->native && "a published event always holds a cl_event");
    events.push_back(deps[i]->native);
  }
}

dpk_status_t publishEvent(cl_event native, dpk_pl_event_t *out) {
  if (!out) {
    if (native)
      clReleaseEvent(native);
    return DPK_SUCCESS;
  }
  auto *event = new (std::nothrow) dpk_pl_event_s;
  if (!event) {
    clReleaseEvent(native);
    return fail(DPK_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for an event");
  }
  event->native = native;
  *out = event;
  return DPK_SUCCESS;
}

dpk_status_t eventWait(uint32_t numEvents, const dpk_pl_event_t *events) {
  if (numEvents == 0)
    return DPK_SUCCESS;
  WaitList waitList;
  waitList.assign(numEvents, events);
  cl_int status = clWaitForEvents(waitList.size(), waitList.data());
  if (status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
    DPK_RETURN_ON_FAILURE(firstCommandFailure(numEvents, events));
  }
  return checkCl(status, "clWaitForEvents");
}

dpk_status_t eventStatus(dpk_event_status_t *out, dpk_pl_event_t event) {
  cl_int status = CL_QUEUED;
  CL_RETURN_ON_FAILURE(executionStatus(event->native, &status));
  switch (status) {
  case CL_COMPLETE: *out = DPK_EVENT_COMPLETE; break;
  case CL_RUNNING: *out = DPK_EVENT_RUNNING; break;
  case CL_SUBMITTED:
  case CL_QUEUED: *out = DPK_EVENT_QUEUED; break;
  default: // negative: the command failed
    *out = DPK_EVENT_ERROR;
    break;
  }
  return DPK_SUCCESS;
}

dpk_status_t eventElapsedNs(uint64_t *out, dpk_pl_event_t event) {
  cl_ulong start = 0, end = 0;
  CL_RETURN_ON_FAILURE(clGetEventProfilingInfo(event->native, CL_PROFILING_COMMAND_START,
                                               sizeof start, &start, nullptr));
  CL_RETURN_ON_FAILURE(
      clGetEventProfilingInfo(event->native, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr));
  *out = end >= start ? end - start : 0;
  return DPK_SUCCESS;
}

dpk_status_t eventRelease(dpk_pl_event_t event) {
  delete event;
  return DPK_SUCCESS;
}

} // namespace dpk::opencl

// event.hpp - a dpk event is one cl_event; helpers that turn dependency lists into wait lists.
#ifndef DPK_BACKENDS_OPENCL_EVENT_HPP
#define DPK_BACKENDS_OPENCL_EVENT_HPP

#include "common.hpp"
#include "entries.hpp"

#include <vector>

struct dpk_pl_event_s {
  cl_event native = nullptr;
  ~dpk_pl_event_s() {
    if (native)
      clReleaseEvent(native);
  }
};

namespace dpk::opencl {

/// The cl_events of a dependency list, as clEnqueue* takes them (NULL when empty).
class WaitList {
public:
  void assign(uint32_t numDeps, const dpk_pl_event_t *deps);
  cl_uint size() const { return static_cast<cl_uint>(events.size()); }
  const cl_event *data() const { return events.empty() ? nullptr : events.data(); }

private:
  std::vector<cl_event> events;
};

/// Hands `native` (a new cl_event, or NULL when out is NULL) to the caller as *out, or releases
/// it when the caller asked for no event.
dpk_status_t publishEvent(cl_event native, dpk_pl_event_t *out);


} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_EVENT_HPP

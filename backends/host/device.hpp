// device.hpp - the one host device, its context, and the task arena that runs kernels.
#ifndef DPK_BACKENDS_HOST_DEVICE_HPP
#define DPK_BACKENDS_HOST_DEVICE_HPP

#include "dpk/plugin.h"
#include "entries.hpp"

#include <tbb/task_arena.h>
#include <tbb/version.h>

struct dpk_pl_device_s {
  dpk_device_props_t props;
  tbb::task_arena arena; // sized from hwloc (DPK_HOST_THREADS overrides)
};

struct dpk_pl_context_s {
  dpk_pl_device_t device;
};

namespace dpk::host {
/// The process-wide host device (created on first use).
dpk_pl_device_t hostDevice();
/// Largest work-group the host accepts; bounds the per-work-item arrays of barrier kernels.
constexpr uint64_t kMaxWorkGroupSize = 8192;

} // namespace dpk::host

#endif

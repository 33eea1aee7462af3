// enqueue.hpp - commands: copies, fills and kernel launches.
#ifndef DPK_BACKENDS_OPENCL_ENQUEUE_HPP
#define DPK_BACKENDS_OPENCL_ENQUEUE_HPP

#include "event.hpp"
#include "kernel.hpp"
#include "queue.hpp"

namespace dpk::opencl {

dpk_status_t enqueueCopy(dpk_pl_queue_t queue, void *dst, const void *src, size_t bytes,
                         uint32_t numDeps, const dpk_pl_event_t *deps, dpk_pl_event_t *outEvent);
dpk_status_t enqueueFill(dpk_pl_queue_t queue, void *dst, const void *pattern, size_t patternSize,
                         size_t bytes, uint32_t numDeps, const dpk_pl_event_t *deps,
                         dpk_pl_event_t *outEvent);
dpk_status_t enqueueLaunch(dpk_pl_queue_t queue, dpk_pl_kernel_t kernel,
                           const dpk_launch_config_t *config, uint32_t numArgs,
                           const dpk_kernel_arg_t *args, uint32_t numDeps,
                           const dpk_pl_event_t *deps, dpk_pl_event_t *outEvent);

} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_ENQUEUE_HPP

// enqueue.hpp - commands: copies, fills and kernel launches.
#ifndef DPK_BACKENDS_OPENCL_ENQUEUE_HPP
#define DPK_BACKENDS_OPENCL_ENQUEUE_HPP

#include "event.hpp"
#include "kernel.hpp"
#include "queue.hpp"
#include "entries.hpp"

namespace dpk::opencl {


} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_ENQUEUE_HPP

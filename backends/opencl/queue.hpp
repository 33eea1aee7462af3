// queue.hpp - a cl_command_queue of one context.
#ifndef DPK_BACKENDS_OPENCL_QUEUE_HPP
#define DPK_BACKENDS_OPENCL_QUEUE_HPP

#include "context.hpp"
#include "entries.hpp"

struct dpk_pl_queue_s {
  dpk_pl_context_t context = nullptr;
  cl_command_queue native = nullptr;
  ~dpk_pl_queue_s() {
    if (native)
      clReleaseCommandQueue(native);
  }
};

namespace dpk::opencl {


} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_QUEUE_HPP

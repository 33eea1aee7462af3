// kernel.hpp - a cl_kernel, with the lock that keeps argument setting and launch together.
#ifndef DPK_BACKENDS_OPENCL_KERNEL_HPP
#define DPK_BACKENDS_OPENCL_KERNEL_HPP

#include "program.hpp"
#include "entries.hpp"

#include <mutex>
#include <string>

struct dpk_pl_kernel_s {
  dpk_pl_context_t context = nullptr;
  cl_kernel native = nullptr;
  std::string name;
  cl_uint numArgs = 0;
  // A cl_kernel's arguments are state: two threads launching one kernel must not interleave
  // clSetKernelArg calls (OpenCL leaves that to the application).
  std::mutex launchMutex;
  ~dpk_pl_kernel_s() {
    if (native)
      clReleaseKernel(native);
  }
};

namespace dpk::opencl {


} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_KERNEL_HPP

// program.hpp - a built cl_program.
#ifndef DPK_BACKENDS_OPENCL_PROGRAM_HPP
#define DPK_BACKENDS_OPENCL_PROGRAM_HPP

#include "context.hpp"
#include "entries.hpp"

struct dpk_pl_program_s {
  dpk_pl_context_t context = nullptr;
  cl_program native = nullptr;
  ~dpk_pl_program_s() {
    if (native)
      clReleaseProgram(native);
  }
};

namespace dpk::opencl {


} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_PROGRAM_HPP

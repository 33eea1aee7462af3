// program.hpp - a built cl_program.
#ifndef DPK_BACKENDS_OPENCL_PROGRAM_HPP
#define DPK_BACKENDS_OPENCL_PROGRAM_HPP

#include "context.hpp"

struct dpk_pl_program_s {
  dpk_pl_context_t context = nullptr;
  cl_program native = nullptr;
  ~dpk_pl_program_s() {
    if (native)
      clReleaseProgram(native);
  }
};

namespace dpk::opencl {

dpk_status_t programCreate(dpk_pl_context_t context, dpk_artifact_format_t format, const void *data,
                           size_t size, const char *options, dpk_pl_program_t *out);
dpk_status_t programRelease(dpk_pl_program_t program);

} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_PROGRAM_HPP

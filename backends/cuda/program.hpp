// program.hpp - a dpk program: a CUDA module JIT-compiled from PTX.
#ifndef DPK_BACKENDS_CUDA_PROGRAM_HPP
#define DPK_BACKENDS_CUDA_PROGRAM_HPP

#include "context.hpp"

namespace dpk::cuda {

/// Kernels keep their program alive: the module owns their CUfunctions.
struct Program : RefCounted {
  Context *context = nullptr; // holds a reference
  CUmodule module = nullptr;
};

inline Program *toProgram(dpk_pl_program_t handle) { return reinterpret_cast<Program *>(handle); }

void releaseProgramRef(Program *program);

dpk_status_t programCreate(dpk_pl_context_t context, dpk_artifact_format_t format, const void *data,
                           size_t size, const char *options, dpk_pl_program_t *out);
dpk_status_t programRelease(dpk_pl_program_t program);

} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_PROGRAM_HPP

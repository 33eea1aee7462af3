// program.hpp - a dpk program: a CUDA module JIT-compiled from PTX.
#ifndef DPK_BACKENDS_CUDA_PROGRAM_HPP
#define DPK_BACKENDS_CUDA_PROGRAM_HPP

#include "context.hpp"
#include "entries.hpp"

namespace dpk::cuda {

/// Kernels keep their program alive: the module owns their CUfunctions.
struct Program : RefCounted {
  Context *context = nullptr; // holds a reference
  CUmodule module = nullptr;
};

inline Program *toProgram(dpk_pl_program_t handle) { return reinterpret_cast<Program *>(handle); }

void releaseProgramRef(Program *program);


} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_PROGRAM_HPP

// program.hpp - a dpk program: a Level Zero module built from SPIR-V.
#ifndef DPK_BACKENDS_LEVEL_ZERO_PROGRAM_HPP
#define DPK_BACKENDS_LEVEL_ZERO_PROGRAM_HPP

#include "context.hpp"
#include "entries.hpp"

namespace dpk::level_zero {

/// Kernels keep their program alive: the module owns their code.
struct Program : RefCounted {
  Context *context = nullptr; // holds a reference
  ze_module_handle_t module = nullptr;
};

inline Program *toProgram(dpk_pl_program_t handle) { return reinterpret_cast<Program *>(handle); }

void releaseProgramRef(Program *program);


} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_PROGRAM_HPP

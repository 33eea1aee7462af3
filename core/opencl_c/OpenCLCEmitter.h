// OpenCLCEmitter.h - turns verified dpk IR into OpenCL C 1.2 source text.
//
// The emitter walks the structured IR directly (no LLVM), so its output is readable and builds
// on OpenCL implementations that take no SPIR-V (PoCL 3.1, NVIDIA). Each IR kernel becomes one
// `__kernel void <name>(...)` whose parameters follow the Kernel ABI of compiler/Compiler.h
// (views expand into a pointer, then `long` shape[rank], then `long` strides[rank]); device
// functions become plain functions, emitted with prototypes in dependency order.
//
// Index mapping: dpk dimension d becomes OpenCL dimension dims-1-d, where dims is
// CompileOptions::dims, or, when that is 0, one more than the largest dimension the module
// uses. The launcher must reverse its global and local size arrays the same way.
//
// The output depends only on the module and the options (deterministic, byte for byte).
// docs/opencl-c.md describes every mapping (atomics, memory orders, f16, math).
#ifndef DPK_CORE_OPENCL_C_OPENCLCEMITTER_H
#define DPK_CORE_OPENCL_C_OPENCLCEMITTER_H

#include "compiler/Compiler.h"
#include "ir/IR.h"
#include "support/Error.h"

#include <string>

namespace dpk::opencl_c {

/// Emits OpenCL C for every kernel of `module` and the device functions they call. Fails with
/// DPK_ERROR_UNSUPPORTED for IR the emitter cannot express (the message names the function
/// and op), and DPK_ERROR_INVALID_ARGUMENT for an options.dims outside 0..3 or smaller than a
/// dimension the module uses.
Expected<std::string> emitOpenCLC(const ir::Module &module,
                                  const compiler::CompileOptions &options);

} // namespace dpk::opencl_c

#endif // DPK_CORE_OPENCL_C_OPENCLCEMITTER_H

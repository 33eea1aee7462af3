// KernelSlice.h - the part of a module one kernel needs: the kernel and the functions it calls.
//
// A program may hold kernels of different dimensionality (a 1-D saxpy beside a 2-D stencil).
// Device targets compile for the launch's dimension count, which is a property of one kernel's
// launch, not of the module: the runtime therefore compiles each kernel of a multi-kernel
// program as its own unit, the slice printed here (docs/architecture.md, "Compile units").
#ifndef DPK_CORE_IR_KERNELSLICE_H
#define DPK_CORE_IR_KERNELSLICE_H

#include "ir/IR.h"
#include "ir/Printer.h"

#include <string>

namespace dpk::ir {

/// The text of a module holding `kernel` and every function it reaches through calls, in the
/// order of `module` (so the text is deterministic and a function may still call one defined
/// later). `kernel` must be a function of `module`.
std::string printKernelSlice(const Module &module, const Function &kernel,
                             const PrintOptions &options = {});

/// Number of kernels in `module`.
size_t kernelCount(const Module &module);

} // namespace dpk::ir

#endif // DPK_CORE_IR_KERNELSLICE_H

// LaunchDimensions.h - how many launch dimensions a kernel uses, following calls.
//
// A kernel uses dimension d when a work-item op (global_id, local_id, group_id, global_size,
// local_size, num_groups) of dimension d is in its body or in the body of a function it calls,
// directly or through other calls; it uses one more dimension than the largest such d. Targets
// number dimensions from the launch's count (dpk dimension d is OpenCL dimension and CUDA index
// dims-1-d), so the count is fixed before any code is emitted. When CompileOptions::dims is 0
// the LLVM targets (compiler::kernelDims) and the OpenCL C emitter both compile a module for
// dimensionsUsed(module) (at least 1), so every target reverses dimensions the same way. A call
// of a function the module does not define adds nothing (compilation rejects it anyway).
//
// The count is a property of each kernel; dimensionsUsed(kernel, module) gives it for one, for
// a caller that compiles kernels one by one.
#ifndef DPK_CORE_IR_LAUNCHDIMENSIONS_H
#define DPK_CORE_IR_LAUNCHDIMENSIONS_H

#include "ir/IR.h"

namespace dpk::ir {

/// One more than the largest work-item dimension `kernel` uses, through calls; 0 when none.
unsigned dimensionsUsed(const Function &kernel, const Module &module);

/// The largest dimensionsUsed() over the kernels of `module`; 0 when none uses any.
unsigned dimensionsUsed(const Module &module);

} // namespace dpk::ir

#endif // DPK_CORE_IR_LAUNCHDIMENSIONS_H

// Verifier.h - checks that a module is well-formed dpk IR, in one pass.
//
// Checks operand counts and types of every op, address spaces, atomics, structured scoping
// (a value defined inside a region is not visible after it), terminators (break/continue
// inside loops, while conditions, return types), calls (known callee, argument types, no
// recursion), work-item dimensions, and that barriers sit in uniform control flow (see
// Uniformity.h). Messages name the function, the op and its source location when known.
#ifndef DPK_CORE_IR_VERIFIER_H
#define DPK_CORE_IR_VERIFIER_H

#include "ir/IR.h"
#include "ir/Names.h" // isIrName, kernelNameProblem: the name rules the verifier applies
#include "support/Error.h"

namespace dpk::ir {

/// Success, or DPK_ERROR_VERIFY with the first problem found. Checked first, so that no check
/// recurses without bound: regions nest at most kMaxRegionDepth deep and call chains hold at
/// most kMaxCallDepth functions.
Error verifyModule(const Module &module);

} // namespace dpk::ir

#endif // DPK_CORE_IR_VERIFIER_H

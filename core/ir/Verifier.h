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
#include "support/Error.h"

#include <string>
#include <string_view>

namespace dpk::ir {

/// Success, or DPK_ERROR_VERIFY with the first problem found. Checked first, so that no check
/// recurses without bound: regions nest at most kMaxRegionDepth deep and call chains hold at
/// most kMaxCallDepth functions.
Error verifyModule(const Module &module);

/// Whether `name` can name a function in IR text: letters, digits, '_' and '.', not empty.
bool isIrName(std::string_view name);

/// Why `name` cannot name a kernel, or "" when it can. A kernel keeps its name on every target
/// (it is the entry point the runtime looks up; only device functions are renamed where a
/// target needs it), so it must be a C identifier ([A-Za-z_][A-Za-z0-9_]*) that C and OpenCL C
/// do not reserve: no keyword or built-in type name (`kernel`, `float4`), nothing starting with
/// "__". Frontends that derive kernel names from user code can test a name with this.
std::string kernelNameProblem(std::string_view name);

} // namespace dpk::ir

#endif // DPK_CORE_IR_VERIFIER_H

// PrivateArrayLoops.h - which `for` loops to unroll fully so that the private arrays they index
// become registers.
#ifndef DPK_CORE_COMPILER_PRIVATEARRAYLOOPS_H
#define DPK_CORE_COMPILER_PRIVATEARRAYLOOPS_H

#include "ir/IR.h"

namespace dpk::compiler {

/// Loops of at most this many iterations may be unrolled whole.
constexpr int64_t kPrivateArrayLoopMaxTrips = 32;

/// Whether `forOp` has constant bounds and step, at most kPrivateArrayLoopMaxTrips iterations,
/// and a body (nested regions included) that loads or stores an element of a private array (an
/// `alloca` of more than one element) at an index that is not a constant. Unrolled whole, such a
/// loop indexes the array by constants and the array becomes registers; rolled, it lives in
/// (slow) local memory on a GPU, and each of its loads waits on the one before. This is what
/// CUDA programmers ask for with `#pragma unroll` and what NVIDIA's compilers do unasked.
bool indexesPrivateArrayInFewTrips(const ir::Op &forOp);

} // namespace dpk::compiler

#endif // DPK_CORE_COMPILER_PRIVATEARRAYLOOPS_H

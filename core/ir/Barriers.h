// Barriers.h - which functions and ops of a module reach a work-group barrier.
//
// An op reaches a barrier when it is one, holds one in a region, or calls a function that
// reaches one; a function reaches one when an op of its body does. The verifier uses this to
// require calls of such functions to be in uniform control flow with uniform arguments; the
// once-per-group analysis (OncePerGroup.h) runs such statements once per work-group on the
// host. Calls of functions the module does not define reach nothing.
#ifndef DPK_CORE_IR_BARRIERS_H
#define DPK_CORE_IR_BARRIERS_H

#include "ir/IR.h"

#include <unordered_set>

namespace dpk::ir {

struct BarrierInfo {
  /// Functions of the module that reach a barrier.
  std::unordered_set<const Function *> functions;
  /// Ops, in any function of the module, that reach a barrier.
  std::unordered_set<const Op *> ops;

  bool reachesBarrier(const Function &function) const { return functions.count(&function) != 0; }
  bool reachesBarrier(const Op &op) const { return ops.count(&op) != 0; }
};

/// Finds every function and op of `module` that reaches a barrier. Recursion (which the
/// verifier rejects) ends the walk rather than looping.
BarrierInfo findBarriers(const Module &module);

} // namespace dpk::ir

#endif // DPK_CORE_IR_BARRIERS_H

// OncePerGroup.h - what runs once per work-group when a CPU runs a group as work-item loops.
//
// The host target runs a whole work-group in one function: runs of statements become loops over
// the group's work-items ("work-item loops"), and statements that every work-item must reach
// together run once per group, between those loops. This analysis decides, from the IR alone,
// which statements and values are once-per-group, so that host codegen only follows it:
//  - A statement that reaches a barrier (Barriers.h) runs once per group: an if/for/while whose
//    regions hold one, a call of a function that reaches one, the barrier itself. Conditions
//    and bounds come from work-item 0, which is legal because the verifier requires uniform
//    control flow around barriers; a barrier just ends the current work-item loop.
//  - A split loop runs once per group too, as if it held a barrier: a `for` directly in the
//    kernel (not in a callee) in uniform control flow, with uniform bounds, a non-empty body and
//    no break/continue/return/condition inside. `for items { for k { B } }` becomes
//    `for k { for items { B } }`, so the loop LLVM vectorizes runs across work-items rather than
//    over k. Without barriers any interleaving of work-items is a legal execution, so this
//    changes no result of a race-free kernel.
//  - A kernel with either is split into several work-item loops. In a split kernel, a group
//    variable is a private variable (alloca) whose every use is a load with a uniform result or
//    a store of a uniform value at a uniform index, in uniform control flow, directly in a block
//    that runs once per group (the kernel body, or a region of a statement above). It holds
//    one value for the whole group (a reduction's `stride = stride / 2`): one slot per group,
//    its stores run once per group as statements of their own, its loads once per group.
//  - mayHoistToGroup() says which pure ops may be computed once per group, before the
//    work-item loops, when their operands are.
// Uniformity comes from Uniformity.h (docs/ir.md, "Uniformity").
#ifndef DPK_CORE_IR_ONCEPERGROUP_H
#define DPK_CORE_IR_ONCEPERGROUP_H

#include "ir/Barriers.h"
#include "ir/IR.h"

#include <unordered_set>

namespace dpk::ir {

struct OncePerGroupInfo {
  /// Barriers of the whole module: callees are lowered inline, and their statements too run
  /// once per group when they reach a barrier.
  BarrierInfo barriers;
  /// The kernel's split loops.
  std::unordered_set<const Op *> splitLoops;
  /// The kernel's group variables (alloca results); empty unless `split`.
  std::unordered_set<const Value *> groupVariables;
  /// The kernel runs as more than one work-item loop: it reaches a barrier or has a split loop.
  bool split = false;

  bool isSplitLoop(const Op &op) const { return splitLoops.count(&op) != 0; }
  bool isGroupVariable(const Value *value) const { return groupVariables.count(value) != 0; }
  /// A load or store of a group variable.
  bool isGroupVariableAccess(const Op &op) const {
    return (op.kind == OpKind::Load || op.kind == OpKind::Store) && isGroupVariable(op.operands[0]);
  }
  /// In a block that runs once per group (the kernel body, a region of a once-per-group
  /// statement, the body of a callee called there), whether `op` runs once per group too
  /// rather than in a work-item loop: terminators, barriers, control flow and calls that reach
  /// a barrier, split loops, and stores to group variables.
  bool isGroupStatement(const Op &op) const;
};

/// Analyses `kernel`; `module` resolves its calls.
OncePerGroupInfo analyzeOncePerGroup(const Function &kernel, const Module &module);

/// Pure ops whose result is the same for every work-item when their operands are, so they may
/// run once per group when their operands are computed once per group: arithmetic, compares,
/// casts, math (but lgamma, which writes signgam), view shapes and pointers, group and size
/// builtins, local_alloc. Integer division and remainder only by a constant that cannot trap.
bool mayHoistToGroup(const Op &op);

} // namespace dpk::ir

#endif // DPK_CORE_IR_ONCEPERGROUP_H

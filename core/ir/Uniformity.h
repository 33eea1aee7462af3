// Uniformity.h - which values and ops are the same for every work-item of a work-group.
//
// A value is uniform when every work-item of a work-group computes the same value for it; an
// op is in uniform control flow when either all work-items of a group execute it or none.
// The verifier uses this to reject barriers in divergent control flow; the once-per-group
// analysis (OncePerGroup.h) uses it to find split loops and group variables for the host.
// The rule (docs/ir.md, "Uniformity"):
//  - uniform: constants, function parameters, group_id, global_size, local_size, num_groups,
//    local_alloc (one array per group), and any op whose operands are all uniform unless
//    listed below;
//  - non-uniform: global_id, local_id, alloca (the pointer is per work-item, but see below),
//    load / view_load / atomic results (memory may differ per work-item);
//  - exception for private variables: a load from an alloca that is used only as the pointer
//    of load/store, and whose every store writes a uniform value at a uniform index in
//    uniform control flow, is uniform if its index is (this is how frontends spell mutable
//    scalars, so `stride = stride / 2` loops stay uniform);
//  - a call result is uniform when its arguments are, the callee is in the module, and the
//    callee returns a uniform value from uniform control flow when its parameters are uniform;
//  - a for induction variable is uniform when lo, hi and step are and the loop is in uniform
//    control flow;
//  - control flow is non-uniform inside an if with a non-uniform condition, a for with
//    non-uniform bounds, a while with a non-uniform condition, inside a loop whose body can
//    break/continue under non-uniform control, and after a return under non-uniform control.
// Parameters are assumed uniform also in device functions: the verifier requires calls to
// functions that contain barriers to be in uniform control flow with uniform arguments.
#ifndef DPK_CORE_IR_UNIFORMITY_H
#define DPK_CORE_IR_UNIFORMITY_H

#include "ir/IR.h"

#include <unordered_set>
#include <vector>

namespace dpk::ir {

struct UniformityInfo {
  /// Indexed by Value::id: true when the value is uniform across a work-group.
  std::vector<bool> uniformValues;
  /// Ops executed under non-uniform control flow.
  std::unordered_set<const Op *> divergentOps;
  /// True when every return of the function returns a uniform value from uniform control.
  bool uniformReturn = true;

  bool isUniform(const Value *v) const {
    return v->id < uniformValues.size() && uniformValues[v->id];
  }
  bool inUniformControlFlow(const Op *op) const { return divergentOps.count(op) == 0; }
};

/// Analyses one function. `module` (optional) resolves calls; without it call results are
/// non-uniform.
UniformityInfo analyzeUniformity(const Function &function, const Module *module = nullptr);

} // namespace dpk::ir

#endif // DPK_CORE_IR_UNIFORMITY_H

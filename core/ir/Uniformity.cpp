// Uniformity.cpp - work-group uniformity of values and control flow (rule in Uniformity.h).
//
// The analysis is optimistic and iterates to a fixed point: it starts assuming every private
// variable holds uniform values and every loop is entered uniformly, walks the function, and
// each time a store or a loop contradicts that it records the contradiction and walks again.
// The recorded sets only grow, so the iteration ends.
#include "ir/Uniformity.h"

#include "ir/CallGraph.h"

#include <unordered_map>

namespace dpk::ir {

namespace {

/// What a block can do to the control flow around it.
struct Exits {
  bool loopExit = false; // break or continue of the innermost enclosing loop
  bool ret = false;      // return
  Exits &operator|=(const Exits &o) {
    loopExit |= o.loopExit;
    ret |= o.ret;
    return *this;
  }
};

/// Whether each function analysed so far returns a uniform value from uniform control flow.
struct CalleeResults {
  const CallGraph *graph = nullptr;
  std::unordered_map<const Function *, bool> uniformReturn;
};

class UniformityAnalysis {
public:
  UniformityAnalysis(const Function &function, const CalleeResults *callees)
      : function_(function), callees_(callees) {}

  UniformityInfo run() {
    findPrivateVariables(function_.body);
    for (;;) {
      changed_ = false;
      diverged_ = false;
      info_ = UniformityInfo{};
      info_.uniformValues.assign(function_.values.size(), false);
      for (const Value *param : function_.params) setUniform(param, true);
      walkBlock(function_.body, true);
      if (!changed_) return std::move(info_);
    }
  }

private:
  void setUniform(const Value *v, bool uniform) {
    if (v && v->id < info_.uniformValues.size()) info_.uniformValues[v->id] = uniform;
  }
  bool uniform(const Value *v) const { return v && info_.isUniform(v); }
  bool allUniform(const Op &op) const {
    for (const Value *v : op.operands)
      if (!uniform(v)) return false;
    return true;
  }

  /// Allocas used only as the pointer of load/store: candidates for uniform private variables.
  void findPrivateVariables(const Block &block) {
    for (const auto &op : block.ops) {
      if (op->kind == OpKind::Alloca && op->result) privateVariables_[op->result] = true;
      for (size_t i = 0; i < op->operands.size(); ++i) {
        bool pointerUse = i == 0 && (op->kind == OpKind::Load || op->kind == OpKind::Store);
        if (!pointerUse) privateVariables_[op->operands[i]] = false;
      }
      for (const Block &region : op->regions) findPrivateVariables(region);
    }
  }

  bool isUniformVariable(const Value *ptr) const {
    auto it = privateVariables_.find(ptr);
    return it != privateVariables_.end() && it->second && !nonUniformVariables_.count(ptr);
  }

  void markLoopDivergent(const Op *loop) {
    if (loop && divergentLoops_.insert(loop).second) changed_ = true;
  }
  void markAllLoopsDivergent() {
    for (const Op *loop : loops_) markLoopDivergent(loop);
  }

  bool callReturnsUniform(const Op &op) const {
    if (!callees_) return false;
    const Function *callee = callees_->graph->lookup(op.callee);
    if (!callee || callee == &function_) return false;
    // Callees are analysed first; one not analysed closes a cycle (rejected by the verifier).
    auto it = callees_->uniformReturn.find(callee);
    return it != callees_->uniformReturn.end() && it->second;
  }

  Exits walkBlock(const Block &block, bool uniformControl) {
    Exits exits;
    for (const auto &op : block.ops) exits |= walkOp(*op, uniformControl && !diverged_);
    return exits;
  }

  Exits walkOp(const Op &op, bool uniformControl) {
    if (!uniformControl) info_.divergentOps.insert(&op);
    Exits exits;
    switch (op.kind) {
    case OpKind::GlobalId: case OpKind::LocalId: case OpKind::Alloca: case OpKind::ViewLoad:
    case OpKind::AtomicRmw: case OpKind::AtomicLoad: case OpKind::AtomicCmpXchg:
    case OpKind::SubGroupLocalId: case OpKind::SubGroupBallot: case OpKind::SubGroupShuffle:
      setUniform(op.result, false);
      return exits;
    case OpKind::Const: case OpKind::GroupId: case OpKind::GlobalSize: case OpKind::LocalSize:
    case OpKind::NumGroups: case OpKind::LocalAlloc: case OpKind::SubGroupSize:
      setUniform(op.result, true);
      return exits;
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Rem:
    case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl: case OpKind::Shr:
    case OpKind::Neg: case OpKind::Not: case OpKind::Cmp: case OpKind::Select: case OpKind::Cast:
    case OpKind::Math: case OpKind::PtrOffset: case OpKind::ViewDim: case OpKind::ViewStride:
    case OpKind::ViewPtr: case OpKind::ViewElementPtr:
      setUniform(op.result, allUniform(op));
      return exits;
    case OpKind::Call:
      setUniform(op.result, allUniform(op) && callReturnsUniform(op));
      return exits;
    case OpKind::Load: {
      const Value *ptr = op.operands.empty() ? nullptr : op.operands[0];
      bool uniformIndex = op.operands.size() > 1 && uniform(op.operands[1]);
      setUniform(op.result, isUniformVariable(ptr) && uniformIndex);
      return exits;
    }
    case OpKind::Store: {
      const Value *ptr = op.operands.empty() ? nullptr : op.operands[0];
      bool uniformStore = op.operands.size() > 2 && uniform(op.operands[1]) && uniform(op.operands[2]);
      if (isUniformVariable(ptr) && !(uniformControl && uniformStore)) {
        nonUniformVariables_.insert(ptr);
        changed_ = true;
      }
      return exits;
    }
    case OpKind::ViewStore: case OpKind::AtomicStore: case OpKind::Fence: case OpKind::Barrier:
    case OpKind::Condition:
      return exits;
    case OpKind::Break: case OpKind::Continue:
      exits.loopExit = true;
      return exits;
    case OpKind::Return:
      exits.ret = true;
      if (!uniformControl || !allUniform(op)) info_.uniformReturn = false;
      return exits;
    case OpKind::If: {
      bool inner = uniformControl && allUniform(op);
      for (const Block &region : op.regions) exits |= walkBlock(region, inner);
      if (uniformControl && !inner) {
        // Work-items leave early at different times: the rest of the loop, or of the
        // function, runs with fewer of them.
        if (exits.loopExit && !loops_.empty()) markLoopDivergent(loops_.back());
        if (exits.ret) {
          diverged_ = true;
          markAllLoopsDivergent();
        }
      }
      return exits;
    }
    case OpKind::For: {
      bool inner = uniformControl && allUniform(op) && !divergentLoops_.count(&op);
      if (uniformControl && !inner) markLoopDivergent(&op);
      if (!op.regions.empty() && !op.regions[0].args.empty())
        setUniform(op.regions[0].args[0], inner);
      loops_.push_back(&op);
      for (const Block &region : op.regions) exits |= walkBlock(region, inner);
      loops_.pop_back();
      exits.loopExit = false;
      return exits;
    }
    case OpKind::While: {
      bool inner = uniformControl && !divergentLoops_.count(&op);
      loops_.push_back(&op);
      if (!op.regions.empty()) {
        exits |= walkBlock(op.regions[0], inner);
        const Block &cond = op.regions[0];
        bool condUniform = !cond.ops.empty() && cond.ops.back()->kind == OpKind::Condition &&
                           allUniform(*cond.ops.back());
        if (inner && !condUniform) {
          markLoopDivergent(&op);
          inner = false;
        }
      }
      if (op.regions.size() > 1) exits |= walkBlock(op.regions[1], inner);
      loops_.pop_back();
      exits.loopExit = false;
      return exits;
    }
    }
    return exits;
  }

  const Function &function_;
  const CalleeResults *callees_; // null: no module, call results are non-uniform
  UniformityInfo info_;
  bool changed_ = false;
  bool diverged_ = false; // a return under non-uniform control was seen
  std::vector<const Op *> loops_;
  std::unordered_map<const Value *, bool> privateVariables_;
  std::unordered_set<const Value *> nonUniformVariables_;
  std::unordered_set<const Op *> divergentLoops_;
};

} // namespace

UniformityInfo analyzeUniformity(const Function &function, const Module *module) {
  if (!module) return UniformityAnalysis(function, nullptr).run();
  // Every function `function` calls, directly or not, is analysed once, callees first, so a
  // call reads its callee's result: no recursion over calls, and no re-analysis of a callee
  // reached along many paths.
  CallGraph graph = buildCallGraph(*module);
  CalleeResults callees;
  callees.graph = &graph;
  for (const Function *callee : calleesFirst(graph, {&function})) {
    if (callee == &function) continue;
    // An external function's result is non-uniform: its body is not IR (it may read memory).
    callees.uniformReturn[callee] =
        !callee->isExternal && UniformityAnalysis(*callee, &callees).run().uniformReturn;
  }
  return UniformityAnalysis(function, &callees).run();
}

} // namespace dpk::ir

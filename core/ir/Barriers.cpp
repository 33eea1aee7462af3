// Barriers.cpp - functions and ops that reach a work-group barrier (rule in Barriers.h).
#include "ir/Barriers.h"

#include "ir/CallGraph.h"

namespace dpk::ir {

namespace {

class BarrierSearch {
public:
  explicit BarrierSearch(const Module &module) : graph_(buildCallGraph(module)) {}

  BarrierInfo run(const Module &module) {
    // Callees first, so a call reads its callee's answer instead of walking into it.
    for (const Function *function : calleesFirst(graph_, module)) {
      if (inBlock(function->body)) info_.functions.insert(function);
    }
    return std::move(info_);
  }

private:
  // Every op is visited (no early exit), so that `ops` is complete.
  bool inBlock(const Block &block) {
    bool reaches = false;
    for (const auto &op : block.ops) reaches |= inOp(*op);
    return reaches;
  }

  bool inOp(const Op &op) {
    bool reaches = op.kind == OpKind::Barrier;
    if (op.kind == OpKind::Call) {
      // A callee not done yet closes a cycle (recursion, rejected by the verifier): it adds
      // nothing.
      const Function *callee = graph_.lookup(op.callee);
      reaches = callee && info_.functions.count(callee);
    }
    for (const Block &region : op.regions) reaches |= inBlock(region);
    if (reaches) info_.ops.insert(&op);
    return reaches;
  }

  CallGraph graph_;
  BarrierInfo info_;
};

} // namespace

BarrierInfo findBarriers(const Module &module) { return BarrierSearch(module).run(module); }

} // namespace dpk::ir

// Barriers.cpp - functions and ops that reach a work-group barrier (rule in Barriers.h).
#include "ir/Barriers.h"

#include <unordered_map>

namespace dpk::ir {

namespace {

class BarrierSearch {
public:
  explicit BarrierSearch(const Module &module) : module_(module) {}

  BarrierInfo run() {
    for (const auto &function : module_.functions) inFunction(*function);
    return std::move(info_);
  }

private:
  bool inFunction(const Function &function) {
    auto found = visited_.find(&function);
    if (found != visited_.end()) return found->second;
    visited_[&function] = false; // a recursive call (rejected by the verifier) reaches nothing
    bool reaches = inBlock(function.body);
    visited_[&function] = reaches;
    if (reaches) info_.functions.insert(&function);
    return reaches;
  }

  // Every op is visited (no early exit), so that `ops` is complete.
  bool inBlock(const Block &block) {
    bool reaches = false;
    for (const auto &op : block.ops) reaches |= inOp(*op);
    return reaches;
  }

  bool inOp(const Op &op) {
    bool reaches = op.kind == OpKind::Barrier;
    if (op.kind == OpKind::Call) {
      const Function *callee = module_.lookup(op.callee);
      reaches = callee && inFunction(*callee);
    }
    for (const Block &region : op.regions) reaches |= inBlock(region);
    if (reaches) info_.ops.insert(&op);
    return reaches;
  }

  const Module &module_;
  BarrierInfo info_;
  std::unordered_map<const Function *, bool> visited_;
};

} // namespace

BarrierInfo findBarriers(const Module &module) { return BarrierSearch(module).run(); }

} // namespace dpk::ir

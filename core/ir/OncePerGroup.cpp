// OncePerGroup.cpp - what a kernel runs once per work-group (rule in OncePerGroup.h).
#include "ir/OncePerGroup.h"

#include "ir/Uniformity.h"

#include <unordered_map>
#include <utility>
#include <vector>

namespace dpk::ir {

namespace {

bool containsTerminator(const Block &block) {
  for (const auto &op : block.ops) {
    if (opCategory(op->kind) == OpCategory::Terminator) return true;
    for (const Block &region : op->regions)
      if (containsTerminator(region)) return true;
  }
  return false;
}

bool isSplitLoop(const Op &op, const UniformityInfo &uniformity) {
  if (op.kind != OpKind::For || !uniformity.inUniformControlFlow(&op)) return false;
  for (const Value *operand : op.operands)
    if (!uniformity.isUniform(operand)) return false;
  return !op.regions[0].ops.empty() && !containsTerminator(op.regions[0]);
}

void findSplitLoops(const Block &block, const UniformityInfo &uniformity,
                    std::unordered_set<const Op *> &loops) {
  for (const auto &op : block.ops) {
    if (isSplitLoop(*op, uniformity)) loops.insert(op.get());
    for (const Block &region : op->regions) findSplitLoops(region, uniformity, loops);
  }
}

/// The kernel body and the regions of control flow run once per group, recursively.
void findGroupBlocks(const Block &block, const OncePerGroupInfo &info,
                     std::unordered_set<const Block *> &blocks) {
  blocks.insert(&block);
  for (const auto &op : block.ops) {
    if (opCategory(op->kind) != OpCategory::Control) continue;
    if (!info.barriers.reachesBarrier(*op) && !info.isSplitLoop(*op)) continue;
    for (const Block &region : op->regions) findGroupBlocks(region, info, blocks);
  }
}

/// Every op of `block` with the block that holds it, in program order.
void listOps(const Block &block, std::vector<std::pair<const Block *, const Op *>> &ops) {
  for (const auto &op : block.ops) {
    ops.push_back({&block, op.get()});
    for (const Block &region : op->regions) listOps(region, ops);
  }
}

void findGroupVariables(const Function &kernel, const UniformityInfo &uniformity,
                        OncePerGroupInfo &info) {
  std::unordered_set<const Block *> groupBlocks;
  findGroupBlocks(kernel.body, info, groupBlocks);
  std::vector<std::pair<const Block *, const Op *>> ops;
  listOps(kernel.body, ops);
  std::unordered_map<const Value *, bool> candidates;
  for (const auto &[block, op] : ops)
    if (op->kind == OpKind::Alloca) candidates.emplace(op->result, true);
  for (const auto &[block, op] : ops) {
    for (size_t i = 0; i < op->operands.size(); ++i) {
      auto candidate = candidates.find(op->operands[i]);
      if (candidate == candidates.end()) continue;
      bool allowed = false;
      if (op->kind == OpKind::Load && i == 0) allowed = uniformity.isUniform(op->result);
      if (op->kind == OpKind::Store && i == 0)
        allowed = groupBlocks.count(block) && uniformity.isUniform(op->operands[1]) &&
                  uniformity.isUniform(op->operands[2]) && uniformity.inUniformControlFlow(op);
      if (!allowed) candidate->second = false;
    }
  }
  for (const auto &[value, allowed] : candidates)
    if (allowed) info.groupVariables.insert(value);
}

} // namespace

bool OncePerGroupInfo::isGroupStatement(const Op &op) const {
  switch (opCategory(op.kind)) {
  case OpCategory::Terminator: return true;
  case OpCategory::Control: return barriers.reachesBarrier(op) || isSplitLoop(op);
  case OpCategory::Atomic: return op.kind == OpKind::Barrier;
  case OpCategory::Value: return op.kind == OpKind::Call && barriers.reachesBarrier(op);
  case OpCategory::Memory: return op.kind == OpKind::Store && isGroupVariableAccess(op);
  case OpCategory::Binary: case OpCategory::Unary: case OpCategory::WorkItem: return false;
  }
  return false;
}

OncePerGroupInfo analyzeOncePerGroup(const Function &kernel, const Module &module) {
  OncePerGroupInfo info;
  info.barriers = findBarriers(module);
  UniformityInfo uniformity = analyzeUniformity(kernel, &module);
  findSplitLoops(kernel.body, uniformity, info.splitLoops);
  info.split = info.barriers.reachesBarrier(kernel) || !info.splitLoops.empty();
  if (info.split) findGroupVariables(kernel, uniformity, info);
  return info;
}

bool mayHoistToGroup(const Op &op) {
  switch (op.kind) {
  case OpKind::Const: case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::And:
  case OpKind::Or: case OpKind::Xor: case OpKind::Shl: case OpKind::Shr: case OpKind::Neg:
  case OpKind::Not: case OpKind::Cmp: case OpKind::Select: case OpKind::Cast:
  case OpKind::ViewDim: case OpKind::ViewStride: case OpKind::ViewPtr: case OpKind::GroupId:
  case OpKind::LocalSize: case OpKind::GlobalSize: case OpKind::NumGroups:
  case OpKind::LocalAlloc: case OpKind::SubGroupSize:
    return true;
  case OpKind::Math: return op.mathFn != MathFn::Lgamma; // lgamma writes signgam
  case OpKind::Div: case OpKind::Rem: {
    // Integer division may trap: only by a constant that cannot.
    if (op.result && op.result->type.isFloat()) return true;
    const Op *divisor = op.operands.size() == 2 ? op.operands[1]->definingOp : nullptr;
    return divisor && divisor->kind == OpKind::Const && divisor->intAttr != 0 &&
           divisor->intAttr != -1;
  }
  case OpKind::Call: case OpKind::Alloca: case OpKind::Load: case OpKind::Store:
  case OpKind::PtrOffset: case OpKind::ViewLoad: case OpKind::ViewStore:
  case OpKind::ViewElementPtr: case OpKind::AtomicRmw: case OpKind::AtomicLoad:
  case OpKind::AtomicStore: case OpKind::AtomicCmpXchg: case OpKind::Fence:
  case OpKind::Barrier: case OpKind::GlobalId: case OpKind::LocalId: case OpKind::If:
  case OpKind::For: case OpKind::While: case OpKind::Condition: case OpKind::Break:
  case OpKind::Continue: case OpKind::Return: case OpKind::SubGroupLocalId:
  case OpKind::SubGroupBallot: case OpKind::SubGroupShuffle:
    return false;
  }
  return false;
}

} // namespace dpk::ir

// RangeGuard.cpp - Range kernels built to run in pieces of a fixed work-group shape.
#include "compiler/RangeGuard.h"

#include "ir/Builder.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>

namespace dpk::compiler {
namespace {

using ir::OpKind;

template <typename Visit> void forEachOp(const ir::Block &block, Visit &&visit);

/// Calls `visit` on `op` and every op in its regions, outer ops first.
template <typename Visit> void forEachOp(const ir::Op &op, Visit &&visit) {
  visit(op);
  for (const ir::Block &region : op.regions)
    forEachOp(region, visit);
}

/// Calls `visit` on every op of `block` and of the regions inside it, outer ops first.
/// Regions nest at most ir::kMaxRegionDepth deep in a verified module.
template <typename Visit> void forEachOp(const ir::Block &block, Visit &&visit) {
  for (const auto &op : block.ops)
    forEachOp(*op, visit);
}

bool isLocalSpace(const ir::Type &type) {
  return (type.isPointer() || type.isView()) && type.space == ir::AddressSpace::Local;
}

/// Ops that let a work-item see its work-group (a sub-group is part of one).
bool observesWorkGroup(OpKind kind) {
  return kind == OpKind::Barrier || kind == OpKind::LocalAlloc || kind == OpKind::LocalId ||
         kind == OpKind::GroupId || kind == OpKind::LocalSize || kind == OpKind::NumGroups ||
         kind == OpKind::SubGroupLocalId || kind == OpKind::SubGroupSize ||
         kind == OpKind::SubGroupBallot || kind == OpKind::SubGroupShuffle;
}

/// Whether `function` (the kernel when `isKernel`) keeps the guard's promise; adds the
/// functions it calls to `pending`.
bool functionAllows(const ir::Function &function, bool isKernel,
                    std::vector<const ir::Function *> &pending, const ir::Module &module) {
  for (const ir::Value *param : function.params) {
    if (isLocalSpace(param->type))
      return false;
  }
  bool allowed = true;
  forEachOp(function.body, [&](const ir::Op &op) {
    bool rangeOp = op.kind == OpKind::GlobalSize || op.kind == OpKind::GlobalId;
    if (observesWorkGroup(op.kind) || (rangeOp && !isKernel))
      allowed = false;
    if (op.kind == OpKind::Call) {
      if (const ir::Function *callee = module.lookup(op.callee))
        pending.push_back(callee);
    }
  });
  return allowed;
}

} // namespace

bool rangeGuardApplies(const ir::Function &kernel, const ir::Module &module) {
  std::vector<const ir::Function *> pending;
  if (!functionAllows(kernel, /*isKernel=*/true, pending, module))
    return false;
  std::set<const ir::Function *> seen{&kernel};
  while (!pending.empty()) {
    const ir::Function *function = pending.back();
    pending.pop_back();
    if (!seen.insert(function).second)
      continue;
    if (!functionAllows(*function, /*isKernel=*/false, pending, module))
      return false;
  }
  return true;
}

uint64_t privateMemoryBytes(const ir::Function &kernel, const ir::Module &module) {
  uint64_t bytes = 0;
  std::vector<const ir::Function *> pending{&kernel};
  std::set<const ir::Function *> seen;
  while (!pending.empty()) {
    const ir::Function *function = pending.back();
    pending.pop_back();
    if (!seen.insert(function).second)
      continue;
    forEachOp(function->body, [&](const ir::Op &op) {
      if (op.kind == OpKind::Alloca && op.intAttr > 0)
        bytes += static_cast<uint64_t>(op.intAttr) * ir::scalarSize(op.result->type.scalar);
      if (op.kind == OpKind::Call) {
        if (const ir::Function *callee = module.lookup(op.callee))
          pending.push_back(callee);
      }
    });
  }
  return bytes;
}

Error addRangeGuard(ir::Module &module, unsigned dims, bool guard) {
  if (dims < 1 || dims > 3)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "range guard: launch dimensionality " + std::to_string(dims) + " is not 1, 2 or 3");
  std::vector<ir::Function *> kernels;
  for (const auto &function : module.functions) {
    if (function->isKernel && rangeGuardApplies(*function, module))
      kernels.push_back(function.get());
  }
  const ir::Type i64 = ir::Type::scalarTy(ir::ScalarKind::I64);
  for (ir::Function *kernel : kernels) {
    // The real global sizes, then the piece's offsets, last.
    ir::Value *sizes[3] = {nullptr, nullptr, nullptr};
    ir::Value *offsets[3] = {nullptr, nullptr, nullptr};
    for (unsigned d = 0; d < dims; ++d) {
      sizes[d] = kernel->newValue(i64, "range_size" + std::to_string(d));
      kernel->params.push_back(sizes[d]);
    }
    for (unsigned d = 0; d < dims; ++d) {
      offsets[d] = kernel->newValue(i64, "range_offset" + std::to_string(d));
      kernel->params.push_back(offsets[d]);
    }

    // In front of the body: each dimension's id (the piece's id plus its offset) and, with the
    // guard, `if id >= size { return }`.
    ir::Builder builder(module);
    builder.setFunction(kernel);
    builder.setLoc(kernel->loc);
    size_t bodyOps = kernel->body.ops.size();
    ir::Value *ids[3] = {nullptr, nullptr, nullptr};
    for (unsigned d = 0; d < dims; ++d) {
      ir::Value *local = builder.workItem(OpKind::GlobalId, d);
      ids[d] = builder.binary(OpKind::Add, local, offsets[d]);
    }
    for (unsigned d = 0; guard && d < dims; ++d) {
      ir::Value *outside = builder.cmp(ir::CmpPredicate::Ge, ids[d], sizes[d]);
      ir::Op *check = builder.createIf(outside);
      builder.setInsertionPoint(ir::Builder::thenBlock(check));
      builder.ret();
      builder.setInsertionPoint(&kernel->body);
    }
    size_t prologueOps = kernel->body.ops.size() - bodyOps;

    // The body's global_id and global_size ops become those values: their uses are rewired,
    // then the ops dropped.
    std::unordered_map<const ir::Value *, ir::Value *> replaced;
    for (size_t i = 0; i < bodyOps; ++i) {
      forEachOp(*kernel->body.ops[i], [&](const ir::Op &op) {
        if (op.kind != OpKind::GlobalSize && op.kind != OpKind::GlobalId)
          return;
        if (op.intAttr < 0 || op.intAttr >= static_cast<int64_t>(dims))
          return; // the launch checks dims against the dimensions a kernel uses
        replaced[op.result] = op.kind == OpKind::GlobalSize ? sizes[op.intAttr] : ids[op.intAttr];
      });
    }
    auto rewire = [&](ir::Block &block, size_t first, auto &self) -> void {
      for (size_t i = first; i < block.ops.size(); ++i) {
        ir::Op &op = *block.ops[i];
        for (ir::Value *&operand : op.operands) {
          auto found = replaced.find(operand);
          if (found != replaced.end())
            operand = found->second;
        }
        for (ir::Block &region : op.regions)
          self(region, 0, self);
      }
      block.ops.erase(std::remove_if(block.ops.begin() + static_cast<std::ptrdiff_t>(first),
                                     block.ops.end(),
                                     [&](const std::unique_ptr<ir::Op> &op) {
                                       return op->result && replaced.count(op->result);
                                     }),
                      block.ops.end());
    };
    std::rotate(kernel->body.ops.begin(),
                kernel->body.ops.begin() + static_cast<std::ptrdiff_t>(bodyOps),
                kernel->body.ops.end());
    rewire(kernel->body, prologueOps, rewire);
  }
  return Error::success();
}

} // namespace dpk::compiler

// PrivateArrayLoops.cpp - see PrivateArrayLoops.h.
#include "compiler/PrivateArrayLoops.h"

namespace dpk::compiler {

namespace {

const ir::Op *constantOp(const ir::Value *value) {
  const ir::Op *def = value ? value->definingOp : nullptr;
  return def && def->kind == ir::OpKind::Const ? def : nullptr;
}

bool isPrivateArray(const ir::Value *pointer) {
  const ir::Op *def = pointer ? pointer->definingOp : nullptr;
  return def && def->kind == ir::OpKind::Alloca && def->intAttr > 1;
}

/// Regions nest at most ir::kMaxRegionDepth deep in a verified module.
bool indexesPrivateArray(const ir::Block &block) {
  for (const auto &op : block.ops) {
    bool access = op->kind == ir::OpKind::Load || op->kind == ir::OpKind::Store;
    if (access && op->operands.size() >= 2 && isPrivateArray(op->operands[0]) &&
        !constantOp(op->operands[1]))
      return true;
    for (const ir::Block &region : op->regions)
      if (indexesPrivateArray(region)) return true;
  }
  return false;
}

} // namespace

bool indexesPrivateArrayInFewTrips(const ir::Op &forOp) {
  if (forOp.kind != ir::OpKind::For || forOp.operands.size() != 3 || forOp.regions.empty())
    return false;
  const ir::Op *lo = constantOp(forOp.operands[0]), *hi = constantOp(forOp.operands[1]),
               *step = constantOp(forOp.operands[2]);
  if (!lo || !hi || !step || step->intAttr <= 0 || hi->intAttr <= lo->intAttr) return false;
  // (hi - lo) may not fit in int64 for extreme constants: compare without subtracting then
  if (lo->intAttr < 0 && hi->intAttr > INT64_MAX + lo->intAttr) return false;
  int64_t trips = (hi->intAttr - lo->intAttr + step->intAttr - 1) / step->intAttr;
  return trips <= kPrivateArrayLoopMaxTrips && indexesPrivateArray(forOp.regions[0]);
}

} // namespace dpk::compiler

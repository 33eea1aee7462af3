// LaunchDimensions.cpp - launch dimensions used by kernels (rule in LaunchDimensions.h).
#include "ir/LaunchDimensions.h"

#include <algorithm>
#include <unordered_map>

namespace dpk::ir {

namespace {

class DimensionSearch {
public:
  explicit DimensionSearch(const Module &module) : module_(module) {}

  unsigned inFunction(const Function &function) {
    auto found = visited_.find(&function);
    if (found != visited_.end()) return found->second;
    visited_[&function] = 0; // a recursive call (rejected by the verifier) adds nothing
    unsigned used = inBlock(function.body);
    visited_[&function] = used;
    return used;
  }

private:
  unsigned inBlock(const Block &block) {
    unsigned used = 0;
    for (const auto &op : block.ops) used = std::max(used, inOp(*op));
    return used;
  }

  unsigned inOp(const Op &op) {
    unsigned used = 0;
    if (opCategory(op.kind) == OpCategory::WorkItem && op.intAttr >= 0)
      used = static_cast<unsigned>(op.intAttr) + 1;
    if (op.kind == OpKind::Call) {
      if (const Function *callee = module_.lookup(op.callee))
        used = std::max(used, inFunction(*callee));
    }
    for (const Block &region : op.regions) used = std::max(used, inBlock(region));
    return used;
  }

  const Module &module_;
  std::unordered_map<const Function *, unsigned> visited_; // function -> dimensions used
};

} // namespace

unsigned dimensionsUsed(const Function &kernel, const Module &module) {
  return DimensionSearch(module).inFunction(kernel);
}

unsigned dimensionsUsed(const Module &module) {
  DimensionSearch search(module);
  unsigned used = 0;
  for (const auto &function : module.functions)
    if (function->isKernel) used = std::max(used, search.inFunction(*function));
  return used;
}

} // namespace dpk::ir

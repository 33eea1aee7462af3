// LaunchDimensions.cpp - launch dimensions used by kernels (rule in LaunchDimensions.h).
#include "ir/LaunchDimensions.h"

#include "ir/CallGraph.h"

#include <algorithm>
#include <unordered_map>

namespace dpk::ir {

namespace {

class DimensionSearch {
public:
  explicit DimensionSearch(const Module &module) : graph_(buildCallGraph(module)) {}

  /// Dimensions used by each root and everything it calls (callees first, so a call reads its
  /// callee's count instead of walking into it).
  void run(const std::vector<const Function *> &roots) {
    for (const Function *function : calleesFirst(graph_, roots))
      if (!used_.count(function)) used_[function] = inBlock(function->body);
  }

  unsigned used(const Function &function) const {
    auto found = used_.find(&function);
    return found == used_.end() ? 0 : found->second;
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
      // A callee not counted yet closes a cycle (rejected by the verifier): it adds nothing.
      if (const Function *callee = graph_.lookup(op.callee)) used = std::max(used, this->used(*callee));
    }
    for (const Block &region : op.regions) used = std::max(used, inBlock(region));
    return used;
  }

  CallGraph graph_;
  std::unordered_map<const Function *, unsigned> used_; // function -> dimensions used
};

} // namespace

unsigned dimensionsUsed(const Function &kernel, const Module &module) {
  DimensionSearch search(module);
  search.run({&kernel});
  return search.used(kernel);
}

unsigned dimensionsUsed(const Module &module) {
  std::vector<const Function *> kernels;
  for (const auto &function : module.functions)
    if (function->isKernel) kernels.push_back(function.get());
  DimensionSearch search(module);
  search.run(kernels);
  unsigned used = 0;
  for (const Function *kernel : kernels) used = std::max(used, search.used(*kernel));
  return used;
}

} // namespace dpk::ir

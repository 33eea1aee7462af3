// KernelSlice.cpp - printing one kernel with its callees as a module of its own.
#include "ir/KernelSlice.h"

#include "ir/CallGraph.h"

#include <unordered_set>

namespace dpk::ir {

std::string printKernelSlice(const Module &module, const Function &kernel,
                             const PrintOptions &options) {
  CallGraph graph = buildCallGraph(module);
  std::vector<const Function *> reached = calleesFirst(graph, {&kernel});
  std::unordered_set<const Function *> keep(reached.begin(), reached.end());
  std::string text;
  for (const auto &function : module.functions) {
    if (keep.count(function.get()) == 0)
      continue;
    text += printFunction(*function, options);
  }
  return text;
}

size_t kernelCount(const Module &module) {
  size_t count = 0;
  for (const auto &function : module.functions)
    count += function->isKernel ? 1 : 0;
  return count;
}

} // namespace dpk::ir

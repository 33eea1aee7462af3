// CallGraph.cpp - resolving calls once, and the callees-first order (see CallGraph.h).
#include "ir/CallGraph.h"

#include <unordered_set>

namespace dpk::ir {

namespace {

void collectCalls(const Block &block, const CallGraph &graph, std::vector<const Function *> &out,
                  std::unordered_set<const Function *> &seen) {
  for (const auto &op : block.ops) {
    if (op->kind == OpKind::Call) {
      const Function *callee = graph.lookup(op->callee);
      if (callee && seen.insert(callee).second) out.push_back(callee);
    }
    for (const Block &region : op->regions) collectCalls(region, graph, out, seen);
  }
}

} // namespace

const Function *CallGraph::lookup(const std::string &name) const {
  auto found = byName.find(name);
  return found == byName.end() ? nullptr : found->second;
}

CallGraph buildCallGraph(const Module &module) {
  CallGraph graph;
  for (const auto &function : module.functions) graph.byName.emplace(function->name, function.get());
  for (const auto &function : module.functions) {
    std::vector<const Function *> &callees = graph.callees[function.get()];
    std::unordered_set<const Function *> seen;
    collectCalls(function->body, graph, callees, seen);
  }
  return graph;
}

std::vector<const Function *> calleesFirst(const CallGraph &graph,
                                           const std::vector<const Function *> &roots) {
  static const std::vector<const Function *> none;
  auto calleesOf = [&](const Function *function) -> const std::vector<const Function *> & {
    auto found = graph.callees.find(function);
    return found == graph.callees.end() ? none : found->second;
  };
  std::vector<const Function *> order;
  std::unordered_set<const Function *> started;
  // The path of the depth-first walk: a function and the index of its next callee.
  std::vector<std::pair<const Function *, size_t>> path;
  for (const Function *root : roots) {
    if (!started.insert(root).second) continue;
    path.push_back({root, 0});
    while (!path.empty()) {
      auto &[function, next] = path.back();
      const std::vector<const Function *> &callees = calleesOf(function);
      if (next < callees.size()) {
        const Function *callee = callees[next++];
        if (started.insert(callee).second) path.push_back({callee, 0});
        continue;
      }
      order.push_back(function);
      path.pop_back();
    }
  }
  return order;
}

std::vector<const Function *> calleesFirst(const CallGraph &graph, const Module &module) {
  std::vector<const Function *> roots;
  for (const auto &function : module.functions) roots.push_back(function.get());
  return calleesFirst(graph, roots);
}

} // namespace dpk::ir

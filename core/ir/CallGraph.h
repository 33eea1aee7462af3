// CallGraph.h - the calls of a module, and an order that puts callees before their callers.
//
// Analyses that follow calls (barrier reach, launch dimensions, uniform call results, the
// verifier's recursion and call-depth checks) take the functions in calleesFirst() order and
// read a callee's result from a table instead of recursing into the callee at the call. So no
// walk recurses deeper than the region nesting of one function, however long the call chains,
// and a function called from many places is analysed once (a recursive walk per call is
// exponential in the depth of a call graph full of diamonds).
#ifndef DPK_CORE_IR_CALLGRAPH_H
#define DPK_CORE_IR_CALLGRAPH_H

#include "ir/IR.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace dpk::ir {

struct CallGraph {
  /// Functions by name; of functions sharing a name (rejected by the verifier), the first.
  std::unordered_map<std::string, const Function *> byName;
  /// For each function, the functions of the module it calls, in order of their first call,
  /// each once. Calls of functions the module does not define are left out.
  std::unordered_map<const Function *, std::vector<const Function *>> callees;

  const Function *lookup(const std::string &name) const;
};

/// Resolves every call of `module`. Recurses over regions only (so needs a module whose regions
/// nest at most kMaxRegionDepth deep, which the parser and the verifier guarantee).
CallGraph buildCallGraph(const Module &module);

/// The functions reachable from `roots` (roots included), each after every function it calls,
/// except where a call closes a cycle (recursion, which the verifier rejects: the walk does not
/// follow that call). Depth-first in call order, so the order is deterministic. Iterative: no
/// recursion over calls.
std::vector<const Function *> calleesFirst(const CallGraph &graph,
                                           const std::vector<const Function *> &roots);

/// Every function of `module`, in calleesFirst() order with the module's functions as roots.
std::vector<const Function *> calleesFirst(const CallGraph &graph, const Module &module);

} // namespace dpk::ir

#endif // DPK_CORE_IR_CALLGRAPH_H

// LaneMapping.cpp - the contiguity analysis behind the lane mapping of Range kernels.
#include "ir/LaneMapping.h"

#include "ir/CallGraph.h"
#include "ir/LaunchDimensions.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace dpk::ir {
namespace {

/// How a value changes when one dimension's global id grows by one, the others fixed.
enum class Step : uint8_t {
  Unknown, // not reached yet (the bottom of the lattice)
  Zero,    // does not change: uniform along the dimension
  Unit,    // grows by exactly one
  Other    // anything else: a stride, a sign change, data dependence
};
using Steps = std::array<Step, 3>;

Step join(Step a, Step b) {
  if (a == Step::Unknown) return b;
  if (b == Step::Unknown || a == b) return a;
  return Step::Other;
}

constexpr Steps kUniform = {Step::Zero, Step::Zero, Step::Zero};

bool isUniform(const Steps &s) {
  for (Step step : s)
    if (step != Step::Zero && step != Step::Unknown) return false;
  return true;
}

/// Whether `function` and what it calls use only global_id/global_size among the work-item ops,
/// and no barrier, local memory or sub-group op (so the grouping of work-items is unobservable).
bool groupingUnobservable(const Function &kernel, const Module &module, std::string &why) {
  CallGraph graph = buildCallGraph(module);
  for (const Function *function : calleesFirst(graph, {&kernel})) {
    std::function<bool(const Block &)> walk = [&](const Block &block) {
      for (const auto &op : block.ops) {
        switch (op->kind) {
        case OpKind::LocalId: case OpKind::GroupId: case OpKind::LocalSize:
        case OpKind::NumGroups: case OpKind::Barrier: case OpKind::LocalAlloc:
        case OpKind::SubGroupLocalId: case OpKind::SubGroupSize: case OpKind::SubGroupBallot:
        case OpKind::SubGroupShuffle:
          why = std::string("it uses ") + opName(op->kind) + " (in @" + function->name + ")";
          return false;
        default: break;
        }
        for (const Block &region : op->regions)
          if (!walk(region)) return false;
      }
      return true;
    };
    if (!walk(function->body)) return false;
  }
  return true;
}

class Contiguity {
public:
  explicit Contiguity(const Function &kernel) : kernel_(kernel) {}

  /// Computes every value's steps to a fixed point (each value can only move up a lattice of
  /// height 3 per dimension, so this ends in a few rounds).
  void solve() {
    for (const Value *param : kernel_.params) steps_[param] = kUniform;
    for (int round = 0; round < 64; ++round) {
      changed_ = false;
      visit(kernel_.body);
      if (!changed_) break;
    }
  }

  /// Scores the global memory accesses (after solve()).
  void score(LaneChoice &choice) {
    bestWeight_.fill(0);
    scoreBlock(kernel_.body, 0, choice);
  }

private:
  Steps of(const Value *value) const {
    auto it = steps_.find(value);
    return it == steps_.end() ? Steps{Step::Unknown, Step::Unknown, Step::Unknown} : it->second;
  }
  void set(const Value *value, const Steps &steps) { joinInto(steps_, value, steps); }
  /// What a private variable holds: the join of everything stored in it.
  Steps contentsOf(const Value *slot) const {
    auto it = contents_.find(slot);
    return it == contents_.end() ? Steps{Step::Unknown, Step::Unknown, Step::Unknown}
                                 : it->second;
  }
  void joinInto(std::unordered_map<const Value *, Steps> &map, const Value *value,
                const Steps &steps) {
    if (!value) return;
    Steps &slot = map.try_emplace(value, Steps{Step::Unknown, Step::Unknown, Step::Unknown})
                      .first->second;
    for (int d = 0; d < 3; ++d) {
      Step joined = join(slot[d], steps[d]);
      if (joined != slot[d]) {
        slot[d] = joined;
        changed_ = true;
      }
    }
  }
  /// The private variable a load or store goes through, or null.
  static const Value *privateSlot(const Value *pointer) {
    if (pointer->type.isPointer() && pointer->type.space == AddressSpace::Private &&
        pointer->definingOp && pointer->definingOp->kind == OpKind::Alloca)
      return pointer;
    return nullptr;
  }
  /// Data dependence: uniform where every operand is, Other elsewhere.
  Steps opaque(const Op &op) const {
    Steps out = kUniform;
    for (const Value *operand : op.operands) {
      Steps s = of(operand);
      for (int d = 0; d < 3; ++d)
        if (s[d] != Step::Zero && s[d] != Step::Unknown) out[d] = Step::Other;
    }
    return out;
  }
  static Steps add(const Steps &a, const Steps &b) {
    Steps out;
    for (int d = 0; d < 3; ++d) {
      if (a[d] == Step::Unknown || b[d] == Step::Unknown) out[d] = Step::Unknown;
      else if (a[d] == Step::Zero) out[d] = b[d];
      else if (b[d] == Step::Zero) out[d] = a[d];
      else out[d] = Step::Other;
    }
    return out;
  }
  static bool isConstOne(const Value *value) {
    const Op *def = value->definingOp;
    return def && def->kind == OpKind::Const && value->type.isInteger() && def->intAttr == 1;
  }

  void visit(const Block &block) {
    for (const auto &owned : block.ops) {
      const Op &op = *owned;
      switch (op.kind) {
      case OpKind::Const: case OpKind::GlobalSize: case OpKind::ViewDim:
      case OpKind::ViewStride: case OpKind::ViewPtr: case OpKind::Alloca:
      case OpKind::LocalAlloc:
        set(op.result, kUniform);
        break;
      case OpKind::GlobalId: {
        Steps s = kUniform;
        if (op.intAttr >= 0 && op.intAttr < 3) s[op.intAttr] = Step::Unit;
        set(op.result, s);
        break;
      }
      case OpKind::Add:
        set(op.result, add(of(op.operands[0]), of(op.operands[1])));
        break;
      case OpKind::Sub: {
        // a - b with b uniform keeps a's steps; anything else moves the other way or by 0/2.
        Steps b = of(op.operands[1]);
        set(op.result, isUniform(b) ? add(of(op.operands[0]), b) : opaque(op));
        break;
      }
      case OpKind::Mul: {
        const Value *a = op.operands[0], *b = op.operands[1];
        if (isConstOne(a)) set(op.result, of(b));
        else if (isConstOne(b)) set(op.result, of(a));
        else set(op.result, opaque(op)); // a uniform factor other than 1 makes a stride
        break;
      }
      case OpKind::Cast:
        set(op.result, of(op.operands[0]));
        break;
      case OpKind::PtrOffset:
        set(op.result, add(of(op.operands[0]), of(op.operands[1])));
        break;
      case OpKind::Load:
        if (const Value *slot = privateSlot(op.operands[0])) set(op.result, contentsOf(slot));
        else set(op.result, opaque(op));
        break;
      case OpKind::Store:
        if (const Value *slot = privateSlot(op.operands[0]))
          joinInto(contents_, slot, of(op.operands[2]));
        break;
      case OpKind::For: {
        // The induction variable runs lo, lo+step, ...: at a given iteration it moves with lo
        // (a uniform step); the trip count does not matter.
        const Value *var = op.regions[0].args.empty() ? nullptr : op.regions[0].args[0];
        Steps lo = of(op.operands[0]);
        set(var, isUniform(of(op.operands[2])) ? lo : opaque(op));
        break;
      }
      default:
        if (op.result) set(op.result, opaque(op));
        break;
      }
      for (const Block &region : op.regions) visit(region);
    }
  }

  /// The steps of the element an access reaches, per dimension: Unit = contiguous.
  std::array<bool, 3> contiguousIn(const Op &op) const {
    std::array<bool, 3> out{false, false, false};
    if (op.kind == OpKind::ViewLoad || op.kind == OpKind::ViewStore) {
      // Row-major views: the last index is the contiguous one (views of other layouts still
      // compute right; they may just not gain from the mapping).
      unsigned rank = op.operands[0]->type.rank;
      Steps last = of(op.operands[rank]);
      for (int d = 0; d < 3; ++d) {
        bool othersStill = true;
        for (unsigned i = 1; i < rank; ++i)
          othersStill &= of(op.operands[i])[d] == Step::Zero;
        out[d] = last[d] == Step::Unit && othersStill;
      }
      return out;
    }
    // Pointer accesses: pointer (through ptr_offset) plus index.
    Steps at = add(of(op.operands[0]), of(op.operands[1]));
    for (int d = 0; d < 3; ++d) out[d] = at[d] == Step::Unit;
    return out;
  }

  void scoreBlock(const Block &block, unsigned loopDepth, LaneChoice &choice) {
    for (const auto &owned : block.ops) {
      const Op &op = *owned;
      bool isStore = false, isAccess = false;
      switch (op.kind) {
      case OpKind::ViewLoad: isAccess = true; break;
      case OpKind::ViewStore: isAccess = isStore = true; break;
      case OpKind::Load:
        isAccess = op.operands[0]->type.space == AddressSpace::Global;
        break;
      case OpKind::Store: case OpKind::AtomicRmw: case OpKind::AtomicStore:
      case OpKind::AtomicCmpXchg:
        isAccess = isStore = op.operands[0]->type.space == AddressSpace::Global;
        break;
      case OpKind::AtomicLoad:
        isAccess = op.operands[0]->type.space == AddressSpace::Global;
        break;
      default: break;
      }
      if (op.kind == OpKind::ViewLoad || op.kind == OpKind::ViewStore)
        isAccess = op.operands[0]->type.space == AddressSpace::Global;
      if (isAccess) {
        unsigned weight = (isStore ? 4u : 1u) << (2 * std::min(loopDepth, 3u));
        std::array<bool, 3> contiguous = contiguousIn(op);
        for (unsigned d = 0; d < 3; ++d) {
          if (!contiguous[d]) continue;
          choice.weight[d] += weight;
          if (weight > bestWeight_[d]) {
            bestWeight_[d] = weight;
            bestAccess_[d] = describe(op);
          }
        }
      }
      unsigned inner = loopDepth + (op.kind == OpKind::For || op.kind == OpKind::While ? 1 : 0);
      for (const Block &region : op.regions) scoreBlock(region, inner, choice);
    }
  }

  std::string describe(const Op &op) const {
    const Value *base = op.operands[0];
    std::string name = base->name.empty() ? "%" + std::to_string(base->id) : base->name;
    bool store = op.kind == OpKind::ViewStore || op.kind == OpKind::Store ||
                 op.kind == OpKind::AtomicStore;
    std::string text = std::string(store ? "the store to " : op.kind == OpKind::ViewLoad ||
                                                                    op.kind == OpKind::Load
                                                                ? "the load of "
                                                                : "the atomic on ") +
                       "'" + name + "'";
    if (op.loc.line > 0) text += " at " + op.loc.file + ":" + std::to_string(op.loc.line);
    return text;
  }

public:
  std::array<unsigned, 3> bestWeight_{0, 0, 0};
  std::array<std::string, 3> bestAccess_;

private:
  const Function &kernel_;
  std::unordered_map<const Value *, Steps> steps_;
  std::unordered_map<const Value *, Steps> contents_; // private variables
  bool changed_ = false;
};

} // namespace

std::array<unsigned, 3> LaneChoice::newPosition() const {
  std::array<unsigned, 3> position{0, 1, 2};
  if (!permutes()) return position;
  unsigned next = 0;
  for (unsigned d = 0; d < dims; ++d)
    if (d != fastDimension) position[d] = next++;
  position[fastDimension] = dims - 1;
  return position;
}

LaneChoice chooseLaneMapping(const Function &kernel, const Module &module) {
  LaneChoice choice;
  choice.dims = dimensionsUsed(kernel, module);
  choice.fastDimension = choice.dims == 0 ? 0 : choice.dims - 1;
  if (choice.dims < 2) {
    choice.reason = "the kernel indexes fewer than 2 dimensions";
    return choice;
  }
  std::string why;
  if (!groupingUnobservable(kernel, module, why)) {
    choice.reason = "literal mapping: " + why;
    return choice;
  }
  choice.remappable = true;
  Contiguity analysis(kernel);
  analysis.solve();
  analysis.score(choice);
  unsigned last = choice.dims - 1;
  unsigned best = last;
  for (unsigned d = 0; d < choice.dims; ++d)
    if (choice.weight[d] > choice.weight[best]) best = d;
  choice.fastDimension = best;
  if (best == last) {
    choice.reason = choice.weight[last] > 0
                        ? "literal mapping: " + analysis.bestAccess_[last] +
                              " is contiguous in the last dimension"
                        : "literal mapping: no access is contiguous in another dimension";
    return choice;
  }
  choice.reason = "dimension " + std::to_string(best) + " feeds the fastest lanes: " +
                  analysis.bestAccess_[best] + " is contiguous in it (weight " +
                  std::to_string(choice.weight[best]) + " against " +
                  std::to_string(choice.weight[last]) + " for dimension " +
                  std::to_string(last) + ")";
  return choice;
}

void permuteWorkItemDimensions(Module &module, const std::array<unsigned, 3> &newPosition) {
  std::function<void(Block &)> walk = [&](Block &block) {
    for (auto &op : block.ops) {
      if (opCategory(op->kind) == OpCategory::WorkItem && op->intAttr >= 0 && op->intAttr < 3)
        op->intAttr = newPosition[op->intAttr];
      for (Block &region : op->regions) walk(region);
    }
  };
  for (auto &function : module.functions) walk(function->body);
}

} // namespace dpk::ir

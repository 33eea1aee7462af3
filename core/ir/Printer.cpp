// Printer.cpp - writes dpk IR as text (grammar in docs/ir.md).
#include "ir/Printer.h"

#include "ir/Spelling.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace dpk::ir {

namespace {

bool isIdentifier(const std::string &s) {
  if (s.empty()) return false;
  auto isAlpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!isAlpha(s[0])) return false;
  for (char c : s)
    if (!isAlpha(c) && !(c >= '0' && c <= '9') && c != '.') return false;
  return true;
}

/// How each value of one function is spelled. A name unique in the function is kept; of values
/// sharing a name (a frontend reusing `i` in two loops) the first in definition order keeps it
/// and the others become name.1, name.2, ... (skipping names in use);
/// unnamed values are numbered in definition order. Neither depends on Value::id, and printed
/// names are unique, so printing is stable across a round trip.
class Namer {
public:
  explicit Namer(const Function &function) {
    std::vector<const Value *> order;
    for (const Value *param : function.params) order.push_back(param);
    collect(function.body, order);
    std::unordered_map<std::string, unsigned> nameCount;
    for (const auto &value : function.values)
      if (isIdentifier(value->name)) ++nameCount[value->name];
    std::unordered_set<std::string> taken;
    for (const auto &value : function.values) {
      if (!isIdentifier(value->name) || nameCount[value->name] != 1) continue;
      taken.insert(value->name);
      names_[value.get()] = "%" + value->name;
    }
    unsigned next = 0;
    std::unordered_map<std::string, unsigned> suffix;
    for (const Value *value : order) {
      if (!value || names_.count(value)) continue;
      if (!isIdentifier(value->name)) {
        names_[value] = "%" + std::to_string(next++);
        continue;
      }
      std::string candidate = value->name;
      while (taken.count(candidate))
        candidate = value->name + "." + std::to_string(++suffix[value->name]);
      taken.insert(candidate);
      names_[value] = "%" + candidate;
    }
  }

  std::string operator()(const Value *value) const {
    if (!value) return "%<null>";
    auto it = names_.find(value);
    if (it != names_.end()) return it->second;
    return "%<undef" + std::to_string(value->id) + ">";
  }

private:
  static void collect(const Block &block, std::vector<const Value *> &order, unsigned depth = 0) {
    for (const Value *arg : block.args) order.push_back(arg);
    for (const auto &op : block.ops) {
      // Region ops have no result, so regions first matches text order. Regions too deep to
      // print (see printRegion) are not named either.
      if (depth < kMaxRegionDepth)
        for (const Block &region : op->regions) collect(region, order, depth + 1);
      order.push_back(op->result);
    }
  }

  std::unordered_map<const Value *, std::string> names_;
};

std::string floatLiteral(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", v);
  return buffer;
}

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string locSuffix(const SourceLoc &loc, const PrintOptions &options) {
  if (!options.locations || loc.line == 0) return {};
  return " loc(" + quoted(loc.file) + ":" + std::to_string(loc.line) + ":" +
         std::to_string(loc.column) + ")";
}

class FunctionPrinter {
public:
  FunctionPrinter(const Function &function, const PrintOptions &options)
      : function_(function), options_(options), name_(function) {}

  std::string printFunction() {
    out_ += function_.isKernel ? "kernel @" : function_.isExternal ? "extern func @" : "func @";
    out_ += function_.name + "(";
    for (size_t i = 0; i < function_.params.size(); ++i) {
      if (i) out_ += ", ";
      out_ += name_(function_.params[i]) + ": " + typeToString(function_.params[i]->type);
    }
    out_ += ")";
    if (!function_.returnType.isVoid()) out_ += " -> " + typeToString(function_.returnType);
    if (function_.minGroupsPerComputeUnit)
      out_ += " min_groups_per_cu(" + std::to_string(function_.minGroupsPerComputeUnit) + ")";
    out_ += locSuffix(function_.loc, options_);
    if (function_.isExternal) {
      out_ += "\n";
      return std::move(out_);
    }
    out_ += " {\n";
    printBlock(function_.body, 1);
    out_ += "}\n";
    return std::move(out_);
  }

  std::string printOne(const Op &op) {
    printOp(op, 0);
    if (!out_.empty() && out_.back() == '\n') out_.pop_back();
    return std::move(out_);
  }

private:
  void indent(unsigned depth) { out_.append(2 * depth, ' '); }

  void printBlock(const Block &block, unsigned depth) {
    for (const auto &op : block.ops) printOp(*op, depth);
  }

  std::string operands(size_t from, const Op &op) const {
    std::string s;
    for (size_t i = from; i < op.operands.size(); ++i) {
      if (i > from) s += ", ";
      s += name_(op.operands[i]);
    }
    return s;
  }

  std::string operand(const Op &op, size_t i) const {
    return i < op.operands.size() ? name_(op.operands[i]) : "%<missing>";
  }

  /// "aligned N " of a load or store that promises more than its element's alignment.
  static std::string alignment(const Op &op) {
    return op.align ? "aligned " + std::to_string(op.align) + " " : std::string();
  }

  /// "%p[%i]" for pointer ops, "%v[%i, %j]" for view ops (indices from 1 to end).
  std::string subscript(const Op &op, size_t end) const {
    std::string s = operand(op, 0) + "[";
    for (size_t i = 1; i < end && i < op.operands.size(); ++i) {
      if (i > 1) s += ", ";
      s += name_(op.operands[i]);
    }
    return s + "]";
  }

  std::string constLiteral(const Op &op) const {
    Type t = op.result ? op.result->type : Type::scalarTy(ScalarKind::I64);
    if (t.isFloat()) return floatLiteral(op.floatAttr);
    if (t.isBool()) return op.intAttr ? "true" : "false";
    if (t.isInteger() && !t.isSigned()) return std::to_string(static_cast<uint64_t>(op.intAttr));
    return std::to_string(op.intAttr);
  }

  std::string orderScope(const Op &op) const {
    return std::string(memoryOrderName(op.order)) + " " + memoryScopeName(op.scope);
  }

  /// Regions are printed straight into out_, so printing is linear in the size of the text
  /// (building each region's text apart and splicing it into its parent's copied every region
  /// once per enclosing region: cubic in the depth of nested ifs). A module nested deeper than
  /// kMaxRegionDepth (which the verifier rejects) prints its deepest regions as "{ ... }"
  /// rather than recursing without bound.
  void printRegion(const Block &block, unsigned depth) {
    if (depth > kMaxRegionDepth) {
      out_ += "{ ... }";
      return;
    }
    out_ += "{\n";
    printBlock(block, depth + 1);
    indent(depth);
    out_ += "}";
  }

  void printOp(const Op &op, unsigned depth) {
    indent(depth);
    if (op.result) out_ += name_(op.result) + " = ";
    out_ += opName(op.kind);
    if (op.kind == OpKind::If || op.kind == OpKind::For || op.kind == OpKind::While) {
      out_ += " ";
      printRegionOpBody(op, depth);
    } else {
      std::string body = opBody(op);
      if (!body.empty()) out_ += " " + body;
    }
    if (op.result) out_ += " : " + typeToString(op.result->type);
    out_ += locSuffix(op.loc, options_);
    out_ += "\n";
  }

  /// The text after the op name of an if, for or while, appended to out_.
  void printRegionOpBody(const Op &op, unsigned depth) {
    if (op.kind == OpKind::If) {
      out_ += operand(op, 0) + " ";
      if (op.regions.size() > 0) printRegion(op.regions[0], depth);
      if (op.regions.size() > 1 && !op.regions[1].ops.empty()) {
        out_ += " else ";
        printRegion(op.regions[1], depth);
      }
      return;
    }
    if (op.kind == OpKind::For) {
      const Value *iv = !op.regions.empty() && !op.regions[0].args.empty() ? op.regions[0].args[0]
                                                                            : nullptr;
      out_ += name_(iv) + " = " + operand(op, 0) + " to " + operand(op, 1) + " step " +
              operand(op, 2) + " ";
      if (!op.regions.empty()) printRegion(op.regions[0], depth);
      return;
    }
    assert(op.kind == OpKind::While && "only if, for and while have regions");
    if (op.regions.size() > 0) printRegion(op.regions[0], depth);
    out_ += " do ";
    if (op.regions.size() > 1) printRegion(op.regions[1], depth);
  }

  /// Everything between the op name and the result type of an op other than if, for and while
  /// (see printRegionOpBody).
  std::string opBody(const Op &op) {
    switch (op.kind) {
    case OpKind::Const: return constLiteral(op);
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Rem:
    case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl: case OpKind::Shr:
    case OpKind::Neg: case OpKind::Not: case OpKind::Select: case OpKind::Cast:
    case OpKind::Condition: case OpKind::Break: case OpKind::Continue: case OpKind::Return:
    case OpKind::SubGroupLocalId: case OpKind::SubGroupSize: case OpKind::SubGroupBallot:
    case OpKind::SubGroupShuffle:
      return operands(0, op);
    case OpKind::Cmp: return std::string(cmpPredicateName(op.predicate)) + " " + operands(0, op);
    case OpKind::Math: return std::string(mathFnName(op.mathFn)) + " " + operands(0, op);
    case OpKind::Call: return "@" + op.callee + "(" + operands(0, op) + ")";
    case OpKind::Alloca: case OpKind::LocalAlloc: return std::to_string(op.intAttr);
    case OpKind::Load: return alignment(op) + subscript(op, 2);
    case OpKind::PtrOffset: return subscript(op, 2);
    case OpKind::Store:
      return (op.intAttr ? "nontemporal " : "") + alignment(op) + subscript(op, 2) + ", " +
             operand(op, 2);
    case OpKind::ViewLoad: case OpKind::ViewElementPtr: return subscript(op, op.operands.size());
    case OpKind::ViewStore:
      return subscript(op, op.operands.size() - 1) + ", " + operand(op, op.operands.size() - 1);
    case OpKind::ViewDim: case OpKind::ViewStride:
      return operand(op, 0) + ", " + std::to_string(op.intAttr);
    case OpKind::ViewPtr: return operand(op, 0);
    case OpKind::AtomicRmw:
      return std::string(atomicRmwKindName(op.rmwKind)) + " " + orderScope(op) + " " +
             subscript(op, 2) + ", " + operand(op, 2);
    case OpKind::AtomicLoad: return orderScope(op) + " " + subscript(op, 2);
    case OpKind::AtomicStore: return orderScope(op) + " " + subscript(op, 2) + ", " + operand(op, 2);
    case OpKind::AtomicCmpXchg:
      return orderScope(op) + " " + subscript(op, 2) + ", " + operand(op, 2) + ", " +
             operand(op, 3);
    case OpKind::Fence: return orderScope(op);
    case OpKind::Barrier: return memoryScopeName(op.scope);
    case OpKind::GlobalId: case OpKind::LocalId: case OpKind::GroupId: case OpKind::GlobalSize:
    case OpKind::LocalSize: case OpKind::NumGroups:
      return std::to_string(op.intAttr);
    case OpKind::If: case OpKind::For: case OpKind::While:
      return {}; // printed by printRegionOpBody()
    }
    return {};
  }

  const Function &function_;
  const PrintOptions &options_;
  Namer name_;
  std::string out_;
};

} // namespace

std::string printFunction(const Function &function, const PrintOptions &options) {
  return FunctionPrinter(function, options).printFunction();
}

std::string printModule(const Module &module, const PrintOptions &options) {
  std::string out;
  for (const auto &function : module.functions) out += printFunction(*function, options);
  return out;
}

std::string printOp(const Function &function, const Op &op, const PrintOptions &options) {
  return FunctionPrinter(function, options).printOne(op);
}

std::string valueName(const Function &function, const Value &value) {
  return Namer(function)(&value);
}

} // namespace dpk::ir

// Verifier.cpp - one-pass well-formedness checks of dpk IR (see Verifier.h, rules in docs/ir.md).
#include "ir/Verifier.h"

#include "ir/Barriers.h"
#include "ir/CallGraph.h"
#include "ir/Names.h"
#include "ir/Printer.h"
#include "ir/Spelling.h"
#include "ir/Uniformity.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace dpk::ir {

namespace {

bool hasResult(OpKind kind) {
  switch (kind) {
  case OpKind::Const: case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div:
  case OpKind::Rem: case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl:
  case OpKind::Shr: case OpKind::Neg: case OpKind::Not: case OpKind::Cmp: case OpKind::Select:
  case OpKind::Cast: case OpKind::Math: case OpKind::Alloca: case OpKind::LocalAlloc:
  case OpKind::Load: case OpKind::PtrOffset: case OpKind::ViewLoad: case OpKind::ViewDim:
  case OpKind::ViewStride: case OpKind::ViewPtr: case OpKind::ViewElementPtr:
  case OpKind::AtomicRmw: case OpKind::AtomicLoad: case OpKind::AtomicCmpXchg:
  case OpKind::GlobalId: case OpKind::LocalId: case OpKind::GroupId: case OpKind::GlobalSize:
  case OpKind::LocalSize: case OpKind::NumGroups: case OpKind::SubGroupLocalId:
  case OpKind::SubGroupSize: case OpKind::SubGroupBallot: case OpKind::SubGroupShuffle:
    return true;
  case OpKind::Call: // depends on the callee; checked separately
  case OpKind::Store: case OpKind::ViewStore: case OpKind::AtomicStore: case OpKind::Fence:
  case OpKind::Barrier: case OpKind::If: case OpKind::For: case OpKind::While:
  case OpKind::Condition: case OpKind::Break: case OpKind::Continue: case OpKind::Return:
    return false;
  }
  return false;
}

unsigned regionCount(OpKind kind) {
  switch (kind) {
  case OpKind::If: case OpKind::While: return 2;
  case OpKind::For: return 1;
  case OpKind::Const: case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div:
  case OpKind::Rem: case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl:
  case OpKind::Shr: case OpKind::Neg: case OpKind::Not: case OpKind::Cmp: case OpKind::Select:
  case OpKind::Cast: case OpKind::Math: case OpKind::Call: case OpKind::Alloca:
  case OpKind::LocalAlloc: case OpKind::Load: case OpKind::Store: case OpKind::PtrOffset:
  case OpKind::ViewLoad: case OpKind::ViewStore: case OpKind::ViewDim: case OpKind::ViewStride:
  case OpKind::ViewPtr: case OpKind::ViewElementPtr: case OpKind::AtomicRmw:
  case OpKind::AtomicLoad: case OpKind::AtomicStore: case OpKind::AtomicCmpXchg:
  case OpKind::Fence: case OpKind::Barrier: case OpKind::GlobalId: case OpKind::LocalId:
  case OpKind::GroupId: case OpKind::GlobalSize: case OpKind::LocalSize: case OpKind::NumGroups:
  case OpKind::Condition: case OpKind::Break: case OpKind::Continue: case OpKind::Return:
  case OpKind::SubGroupLocalId: case OpKind::SubGroupSize: case OpKind::SubGroupBallot:
  case OpKind::SubGroupShuffle:
    return 0;
  }
  return 0;
}

bool isTerminator(OpKind kind) { return opCategory(kind) == OpCategory::Terminator; }

const Type kI64 = Type::scalarTy(ScalarKind::I64);
const Type kBool = Type::scalarTy(ScalarKind::Bool);

bool fitsInteger(int64_t v, ScalarKind kind) {
  switch (kind) {
  case ScalarKind::Bool: return v == 0 || v == 1;
  case ScalarKind::I8: return v >= -128 && v <= 127;
  case ScalarKind::I16: return v >= -32768 && v <= 32767;
  case ScalarKind::I32:
    return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
  case ScalarKind::U8: return v >= 0 && v <= 255;
  case ScalarKind::U16: return v >= 0 && v <= 65535;
  case ScalarKind::U32: return v >= 0 && v <= std::numeric_limits<uint32_t>::max();
  case ScalarKind::I64: case ScalarKind::U64: case ScalarKind::F16: case ScalarKind::F32:
  case ScalarKind::F64:
    return true;
  }
  return true;
}

class Verifier {
public:
  explicit Verifier(const Module &module) : module_(module) {}

  Error run() {
    std::unordered_set<std::string> names;
    for (const auto &f : module_.functions) {
      if (!f) {
        error_ = Error(DPK_ERROR_VERIFY, "error: the module holds a null function");
        return std::move(error_);
      }
      if (!names.insert(f->name).second) {
        fail(*f, nullptr, "duplicate definition of function @" + f->name);
        return std::move(error_);
      }
      if (!checkName(*f)) return std::move(error_);
    }
    // The nesting limit first: every later check, and every pass after verification, recurses
    // over regions.
    for (const auto &f : module_.functions)
      if (!checkNesting(*f, f->body, 0)) return std::move(error_);
    graph_ = buildCallGraph(module_);
    if (!checkCalls()) return std::move(error_);
    barriers_ = findBarriers(module_);
    for (const auto &f : module_.functions)
      if (!verifyFunction(*f)) return std::move(error_);
    return Error::success();
  }

private:
  // ---- diagnostics -----------------------------------------------------------------------

  bool fail(const Function &f, const Op *op, const std::string &why) {
    if (error_) return false;
    std::string message;
    const SourceLoc &loc = op ? op->loc : f.loc;
    if (loc.line > 0)
      message += loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + ": ";
    message += "error: ";
    message += f.isKernel ? "kernel @" : f.isExternal ? "extern func @" : "func @";
    message += f.name + ": ";
    if (op) message += std::string("'") + opName(op->kind) + "': ";
    message += why;
    if (op && op->regions.empty()) message += "\n  in: " + printOp(f, *op);
    error_ = Error(DPK_ERROR_VERIFY, message);
    return false;
  }
  bool fail(const Op &op, const std::string &why) { return fail(*function_, &op, why); }

  static std::string str(const Type &t) { return typeToString(t); }

  // ---- module level ----------------------------------------------------------------------

  /// Function names must print and parse back (IR identifiers); kernel names must also be a
  /// name every target can give an entry point (see kernelNameProblem()).
  bool checkName(const Function &f) {
    if (!isIrName(f.name))
      return fail(f, nullptr, "function name '" + f.name +
                                  "' is not an IR name (letters, digits, '_' and '.')");
    if (f.isExternal) return checkExternalName(f);
    if (!f.isKernel) return true;
    std::string problem = kernelNameProblem(f.name);
    if (problem.empty()) return true;
    return fail(f, nullptr, problem);
  }

  /// An external function's name is the symbol every target links against unchanged (the
  /// OpenCL C emitter renames device functions, never these), so it must be a C identifier
  /// that C and OpenCL C do not reserve.
  bool checkExternalName(const Function &f) {
    bool identifier = !f.name.empty() && !(f.name[0] >= '0' && f.name[0] <= '9');
    for (char c : f.name)
      identifier &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_';
    if (!identifier)
      return fail(f, nullptr, "external function name '" + f.name +
                                  "' is not a C identifier (letters, digits and '_', not "
                                  "starting with a digit), which linking by symbol needs");
    if (isReservedWord(f.name))
      return fail(f, nullptr, "external function name '" + f.name +
                                  "' is reserved in C or OpenCL C");
    return true;
  }

  /// An external function declares a symbol: no kernel, no body, and only types that have one
  /// meaning in C, OpenCL C, CUDA and LLVM IR (scalars and pointers; a view is dpk's own
  /// expansion and has no such meaning).
  bool checkExternal(const Function &f) {
    if (f.isKernel) return fail(f, nullptr, "a kernel cannot be external");
    if (!f.body.ops.empty())
      return fail(f, nullptr, "an extern func has no body (its definition is linked in)");
    for (const Value *param : f.params) {
      if (!param || param->type.isVoid()) return fail(f, nullptr, "a parameter has type void");
      if (param->type.isView())
        return fail(f, nullptr, "parameter " + valueName(f, *param) + " of an extern func is " +
                                    str(param->type) +
                                    ": external functions take scalars and pointers, not views "
                                    "(pass view_ptr and the sizes)");
    }
    if (f.returnType.isView() || f.returnType.isPointer())
      return fail(f, nullptr, "an extern func returns a scalar or nothing, not " +
                                  str(f.returnType));
    return true;
  }

  /// Regions nest at most kMaxRegionDepth deep. Recurses at most one level past the limit.
  bool checkNesting(const Function &f, const Block &block, unsigned depth) {
    for (const auto &op : block.ops) {
      if (!op) return fail(f, nullptr, "a block holds a null op");
      if (op->regions.empty()) continue;
      if (depth + 1 > kMaxRegionDepth)
        return fail(f, op.get(), "regions nest deeper than " + std::to_string(kMaxRegionDepth) +
                                     " levels (the IR's limit)");
      for (const Block &region : op->regions)
        if (!checkNesting(f, region, depth + 1)) return false;
    }
    return true;
  }

  /// No recursion (no cycle in the call graph), and no call chain longer than kMaxCallDepth
  /// functions. A depth-first walk with an explicit path: no recursion over calls.
  bool checkCalls() {
    enum class State { New, OnPath, Done };
    std::unordered_map<const Function *, State> state;
    std::unordered_map<const Function *, unsigned> chain; // longest chain starting here
    static const std::vector<const Function *> none;
    auto calleesOf = [&](const Function *f) -> const std::vector<const Function *> & {
      auto found = graph_.callees.find(f);
      return found == graph_.callees.end() ? none : found->second;
    };
    std::vector<std::pair<const Function *, size_t>> path;
    for (const auto &root : module_.functions) {
      if (state[root.get()] != State::New) continue;
      state[root.get()] = State::OnPath;
      path.push_back({root.get(), 0});
      while (!path.empty()) {
        const Function *f = path.back().first;
        size_t next = path.back().second++;
        const std::vector<const Function *> &callees = calleesOf(f);
        if (next < callees.size()) {
          const Function *callee = callees[next];
          State &calleeState = state[callee];
          if (calleeState == State::OnPath) {
            std::string cycle;
            bool inCycle = false;
            for (const auto &[g, unused] : path) {
              inCycle |= g == callee;
              if (inCycle) cycle += "@" + g->name + " -> ";
            }
            return fail(*callee, nullptr,
                        "recursion is not supported on GPU targets: " + cycle + "@" + callee->name);
          }
          if (calleeState == State::New) {
            calleeState = State::OnPath;
            path.push_back({callee, 0});
          }
          continue;
        }
        unsigned longest = 0;
        for (const Function *callee : callees) longest = std::max(longest, chain[callee]);
        chain[f] = longest + 1;
        if (chain[f] > kMaxCallDepth)
          return fail(*f, nullptr, "calls nest deeper than " + std::to_string(kMaxCallDepth) +
                                       " functions from here (the IR's limit)");
        state[f] = State::Done;
        path.pop_back();
      }
    }
    return true;
  }

  // ---- functions and scopes --------------------------------------------------------------

  bool verifyFunction(const Function &f) {
    function_ = &f;
    visible_.clear();
    closed_.clear();
    ownValues_.clear();
    loops_.clear();
    for (const auto &v : f.values) ownValues_.insert(v.get());
    if (f.minGroupsPerComputeUnit && !f.isKernel)
      return fail(f, nullptr, "min_groups_per_cu is a kernel's attribute, not a function's");
    if (f.minGroupsPerComputeUnit > kMaxGroupsPerComputeUnit)
      return fail(f, nullptr, "min_groups_per_cu must be 1 to " +
                                  std::to_string(kMaxGroupsPerComputeUnit));
    if (f.isExternal) return checkExternal(f);
    if (f.isKernel && !f.returnType.isVoid())
      return fail(f, nullptr, "kernels return void, not " + str(f.returnType));
    for (const Value *param : f.params) {
      if (!param || param->type.isVoid()) return fail(f, nullptr, "a parameter has type void");
      if (f.isKernel && param->type.isPointer() && param->type.space == AddressSpace::Private)
        return fail(f, nullptr, "kernel parameter " + valueName(f, *param) +
                                    " cannot point to private memory");
      visible_.insert(param);
    }
    uniformity_ = analyzeUniformity(f, &module_);
    if (!verifyBlock(f.body, nullptr)) return false;
    if (!f.returnType.isVoid() &&
        (f.body.ops.empty() || f.body.ops.back()->kind != OpKind::Return))
      return fail(f, nullptr, "function returning " + str(f.returnType) + " must end with return");
    return true;
  }

  /// Checks a block's ops in order; values defined inside stop being visible at its end.
  bool verifyBlock(const Block &block, const Op *parent) {
    std::vector<const Value *> defined;
    for (const Value *arg : block.args) {
      visible_.insert(arg);
      defined.push_back(arg);
    }
    for (size_t i = 0; i < block.ops.size(); ++i) {
      const Op &op = *block.ops[i];
      if (i > 0 && isTerminator(block.ops[i - 1]->kind))
        return fail(op, std::string("unreachable op after '") + opName(block.ops[i - 1]->kind) + "'");
      if (op.kind == OpKind::Condition) {
        bool inWhileCond = parent && parent->kind == OpKind::While && &block == &parent->regions[0];
        if (!inWhileCond) return fail(op, "condition outside the condition region of a while");
        if (i + 1 != block.ops.size()) return fail(op, "condition must be the last op of its region");
      }
      if (!verifyOp(op, parent)) return false;
      if (op.result) {
        visible_.insert(op.result);
        defined.push_back(op.result);
      }
    }
    if (parent && parent->kind == OpKind::While && &block == &parent->regions[0] &&
        (block.ops.empty() || block.ops.back()->kind != OpKind::Condition))
      return fail(*parent, "the condition region of a while must end with 'condition'");
    for (const Value *v : defined) {
      visible_.erase(v);
      closed_.insert(v);
    }
    return true;
  }

  bool checkOperandsVisible(const Op &op) {
    for (const Value *v : op.operands) {
      if (!v) return fail(op, "has a null operand");
      if (visible_.count(v)) continue;
      if (!ownValues_.count(v)) return fail(op, "uses a value of another function");
      std::string name = valueName(*function_, *v);
      if (closed_.count(v))
        return fail(op, "uses " + name + " outside the region that defines it");
      return fail(op, "uses " + name + " before its definition");
    }
    return true;
  }

  // ---- ops -------------------------------------------------------------------------------

  bool verifyOp(const Op &op, const Op *parent) {
    if (!checkOperandsVisible(op)) return false;
    if (op.kind != OpKind::Call) {
      if (hasResult(op.kind) && !op.result) return fail(op, "must have a result");
      if (!hasResult(op.kind) && op.result) return fail(op, "has no result");
    }
    if (op.regions.size() != regionCount(op.kind))
      return fail(op, "must have " + std::to_string(regionCount(op.kind)) + " regions");
    if (op.result && op.result->definingOp != &op)
      return fail(op, "result's definingOp does not point back to the op");
    if (!checkOpTypes(op, parent)) return false;
    return verifyRegions(op);
  }

  bool verifyRegions(const Op &op) {
    switch (op.kind) {
    case OpKind::For: case OpKind::While:
      for (const Block &region : op.regions) {
        // A while's condition region is not part of the body: break/continue there would
        // skip its `condition`.
        bool body = !(op.kind == OpKind::While && &region == &op.regions[0]);
        loops_.push_back(body);
        bool ok = verifyBlock(region, &op);
        loops_.pop_back();
        if (!ok) return false;
      }
      return true;
    case OpKind::Const: case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div:
    case OpKind::Rem: case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl:
    case OpKind::Shr: case OpKind::Neg: case OpKind::Not: case OpKind::Cmp: case OpKind::Select:
    case OpKind::Cast: case OpKind::Math: case OpKind::Call: case OpKind::Alloca:
    case OpKind::LocalAlloc: case OpKind::Load: case OpKind::Store: case OpKind::PtrOffset:
    case OpKind::ViewLoad: case OpKind::ViewStore: case OpKind::ViewDim: case OpKind::ViewStride:
    case OpKind::ViewPtr: case OpKind::ViewElementPtr: case OpKind::AtomicRmw:
    case OpKind::AtomicLoad: case OpKind::AtomicStore: case OpKind::AtomicCmpXchg:
    case OpKind::Fence: case OpKind::Barrier: case OpKind::GlobalId: case OpKind::LocalId:
    case OpKind::GroupId: case OpKind::GlobalSize: case OpKind::LocalSize: case OpKind::NumGroups:
    case OpKind::If: case OpKind::Condition: case OpKind::Break: case OpKind::Continue:
    case OpKind::Return: case OpKind::SubGroupLocalId: case OpKind::SubGroupSize:
    case OpKind::SubGroupBallot: case OpKind::SubGroupShuffle:
      for (const Block &region : op.regions)
        if (!verifyBlock(region, &op)) return false;
      return true;
    }
    return true;
  }

  bool expectOperands(const Op &op, size_t n) {
    if (op.operands.size() == n) return true;
    return fail(op, "expects " + std::to_string(n) + " operands, got " +
                        std::to_string(op.operands.size()));
  }

  bool expectResultType(const Op &op, Type t) {
    if (op.result->type == t) return true;
    return fail(op, "result type must be " + str(t) + ", not " + str(op.result->type));
  }

  bool expectIndex(const Op &op, const Value *v) {
    if (v->type == kI64) return true;
    return fail(op, "index must be i64, not " + str(v->type));
  }

  bool checkNotF16(const Op &op, Type t) {
    if (!(t.isScalar() && t.scalar == ScalarKind::F16)) return true;
    return fail(op, "f16 is a storage type: cast to f32 before arithmetic");
  }

  bool checkPointer(const Op &op, size_t indexOperands) {
    if (!expectOperands(op, 2 + indexOperands)) return false;
    const Value *ptr = op.operands[0];
    if (!ptr->type.isPointer()) return fail(op, "first operand must be a pointer, not " + str(ptr->type));
    return expectIndex(op, op.operands[1]);
  }

  /// A load's or store's promised alignment must be one an element's address can have: a power
  /// of two no smaller than the element and no larger than any target's widest vector access.
  bool checkAlignment(const Op &op, const char *what) {
    if (op.align == 0) return true;
    int64_t element = scalarSize(op.operands[0]->type.scalar);
    if (op.align >= element && op.align <= 256 && (op.align & (op.align - 1)) == 0) return true;
    return fail(op, std::string(what) + " alignment " + std::to_string(op.align) +
                        " is not a power of two from the element's size (" +
                        std::to_string(element) + ") to 256");
  }

  bool checkView(const Op &op, size_t extraOperands) {
    const Value *view = op.operands.empty() ? nullptr : op.operands[0];
    if (!view || !view->type.isView()) return fail(op, "first operand must be a view");
    unsigned rank = view->type.rank;
    if (op.operands.size() != 1 + rank + extraOperands)
      return fail(op, "a rank-" + std::to_string(rank) + " view needs " + std::to_string(rank) +
                          " indices, got " +
                          std::to_string(op.operands.size() >= 1 + extraOperands
                                             ? op.operands.size() - 1 - extraOperands
                                             : 0));
    for (unsigned i = 1; i <= rank; ++i)
      if (!expectIndex(op, op.operands[i])) return false;
    return true;
  }

  bool checkWritable(const Op &op, AddressSpace space) {
    if (space != AddressSpace::Constant) return true;
    return fail(op, "cannot write through a pointer to constant memory");
  }

  bool checkAtomicPointer(const Op &op, size_t valueOperands) {
    if (!checkPointer(op, valueOperands)) return false;
    Type ptr = op.operands[0]->type;
    if (ptr.space != AddressSpace::Global && ptr.space != AddressSpace::Local)
      return fail(op, "atomics need a pointer to global or local memory, not " + str(ptr));
    Type elem = ptr.elementType();
    bool sized = scalarSize(ptr.scalar) == 4 || scalarSize(ptr.scalar) == 8;
    if (!sized || !(elem.isInteger() || elem.isFloat()))
      return fail(op, "atomics need 32- or 64-bit integer or float elements, not " + str(elem));
    for (size_t i = 2; i < op.operands.size(); ++i)
      if (op.operands[i]->type != elem)
        return fail(op, "value type " + str(op.operands[i]->type) +
                            " does not match the element type " + str(elem));
    if (op.result && !expectResultType(op, elem)) return false;
    return true;
  }

  bool checkMath(const Op &op) {
    unsigned arity = mathFnArity(op.mathFn);
    std::string fn = mathFnName(op.mathFn);
    if (op.operands.size() != arity)
      return fail(op, fn + " takes " + std::to_string(arity) + " operand" +
                          (arity == 1 ? "" : "s") + ", got " + std::to_string(op.operands.size()));
    Type t = op.operands[0]->type;
    if (op.mathFn == MathFn::Popcount) {
      // Counts the bits of an integer's representation: floats (f16 included) and bool have none
      // to count here.
      if (!t.isInteger()) return fail(op, fn + " needs an integer operand, not " + str(t));
      return expectResultType(op, t);
    }
    bool intOk = op.mathFn == MathFn::Min || op.mathFn == MathFn::Max || op.mathFn == MathFn::Abs;
    if (!checkNotF16(op, t)) return false;
    if (!(t.isFloat() || (intOk && t.isInteger())))
      return fail(op, fn + " needs " + (intOk ? "an integer or float" : "a float") +
                          " operand, not " + str(t));
    if (arity == 2) {
      Type second = op.operands[1]->type;
      if (op.mathFn == MathFn::Ldexp) {
        if (second != Type::scalarTy(ScalarKind::I32))
          return fail(op, "ldexp's second operand must be i32, not " + str(second));
      } else if (second != t) {
        return fail(op, fn + " operands must have equal types (" + str(t) + " and " +
                            str(second) + ")");
      }
    }
    bool predicate = op.mathFn == MathFn::IsNan || op.mathFn == MathFn::IsInf;
    return expectResultType(op, predicate ? kBool : t);
  }

  bool checkCall(const Op &op) {
    const Function *callee = graph_.lookup(op.callee);
    if (!callee) return fail(op, "call to unknown function @" + op.callee);
    if (callee->isKernel) return fail(op, "cannot call kernel @" + op.callee);
    if (op.operands.size() != callee->params.size())
      return fail(op, "@" + op.callee + " takes " + std::to_string(callee->params.size()) +
                          " arguments, got " + std::to_string(op.operands.size()));
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (op.operands[i]->type != callee->params[i]->type)
        return fail(op, "argument " + std::to_string(i) + " of @" + op.callee + " must be " +
                            str(callee->params[i]->type) + ", not " + str(op.operands[i]->type));
    if (callee->returnType.isVoid() && op.result)
      return fail(op, "@" + op.callee + " returns nothing, but the call has a result");
    if (!callee->returnType.isVoid()) {
      if (!op.result) return fail(op, "@" + op.callee + " returns " + str(callee->returnType) +
                                          ": the call needs a result");
      if (!expectResultType(op, callee->returnType)) return false;
    }
    if (barriers_.reachesBarrier(*callee)) {
      bool uniformArgs = true;
      for (const Value *v : op.operands) uniformArgs &= uniformity_.isUniform(v);
      if (!uniformity_.inUniformControlFlow(&op) || !uniformArgs)
        return fail(op, "@" + op.callee +
                            " contains a barrier and must be called in uniform control flow "
                            "with uniform arguments");
    }
    return true;
  }

  bool checkOpTypes(const Op &op, const Op *parent) {
    switch (op.kind) {
    case OpKind::Const: {
      Type t = op.result->type;
      if (!t.isScalar()) return fail(op, "constants must be scalars, not " + str(t));
      if (!t.isFloat() && !fitsInteger(op.intAttr, t.scalar))
        return fail(op, "constant " + std::to_string(op.intAttr) + " does not fit in " + str(t));
      return true;
    }
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Rem:
    case OpKind::And: case OpKind::Or: case OpKind::Xor: case OpKind::Shl: case OpKind::Shr: {
      if (!expectOperands(op, 2)) return false;
      Type a = op.operands[0]->type, b = op.operands[1]->type;
      if (a != b)
        return fail(op, "operands must have equal types (" + str(a) + " and " + str(b) + ")");
      if (!a.isScalar()) return fail(op, "operands must be scalars, not " + str(a));
      if (!checkNotF16(op, a)) return false;
      bool logical = op.kind == OpKind::And || op.kind == OpKind::Or || op.kind == OpKind::Xor;
      bool shift = op.kind == OpKind::Shl || op.kind == OpKind::Shr;
      if (logical && !(a.isInteger() || a.isBool()))
        return fail(op, "needs integer or bool operands, not " + str(a));
      if (shift && !a.isInteger()) return fail(op, "needs integer operands, not " + str(a));
      if (!logical && !shift && a.isBool()) return fail(op, "needs numeric operands, not bool");
      return expectResultType(op, a);
    }
    case OpKind::Neg: case OpKind::Not: {
      if (!expectOperands(op, 1)) return false;
      Type a = op.operands[0]->type;
      if (!a.isScalar()) return fail(op, "operand must be a scalar, not " + str(a));
      if (!checkNotF16(op, a)) return false;
      if (op.kind == OpKind::Neg && !(a.isInteger() || a.isFloat()))
        return fail(op, "needs a numeric operand, not " + str(a));
      if (op.kind == OpKind::Not && !(a.isInteger() || a.isBool()))
        return fail(op, "needs an integer or bool operand, not " + str(a));
      return expectResultType(op, a);
    }
    case OpKind::Cmp: {
      if (!expectOperands(op, 2)) return false;
      Type a = op.operands[0]->type, b = op.operands[1]->type;
      if (a != b)
        return fail(op, "operands must have equal types (" + str(a) + " and " + str(b) + ")");
      if (!a.isScalar()) return fail(op, "operands must be scalars, not " + str(a));
      if (!checkNotF16(op, a)) return false;
      if (a.isBool() && op.predicate != CmpPredicate::Eq && op.predicate != CmpPredicate::Ne)
        return fail(op, "bool operands only compare with eq or ne");
      return expectResultType(op, kBool);
    }
    case OpKind::Select: {
      if (!expectOperands(op, 3)) return false;
      if (op.operands[0]->type != kBool)
        return fail(op, "condition must be bool, not " + str(op.operands[0]->type));
      Type a = op.operands[1]->type, b = op.operands[2]->type;
      if (a != b) return fail(op, "arms must have equal types (" + str(a) + " and " + str(b) + ")");
      return expectResultType(op, a);
    }
    case OpKind::Cast:
      if (!expectOperands(op, 1)) return false;
      if (!op.operands[0]->type.isScalar() || !op.result->type.isScalar())
        return fail(op, "casts convert between scalar types only");
      return true;
    case OpKind::Math: return checkMath(op);
    case OpKind::Call: return checkCall(op);
    case OpKind::Alloca: case OpKind::LocalAlloc: {
      bool local = op.kind == OpKind::LocalAlloc;
      Type t = op.result->type;
      AddressSpace space = local ? AddressSpace::Local : AddressSpace::Private;
      if (!t.isPointer() || t.space != space)
        return fail(op, std::string("result must be ptr<") + addressSpaceName(space) + ", T>, not " + str(t));
      if (!expectOperands(op, 0)) return false;
      if (op.intAttr <= 0) return fail(op, "element count must be positive");
      if (!local) return true;
      if (!function_->isKernel)
        return fail(op, "local_alloc is only allowed in kernels (device functions take a "
                        "ptr<local, T> parameter instead)");
      if (parent) return fail(op, "local_alloc must be at the top level of the kernel body");
      return true;
    }
    case OpKind::Load:
      if (!checkPointer(op, 0) || !checkAlignment(op, "load")) return false;
      return expectResultType(op, op.operands[0]->type.elementType());
    case OpKind::Store: {
      if (!checkPointer(op, 1) || !checkAlignment(op, "store")) return false;
      Type ptr = op.operands[0]->type;
      if (!checkWritable(op, ptr.space)) return false;
      if (op.operands[2]->type != ptr.elementType())
        return fail(op, "stored value " + str(op.operands[2]->type) +
                            " does not match the element type " + str(ptr.elementType()));
      if (op.intAttr != 0 && op.intAttr != 1)
        return fail(op, "store flag " + std::to_string(op.intAttr) + " is not 0 or 1 (nontemporal)");
      if (op.intAttr && ptr.space != AddressSpace::Global)
        return fail(op, "a nontemporal store goes to global memory, not " + str(ptr));
      return true;
    }
    case OpKind::PtrOffset:
      if (!checkPointer(op, 0)) return false;
      return expectResultType(op, op.operands[0]->type);
    case OpKind::ViewLoad:
      if (!checkView(op, 0)) return false;
      return expectResultType(op, op.operands[0]->type.elementType());
    case OpKind::ViewStore: {
      if (!checkView(op, 1)) return false;
      Type view = op.operands[0]->type;
      if (!checkWritable(op, view.space)) return false;
      if (op.operands.back()->type != view.elementType())
        return fail(op, "stored value " + str(op.operands.back()->type) +
                            " does not match the element type " + str(view.elementType()));
      return true;
    }
    case OpKind::ViewDim: case OpKind::ViewStride: {
      if (!expectOperands(op, 1)) return false;
      Type view = op.operands[0]->type;
      if (!view.isView()) return fail(op, "operand must be a view, not " + str(view));
      if (op.intAttr < 0 || op.intAttr >= view.rank)
        return fail(op, "dimension " + std::to_string(op.intAttr) + " out of range for a rank-" +
                            std::to_string(view.rank) + " view");
      return expectResultType(op, kI64);
    }
    case OpKind::ViewPtr: case OpKind::ViewElementPtr: {
      if (op.kind == OpKind::ViewPtr) {
        if (!expectOperands(op, 1)) return false;
        if (!op.operands[0]->type.isView()) return fail(op, "first operand must be a view");
      } else if (!checkView(op, 0)) {
        return false;
      }
      Type view = op.operands[0]->type;
      return expectResultType(op, Type::pointerTy(view.space, view.scalar));
    }
    case OpKind::AtomicRmw: {
      if (!checkAtomicPointer(op, 1)) return false;
      Type elem = op.operands[0]->type.elementType();
      bool fpOk = op.rmwKind == AtomicRmwKind::Add || op.rmwKind == AtomicRmwKind::Sub ||
                  op.rmwKind == AtomicRmwKind::Min || op.rmwKind == AtomicRmwKind::Max ||
                  op.rmwKind == AtomicRmwKind::Exchange;
      if (elem.isFloat() && !fpOk)
        return fail(op, std::string("atomic ") + atomicRmwKindName(op.rmwKind) + " on " + str(elem) +
                            ": float atomics support add, sub, min, max and exchange only");
      return true;
    }
    case OpKind::AtomicLoad:
      if (!checkAtomicPointer(op, 0)) return false;
      if (op.order == MemoryOrder::Release || op.order == MemoryOrder::AcqRel)
        return fail(op, std::string("an atomic load cannot have ") + memoryOrderName(op.order) + " order");
      return true;
    case OpKind::AtomicStore:
      if (!checkAtomicPointer(op, 1)) return false;
      if (op.order == MemoryOrder::Acquire || op.order == MemoryOrder::AcqRel)
        return fail(op, std::string("an atomic store cannot have ") + memoryOrderName(op.order) + " order");
      return true;
    case OpKind::AtomicCmpXchg: return checkAtomicPointer(op, 2);
    case OpKind::Fence: return expectOperands(op, 0);
    case OpKind::Barrier:
      if (!expectOperands(op, 0)) return false;
      if (!uniformity_.inUniformControlFlow(&op))
        return fail(op, "barrier in non-uniform control flow: an enclosing if, loop bound or "
                        "loop condition depends on the work-item (global_id, local_id or memory "
                        "loads), so not every work-item of the group would reach it");
      return true;
    case OpKind::GlobalId: case OpKind::LocalId: case OpKind::GroupId: case OpKind::GlobalSize:
    case OpKind::LocalSize: case OpKind::NumGroups:
      if (!expectOperands(op, 0)) return false;
      if (op.intAttr < 0 || op.intAttr > 2)
        return fail(op, "dimension " + std::to_string(op.intAttr) + " out of range 0..2");
      return expectResultType(op, kI64);
    case OpKind::SubGroupLocalId: case OpKind::SubGroupSize:
      if (!expectOperands(op, 0)) return false;
      return expectResultType(op, kI64);
    case OpKind::SubGroupBallot:
      if (!expectOperands(op, 1)) return false;
      if (op.operands[0]->type != kBool)
        return fail(op, "the ballot's operand must be bool, not " + str(op.operands[0]->type));
      return expectResultType(op, Type::scalarTy(ScalarKind::U32));
    case OpKind::SubGroupShuffle: {
      if (!expectOperands(op, 2)) return false;
      Type v = op.operands[0]->type;
      if (!v.isScalar() || v.isBool() || v.scalar == ScalarKind::F16)
        return fail(op, "sub_group_shuffle moves an integer, f32 or f64 scalar, not " + str(v));
      if (op.operands[1]->type != kI64)
        return fail(op, "the source lane must be i64, not " + str(op.operands[1]->type));
      return expectResultType(op, v);
    }
    case OpKind::If:
      if (!expectOperands(op, 1)) return false;
      if (op.operands[0]->type != kBool)
        return fail(op, "condition must be bool, not " + str(op.operands[0]->type));
      return true;
    case OpKind::For: {
      if (!expectOperands(op, 3)) return false;
      Type t = op.operands[0]->type;
      if (!t.isInteger()) return fail(op, "bounds must be integers, not " + str(t));
      if (op.operands[1]->type != t || op.operands[2]->type != t)
        return fail(op, "lo, hi and step must have the same type");
      if (op.regions[0].args.size() != 1 || !op.regions[0].args[0] ||
          op.regions[0].args[0]->type != t)
        return fail(op, "the body needs one induction variable of the bounds' type");
      return true;
    }
    case OpKind::While: return expectOperands(op, 0);
    case OpKind::Condition:
      if (!expectOperands(op, 1)) return false;
      if (op.operands[0]->type != kBool)
        return fail(op, "condition must be bool, not " + str(op.operands[0]->type));
      return true;
    case OpKind::Break: case OpKind::Continue:
      if (!expectOperands(op, 0)) return false;
      if (loops_.empty() || !loops_.back())
        return fail(op, std::string(opName(op.kind)) + " outside of a loop body");
      return true;
    case OpKind::Return: {
      Type ret = function_->returnType;
      if (ret.isVoid()) {
        if (!op.operands.empty())
          return fail(op, function_->isKernel ? "kernels return nothing"
                                              : "function returns void, but return has a value");
        return true;
      }
      if (op.operands.size() != 1) return fail(op, "function must return a " + str(ret));
      if (op.operands[0]->type != ret)
        return fail(op, "returns " + str(op.operands[0]->type) + ", but the function returns " +
                            str(ret));
      return true;
    }
    }
    return true;
  }

  const Module &module_;
  CallGraph graph_;
  BarrierInfo barriers_;
  Error error_;
  const Function *function_ = nullptr;
  UniformityInfo uniformity_;
  std::unordered_set<const Value *> visible_, closed_, ownValues_;
  std::vector<bool> loops_; // enclosing loop regions: true for a body, false for a while condition
};

} // namespace

Error verifyModule(const Module &module) { return Verifier(module).run(); }

} // namespace dpk::ir

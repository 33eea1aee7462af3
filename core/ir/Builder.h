// Builder.h - constructs dpk IR: functions, and ops appended at an insertion point.
//
// A Builder works on one Module. createFunction() adds a function and moves the insertion point
// to the end of its body; every op-creating call appends one op to the insertion block. Region
// ops (if / for / while) are created empty: move the insertion point into their regions
// (thenBlock(op), forBody(op), ...) to fill them, then back to the enclosing block.
//
// The builder asserts only the structural invariants it needs to compute result types (operands
// present, pointer where a pointer is required, equal types for binary ops). Everything
// semantic (address spaces, atomics, scoping, uniform barriers, calls) is checked by
// verifyModule() in Verifier.h, which returns an Error the user can see.
//
// Every value-producing op has `result->definingOp == op`. Values may be given readable names
// by setting Value::name (the printer uses it when unique within the function).
#ifndef DPK_CORE_IR_BUILDER_H
#define DPK_CORE_IR_BUILDER_H

#include "ir/IR.h"

#include <string>
#include <vector>

namespace dpk::ir {

class Builder {
public:
  explicit Builder(Module &module) : module_(module) {}

  Module &module() const { return module_; }

  // ---- functions and insertion point ---------------------------------------------------

  /// Adds a function to the module, creates one parameter Value per entry of paramTypes (named
  /// from paramNames, which may be shorter or empty), and sets the insertion point to the end
  /// of its body. Kernels must have a void returnType.
  Function *createFunction(const std::string &name, bool isKernel,
                           const std::vector<Type> &paramTypes,
                           const std::vector<std::string> &paramNames, Type returnType);

  /// Adds an external device function (`extern func`, Function::isExternal): a declaration
  /// whose definition a linked file supplies. Leaves the current function and insertion point
  /// as they are; parameters are named p0, p1, ...
  Function *declareExternal(const std::string &name, const std::vector<Type> &paramTypes,
                            Type returnType);

  /// Makes `function` current (values are created in it) and inserts at the end of its body.
  void setFunction(Function *function);
  Function *function() const { return function_; }

  /// Appends subsequent ops at the end of `block`, which must belong to the current function.
  void setInsertionPoint(Block *block);
  Block *insertionBlock() const { return block_; }

  /// Source location attached to every op created from now on (until changed).
  void setLoc(SourceLoc loc) { loc_ = std::move(loc); }
  void clearLoc() { loc_ = SourceLoc{}; }
  const SourceLoc &loc() const { return loc_; }

  // ---- constants and value ops -----------------------------------------------------------

  /// Integer constant of an integer scalar kind (the value is stored in Op::intAttr).
  Value *constInt(ScalarKind kind, int64_t value);
  /// Float constant of f16/f32/f64 (stored in Op::floatAttr as a double).
  Value *constFloat(ScalarKind kind, double value);
  Value *constBool(bool value);

  /// Add..Shr (category Binary); operands must have equal types; result has that type.
  Value *binary(OpKind kind, Value *a, Value *b);
  /// Neg or Not; result has the operand's type.
  Value *unary(OpKind kind, Value *v);
  /// Comparison; result is bool.
  Value *cmp(CmpPredicate pred, Value *a, Value *b);
  /// cond ? a : b; a and b must have equal types.
  Value *select(Value *cond, Value *a, Value *b);
  /// Scalar conversion to `to` (a scalar type).
  Value *cast(Value *v, Type to);
  /// Math function; result type follows mathFnArity/IR.h rules (bool for isnan/isinf, else
  /// the first operand's type).
  Value *math(MathFn fn, const std::vector<Value *> &args);
  /// Call of a function by name (it may be defined later). Returns the result value, or null
  /// when resultType is void.
  Value *call(const std::string &callee, const std::vector<Value *> &args, Type resultType);

  // ---- memory --------------------------------------------------------------------------

  /// `alloca`: per-work-item array of `count` elements: result ptr<private, elem>.
  /// (Not named alloca(): glibc defines alloca as a function-like macro.)
  Value *privateAlloc(ScalarKind elem, int64_t count);
  /// Per-work-group array of `count` elements (kernels only): result ptr<local, elem>.
  Value *localAlloc(ScalarKind elem, int64_t count);
  /// ptr[idx] (idx is i64); result: the element type. `align` (bytes, a power of two; 0: the
  /// element's size) promises that the address is a multiple of it, so that targets may merge
  /// this load with the loads of the next elements into one vector load (PTX `ld.v4`).
  Value *load(Value *ptr, Value *idx, int64_t align = 0);
  /// `nontemporal`: a hint that the stored line will not be read again soon (targets may
  /// write it around the caches, skipping the read of the line a store otherwise costs).
  /// `align`: as for load (PTX merges neighbouring stores into `st.v4`).
  Op *store(Value *ptr, Value *idx, Value *v, bool nontemporal = false, int64_t align = 0);
  /// ptr + idx elements; result: the pointer's type.
  Value *ptrOffset(Value *ptr, Value *idx);
  /// view[indices...] (rank i64 indices).
  Value *viewLoad(Value *view, const std::vector<Value *> &indices);
  Op *viewStore(Value *view, const std::vector<Value *> &indices, Value *v);
  /// shape[d] and strides[d] (in elements) of a view: i64.
  Value *viewDim(Value *view, unsigned d);
  Value *viewStride(Value *view, unsigned d);
  /// Pointer to element 0 of the view: ptr<space, elem>.
  Value *viewPtr(Value *view);
  /// Pointer to view[indices...]: ptr<space, elem>.
  Value *viewElementPtr(Value *view, const std::vector<Value *> &indices);

  // ---- atomics and synchronization -----------------------------------------------------

  /// Atomic read-modify-write of ptr[idx]; returns the old value.
  Value *atomicRmw(AtomicRmwKind kind, Value *ptr, Value *idx, Value *v, MemoryOrder order,
                   MemoryScope scope);
  Value *atomicLoad(Value *ptr, Value *idx, MemoryOrder order, MemoryScope scope);
  Op *atomicStore(Value *ptr, Value *idx, Value *v, MemoryOrder order, MemoryScope scope);
  /// Strong compare-exchange of ptr[idx]; returns the old value (success iff old == expected).
  Value *atomicCmpXchg(Value *ptr, Value *idx, Value *expected, Value *desired,
                       MemoryOrder order, MemoryScope scope);
  Op *fence(MemoryOrder order, MemoryScope scope);
  /// Work-group barrier with a fence of the given scope.
  Op *barrier(MemoryScope scope);

  /// GlobalId, LocalId, GroupId, GlobalSize, LocalSize or NumGroups of dimension dim: i64.
  Value *workItem(OpKind kind, unsigned dim);

  /// The sub-group ops (Ops.def): lane (i64), size (i64), ballot of a bool (u32), and v as
  /// lane `lane` (i64) of the sub-group holds it.
  Value *subGroupLocalId();
  Value *subGroupSize();
  Value *subGroupBallot(Value *predicate);
  Value *subGroupShuffle(Value *v, Value *lane);

  // ---- structured control flow ---------------------------------------------------------

  /// `if cond { regions[0] } else { regions[1] }`; both regions start empty.
  Op *createIf(Value *cond);
  /// `for iv = lo to hi step step { regions[0] }`; lo, hi, step share one integer type, which
  /// is the induction variable's type (regions[0].args[0], named ivName).
  Op *createFor(Value *lo, Value *hi, Value *step, const std::string &ivName = {});
  /// `while { regions[0] ... condition %c } do { regions[1] }`.
  Op *createWhile();
  /// Terminates a while's cond region: loop again when v (bool) is true.
  Op *condition(Value *v);
  Op *breakOp();
  Op *continueOp();
  /// Return; v is null for void functions and kernels.
  Op *ret(Value *v = nullptr);

  // Region accessors for the ops above.
  static Block *thenBlock(Op *ifOp) { return &ifOp->regions[0]; }
  static Block *elseBlock(Op *ifOp) { return &ifOp->regions[1]; }
  static Block *forBody(Op *forOp) { return &forOp->regions[0]; }
  static Value *forInductionVar(Op *forOp) { return forOp->regions[0].args[0]; }
  static Block *whileCond(Op *whileOp) { return &whileOp->regions[0]; }
  static Block *whileBody(Op *whileOp) { return &whileOp->regions[1]; }

  /// Low-level: appends an op of `kind` with `operands` and, unless resultType is void, a
  /// result value. All other creators go through this.
  Op *createOp(OpKind kind, const std::vector<Value *> &operands, Type resultType);

private:
  Module &module_;
  Function *function_ = nullptr;
  Block *block_ = nullptr;
  SourceLoc loc_;
};

} // namespace dpk::ir

#endif // DPK_CORE_IR_BUILDER_H

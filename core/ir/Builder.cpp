// Builder.cpp - op construction at an insertion point (see Builder.h).
#include "ir/Builder.h"

#include <cassert>

namespace dpk::ir {

Function *Builder::createFunction(const std::string &name, bool isKernel,
                                  const std::vector<Type> &paramTypes,
                                  const std::vector<std::string> &paramNames, Type returnType) {
  // A kernel with a result or a void parameter is a user mistake the verifier reports.
  auto function = std::make_unique<Function>();
  function->name = name;
  function->isKernel = isKernel;
  function->returnType = returnType;
  function->loc = loc_;
  for (size_t i = 0; i < paramTypes.size(); ++i) {
    std::string paramName = i < paramNames.size() ? paramNames[i] : std::string();
    function->params.push_back(function->newValue(paramTypes[i], std::move(paramName)));
  }
  module_.functions.push_back(std::move(function));
  setFunction(module_.functions.back().get());
  return function_;
}

Function *Builder::declareExternal(const std::string &name, const std::vector<Type> &paramTypes,
                                   Type returnType) {
  auto function = std::make_unique<Function>();
  function->name = name;
  function->isExternal = true;
  function->returnType = returnType;
  function->loc = loc_;
  for (size_t i = 0; i < paramTypes.size(); ++i)
    function->params.push_back(function->newValue(paramTypes[i], "p" + std::to_string(i)));
  module_.functions.push_back(std::move(function));
  return module_.functions.back().get();
}

void Builder::setFunction(Function *function) {
  function_ = function;
  block_ = function ? &function->body : nullptr;
}

void Builder::setInsertionPoint(Block *block) {
  assert(function_ && "set a function before an insertion point");
  block_ = block;
}

Op *Builder::createOp(OpKind kind, const std::vector<Value *> &operands, Type resultType) {
  assert(function_ && block_ && "no insertion point");
  for (Value *operand : operands) {
    (void)operand;
    assert(operand && "null operand");
  }
  auto op = std::make_unique<Op>();
  op->kind = kind;
  op->operands = operands;
  op->loc = loc_;
  if (!resultType.isVoid()) {
    op->result = function_->newValue(resultType);
    op->result->definingOp = op.get();
  }
  block_->ops.push_back(std::move(op));
  return block_->ops.back().get();
}

// ---- constants and value ops -------------------------------------------------------------

Value *Builder::constInt(ScalarKind kind, int64_t value) {
  Type type = Type::scalarTy(kind);
  assert((type.isInteger() || type.isBool()) && "integer constant of a non-integer type");
  Op *op = createOp(OpKind::Const, {}, type);
  op->intAttr = type.isBool() ? (value != 0) : value;
  return op->result;
}

Value *Builder::constFloat(ScalarKind kind, double value) {
  Type type = Type::scalarTy(kind);
  assert(type.isFloat() && "float constant of a non-float type");
  Op *op = createOp(OpKind::Const, {}, type);
  // f32 constants hold exactly the f32 value, so every target and the text agree on it.
  op->floatAttr = kind == ScalarKind::F32 ? static_cast<double>(static_cast<float>(value)) : value;
  return op->result;
}

Value *Builder::constBool(bool value) { return constInt(ScalarKind::Bool, value ? 1 : 0); }

Value *Builder::binary(OpKind kind, Value *a, Value *b) {
  assert(opCategory(kind) == OpCategory::Binary && "not a binary op");
  assert(a && b && a->type == b->type && "binary operands must have equal types");
  return createOp(kind, {a, b}, a->type)->result;
}

Value *Builder::unary(OpKind kind, Value *v) {
  assert(opCategory(kind) == OpCategory::Unary && "not a unary op");
  assert(v && "null operand");
  return createOp(kind, {v}, v->type)->result;
}

Value *Builder::cmp(CmpPredicate pred, Value *a, Value *b) {
  Op *op = createOp(OpKind::Cmp, {a, b}, Type::scalarTy(ScalarKind::Bool));
  op->predicate = pred;
  return op->result;
}

Value *Builder::select(Value *cond, Value *a, Value *b) {
  assert(a && b && a->type == b->type && "select arms must have equal types");
  return createOp(OpKind::Select, {cond, a, b}, a->type)->result;
}

Value *Builder::cast(Value *v, Type to) {
  assert(to.isScalar() && "cast to a non-scalar type");
  return createOp(OpKind::Cast, {v}, to)->result;
}

Value *Builder::math(MathFn fn, const std::vector<Value *> &args) {
  assert(!args.empty() && args[0] && "math needs an operand");
  Type resultType = args[0]->type;
  if (fn == MathFn::IsNan || fn == MathFn::IsInf) resultType = Type::scalarTy(ScalarKind::Bool);
  Op *op = createOp(OpKind::Math, args, resultType);
  op->mathFn = fn;
  return op->result;
}

Value *Builder::call(const std::string &callee, const std::vector<Value *> &args,
                     Type resultType) {
  Op *op = createOp(OpKind::Call, args, resultType);
  op->callee = callee;
  return op->result;
}

// ---- memory ------------------------------------------------------------------------------

Value *Builder::privateAlloc(ScalarKind elem, int64_t count) {
  Op *op = createOp(OpKind::Alloca, {}, Type::pointerTy(AddressSpace::Private, elem));
  op->intAttr = count;
  return op->result;
}

Value *Builder::localAlloc(ScalarKind elem, int64_t count) {
  Op *op = createOp(OpKind::LocalAlloc, {}, Type::pointerTy(AddressSpace::Local, elem));
  op->intAttr = count;
  return op->result;
}

Value *Builder::load(Value *ptr, Value *idx, int64_t align) {
  assert(ptr && ptr->type.isPointer() && "load needs a pointer");
  Op *op = createOp(OpKind::Load, {ptr, idx}, ptr->type.elementType());
  op->align = align;
  return op->result;
}

Op *Builder::store(Value *ptr, Value *idx, Value *v, bool nontemporal, int64_t align) {
  assert(ptr && ptr->type.isPointer() && "store needs a pointer");
  Op *op = createOp(OpKind::Store, {ptr, idx, v}, Type::voidTy());
  op->intAttr = nontemporal ? 1 : 0;
  op->align = align;
  return op;
}

Value *Builder::ptrOffset(Value *ptr, Value *idx) {
  assert(ptr && ptr->type.isPointer() && "ptr_offset needs a pointer");
  return createOp(OpKind::PtrOffset, {ptr, idx}, ptr->type)->result;
}

static std::vector<Value *> prepend(Value *first, const std::vector<Value *> &rest) {
  std::vector<Value *> all{first};
  all.insert(all.end(), rest.begin(), rest.end());
  return all;
}

Value *Builder::viewLoad(Value *view, const std::vector<Value *> &indices) {
  assert(view && view->type.isView() && "view_load needs a view");
  return createOp(OpKind::ViewLoad, prepend(view, indices), view->type.elementType())->result;
}

Op *Builder::viewStore(Value *view, const std::vector<Value *> &indices, Value *v) {
  assert(view && view->type.isView() && "view_store needs a view");
  std::vector<Value *> operands = prepend(view, indices);
  operands.push_back(v);
  return createOp(OpKind::ViewStore, operands, Type::voidTy());
}

Value *Builder::viewDim(Value *view, unsigned d) {
  assert(view && view->type.isView() && "view_dim needs a view");
  Op *op = createOp(OpKind::ViewDim, {view}, Type::scalarTy(ScalarKind::I64));
  op->intAttr = d;
  return op->result;
}

Value *Builder::viewStride(Value *view, unsigned d) {
  assert(view && view->type.isView() && "view_stride needs a view");
  Op *op = createOp(OpKind::ViewStride, {view}, Type::scalarTy(ScalarKind::I64));
  op->intAttr = d;
  return op->result;
}

Value *Builder::viewPtr(Value *view) {
  assert(view && view->type.isView() && "view_ptr needs a view");
  Type ptrType = Type::pointerTy(view->type.space, view->type.scalar);
  return createOp(OpKind::ViewPtr, {view}, ptrType)->result;
}

Value *Builder::viewElementPtr(Value *view, const std::vector<Value *> &indices) {
  assert(view && view->type.isView() && "view_elem_ptr needs a view");
  Type ptrType = Type::pointerTy(view->type.space, view->type.scalar);
  return createOp(OpKind::ViewElementPtr, prepend(view, indices), ptrType)->result;
}

// ---- atomics and synchronization ---------------------------------------------------------

Value *Builder::atomicRmw(AtomicRmwKind kind, Value *ptr, Value *idx, Value *v,
                          MemoryOrder order, MemoryScope scope) {
  assert(ptr && ptr->type.isPointer() && "atomic_rmw needs a pointer");
  Op *op = createOp(OpKind::AtomicRmw, {ptr, idx, v}, ptr->type.elementType());
  op->rmwKind = kind;
  op->order = order;
  op->scope = scope;
  return op->result;
}

Value *Builder::atomicLoad(Value *ptr, Value *idx, MemoryOrder order, MemoryScope scope) {
  assert(ptr && ptr->type.isPointer() && "atomic_load needs a pointer");
  Op *op = createOp(OpKind::AtomicLoad, {ptr, idx}, ptr->type.elementType());
  op->order = order;
  op->scope = scope;
  return op->result;
}

Op *Builder::atomicStore(Value *ptr, Value *idx, Value *v, MemoryOrder order,
                         MemoryScope scope) {
  assert(ptr && ptr->type.isPointer() && "atomic_store needs a pointer");
  Op *op = createOp(OpKind::AtomicStore, {ptr, idx, v}, Type::voidTy());
  op->order = order;
  op->scope = scope;
  return op;
}

Value *Builder::atomicCmpXchg(Value *ptr, Value *idx, Value *expected, Value *desired,
                              MemoryOrder order, MemoryScope scope) {
  assert(ptr && ptr->type.isPointer() && "atomic_cmpxchg needs a pointer");
  Op *op = createOp(OpKind::AtomicCmpXchg, {ptr, idx, expected, desired},
                    ptr->type.elementType());
  op->order = order;
  op->scope = scope;
  return op->result;
}

Op *Builder::fence(MemoryOrder order, MemoryScope scope) {
  Op *op = createOp(OpKind::Fence, {}, Type::voidTy());
  op->order = order;
  op->scope = scope;
  return op;
}

Op *Builder::barrier(MemoryScope scope) {
  Op *op = createOp(OpKind::Barrier, {}, Type::voidTy());
  op->scope = scope;
  return op;
}

Value *Builder::workItem(OpKind kind, unsigned dim) {
  assert(opCategory(kind) == OpCategory::WorkItem && "not a work-item builtin");
  Op *op = createOp(kind, {}, Type::scalarTy(ScalarKind::I64));
  op->intAttr = dim;
  return op->result;
}

Value *Builder::subGroupLocalId() {
  return createOp(OpKind::SubGroupLocalId, {}, Type::scalarTy(ScalarKind::I64))->result;
}

Value *Builder::subGroupSize() {
  return createOp(OpKind::SubGroupSize, {}, Type::scalarTy(ScalarKind::I64))->result;
}

Value *Builder::subGroupBallot(Value *predicate) {
  return createOp(OpKind::SubGroupBallot, {predicate}, Type::scalarTy(ScalarKind::U32))->result;
}

Value *Builder::subGroupShuffle(Value *v, Value *lane) {
  return createOp(OpKind::SubGroupShuffle, {v, lane}, v->type)->result;
}

// ---- structured control flow -------------------------------------------------------------

Op *Builder::createIf(Value *cond) {
  Op *op = createOp(OpKind::If, {cond}, Type::voidTy());
  op->regions.resize(2);
  return op;
}

Op *Builder::createFor(Value *lo, Value *hi, Value *step, const std::string &ivName) {
  assert(lo && "null lower bound");
  Op *op = createOp(OpKind::For, {lo, hi, step}, Type::voidTy());
  op->regions.resize(1);
  op->regions[0].args.push_back(function_->newValue(lo->type, ivName));
  return op;
}

Op *Builder::createWhile() {
  Op *op = createOp(OpKind::While, {}, Type::voidTy());
  op->regions.resize(2);
  return op;
}

Op *Builder::condition(Value *v) { return createOp(OpKind::Condition, {v}, Type::voidTy()); }
Op *Builder::breakOp() { return createOp(OpKind::Break, {}, Type::voidTy()); }
Op *Builder::continueOp() { return createOp(OpKind::Continue, {}, Type::voidTy()); }

Op *Builder::ret(Value *v) {
  if (!v) return createOp(OpKind::Return, {}, Type::voidTy());
  return createOp(OpKind::Return, {v}, Type::voidTy());
}

} // namespace dpk::ir

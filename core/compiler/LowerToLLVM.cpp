// LowerToLLVM.cpp - the target-independent walk from dpk IR ops to LLVM IR 15.
#include "compiler/Lowering.h"

#include "ir/LaunchDimensions.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

namespace dpk::compiler {

using llvm::Value;

namespace {

bool isTerminator(ir::OpKind kind) {
  return ir::opCategory(kind) == ir::OpCategory::Terminator;
}

} // namespace

unsigned kernelDims(const ir::Module &module, const CompileOptions &options) {
  if (options.dims != 0) return options.dims;
  return std::max(ir::dimensionsUsed(module), 1u);
}

std::string mathDescription(ir::MathFn fn) { return std::string("math.") + ir::mathFnName(fn); }

llvm::MDNode *loopHint(llvm::LLVMContext &ctx, const char *name, llvm::Metadata *operand) {
  std::vector<llvm::Metadata *> ops{llvm::MDString::get(ctx, name)};
  if (operand) ops.push_back(operand);
  return llvm::MDNode::get(ctx, ops);
}
llvm::MDNode *loopHint(llvm::LLVMContext &ctx, const char *name, uint32_t value) {
  return loopHint(ctx, name, llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value)));
}

void setLoopHints(llvm::BranchInst *backEdge, std::vector<llvm::Metadata *> hints) {
  hints.insert(hints.begin(), nullptr);
  llvm::MDNode *loopId = llvm::MDNode::getDistinct(backEdge->getContext(), hints);
  loopId->replaceOperandWith(0, loopId);
  backEdge->setMetadata(llvm::LLVMContext::MD_loop, loopId);
}

FunctionLowering::FunctionLowering(const ir::Module &module, const TargetInfo &target,
                                   llvm::Function *function)
    : module_(module), target_(target), function_(function), builder_(function->getContext()) {}

// ---- types --------------------------------------------------------------------------------

llvm::Type *FunctionLowering::scalarType(ir::ScalarKind kind) const {
  llvm::LLVMContext &ctx = context();
  switch (kind) {
  case ir::ScalarKind::Bool: return llvm::Type::getInt1Ty(ctx);
  case ir::ScalarKind::I8: case ir::ScalarKind::U8: return llvm::Type::getInt8Ty(ctx);
  case ir::ScalarKind::I16: case ir::ScalarKind::U16: return llvm::Type::getInt16Ty(ctx);
  case ir::ScalarKind::I32: case ir::ScalarKind::U32: return llvm::Type::getInt32Ty(ctx);
  case ir::ScalarKind::I64: case ir::ScalarKind::U64: return llvm::Type::getInt64Ty(ctx);
  case ir::ScalarKind::F16: return llvm::Type::getHalfTy(ctx);
  case ir::ScalarKind::F32: return llvm::Type::getFloatTy(ctx);
  case ir::ScalarKind::F64: return llvm::Type::getDoubleTy(ctx);
  }
  return nullptr;
}

llvm::Type *FunctionLowering::memoryType(ir::ScalarKind kind) const {
  if (kind == ir::ScalarKind::Bool) return llvm::Type::getInt8Ty(context());
  return scalarType(kind);
}

llvm::Type *FunctionLowering::valueType(const ir::Type &type) const {
  if (type.isPointer()) return pointerType(type);
  return scalarType(type.scalar);
}

llvm::PointerType *FunctionLowering::pointerType(const ir::Type &type) const {
  return llvm::PointerType::get(memoryType(type.scalar), addressSpace(type.space));
}

void FunctionLowering::appendAbiTypes(const ir::Type &type, std::vector<llvm::Type *> &out) const {
  switch (type.kind) {
  case ir::TypeKind::Void: return;
  case ir::TypeKind::Scalar: out.push_back(memoryType(type.scalar)); return;
  case ir::TypeKind::Pointer: out.push_back(pointerType(type)); return;
  case ir::TypeKind::View:
    out.push_back(pointerType(type));
    for (unsigned i = 0; i < 2u * type.rank; ++i) out.push_back(llvm::Type::getInt64Ty(context()));
    return;
  }
}

// ---- values -------------------------------------------------------------------------------

LoweredValue *FunctionLowering::record(const ir::Value *value) const {
  auto it = values_.find(value);
  return it == values_.end() ? nullptr : it->second;
}

LoweredValue &FunctionLowering::define(const ir::Value *value, Value *lowered) {
  storage_.emplace_back();
  LoweredValue &r = storage_.back();
  r.value = lowered;
  values_[value] = &r;
  return r;
}

Value *FunctionLowering::lookup(const ir::Value *value) {
  LoweredValue *r = record(value);
  assert(r && "use of an IR value that was not lowered");
  return r->value;
}

const LoweredValue &FunctionLowering::lookupView(const ir::Value *value) {
  LoweredValue *r = record(value);
  assert(r && r->viewPtr && "use of a view that was not lowered");
  return *r;
}

llvm::AllocaInst *FunctionLowering::entryAlloca(llvm::Type *type, Value *count,
                                                const llvm::Twine &name, unsigned align) {
  llvm::IRBuilder<> b(entry_->getTerminator());
  unsigned as = llvmModule().getDataLayout().getAllocaAddrSpace();
  llvm::AllocaInst *a = b.CreateAlloca(type, as, count, name);
  if (align) a->setAlignment(llvm::Align(align));
  return a;
}

void FunctionLowering::startDeadBlock() {
  builder_.SetInsertPoint(llvm::BasicBlock::Create(context(), "dead", function_));
}

Error FunctionLowering::unsupported(const ir::Op &op, const std::string &why) const {
  std::string where = current_ ? current_->name : std::string("?");
  std::string msg = "cannot compile '" + std::string(ir::opName(op.kind)) + "' in function '" +
                    where + "'";
  if (!op.loc.file.empty())
    msg += " (" + op.loc.file + ":" + std::to_string(op.loc.line) + ")";
  return Error(DPK_ERROR_COMPILE, msg + ": " + why);
}

// ---- kernels --------------------------------------------------------------------------------

Error FunctionLowering::lowerKernel(const ir::Function &kernel, llvm::ArrayRef<Value *> abiValues) {
  current_ = &kernel;
  size_t next = 0;
  for (size_t index = 0; index < kernel.params.size(); ++index) {
    const ir::Value *param = kernel.params[index];
    const ir::Type &t = param->type;
    if (!t.isView()) {
      Value *v = abiValues[next++];
      if (t.isBool() && v->getType()->isIntegerTy(8)) v = builder_.CreateICmpNE(v, builder_.getInt8(0));
      define(param, v);
      continue;
    }
    LoweredValue &r = define(param, nullptr);
    r.viewPtr = abiValues[next++];
    for (unsigned d = 0; d < t.rank; ++d) r.shape[d] = abiValues[next++];
    for (unsigned d = 0; d < t.rank; ++d) r.strides[d] = abiValues[next++];
    // Specialized on a unit innermost stride: the constant lets every target drop the multiply
    // and address contiguously (the host vectorizer then needs no `stride == 1` version).
    bool unitInner = index < 32 && ((unitInnerStrideViews_ >> index) & 1u) != 0;
    if (unitInner && t.rank > 0) r.strides[t.rank - 1] = builder_.getInt64(1);
  }
  if (Error e = emitBlock(kernel.body)) return e;
  return finishKernel();
}

Error FunctionLowering::finishKernel() {
  if (!blockTerminated()) builder_.CreateRetVoid();
  return Error::success();
}

Error FunctionLowering::emitKernelReturn(const ir::Op &) {
  builder_.CreateRetVoid();
  return Error::success();
}

Error FunctionLowering::emitLoopExit(const ir::Op &, size_t loopIndex, bool isContinue) {
  const LoopTarget &loop = loops_[loopIndex];
  builder_.CreateBr(isContinue ? loop.continueTarget : loop.breakTarget);
  return Error::success();
}

Value *FunctionLowering::emitLocalAlloc(const ir::Op &op) {
  llvm::Type *elem = memoryType(op.result->type.scalar);
  auto count = static_cast<uint64_t>(std::max<int64_t>(op.intAttr, 1));
  if (target_.localAllocInFrame)
    return entryAlloca(elem, builder_.getInt64(count), "local", target_.localAllocAlign);
  auto *arrayTy = llvm::ArrayType::get(elem, count);
  auto *global = new llvm::GlobalVariable(
      llvmModule(), arrayTy, false, llvm::GlobalValue::InternalLinkage,
      llvm::UndefValue::get(arrayTy), function_->getName() + ".local", nullptr,
      llvm::GlobalValue::NotThreadLocal, addressSpace(ir::AddressSpace::Local));
  global->setAlignment(llvm::Align(target_.localAllocAlign));
  return builder_.CreateConstInBoundsGEP2_64(arrayTy, global, 0, 0);
}

Expected<Value *> FunctionLowering::emitPrivateAlloc(const ir::Op &op) {
  llvm::Type *elem = memoryType(op.result->type.scalar);
  return entryAlloca(elem, builder_.getInt64(std::max<int64_t>(op.intAttr, 1)), "private", 16);
}

Error FunctionLowering::emitBlock(const ir::Block &block) {
  for (const auto &op : block.ops) {
    if (Error e = emitOp(*op)) return e;
    if (isTerminator(op->kind)) break;
  }
  return Error::success();
}

// ---- memory -------------------------------------------------------------------------------

Value *FunctionLowering::elementAddress(const ir::Value *pointer, Value *index) {
  return builder_.CreateInBoundsGEP(memoryType(pointer->type.scalar), lookup(pointer), index);
}

Value *FunctionLowering::viewElementAddress(const ir::Op &op) {
  const ir::Value *view = op.operands[0];
  const LoweredValue &v = lookupView(view);
  unsigned rank = view->type.rank;
  llvm::Type *element = memoryType(view->type.scalar);
  if (target_.splitViewAddress && rank > 1) {
    // base = ptr + (sum over leading dims) bytes; the element GEP adds index[last] * stride.
    // The byte offset's step is `size * stride`, which the vectorizer's stride speculation does
    // not recognise, so it only ever speculates on the last stride (C-order views: 1).
    Value *leading = nullptr;
    for (unsigned d = 0; d + 1 < rank; ++d) {
      Value *term = builder_.CreateMul(lookup(op.operands[1 + d]), v.strides[d]);
      leading = leading ? builder_.CreateAdd(leading, term) : term;
    }
    uint64_t size = llvmModule().getDataLayout().getTypeAllocSize(element);
    Value *bytes = builder_.CreateMul(leading, builder_.getInt64(size));
    Value *base = builder_.CreateInBoundsGEP(builder_.getInt8Ty(), v.viewPtr, bytes);
    Value *last = builder_.CreateMul(lookup(op.operands[rank]), v.strides[rank - 1]);
    return builder_.CreateInBoundsGEP(element, base, last);
  }
  Value *offset = nullptr;
  for (unsigned d = 0; d < rank; ++d) {
    Value *term = builder_.CreateMul(lookup(op.operands[1 + d]), v.strides[d]);
    offset = offset ? builder_.CreateAdd(offset, term) : term;
  }
  return builder_.CreateInBoundsGEP(element, v.viewPtr, offset);
}

Value *FunctionLowering::loadElement(Value *address, const ir::Value *pointer,
                                     ir::ScalarKind kind, unsigned align) {
  llvm::Type *mem = memoryType(kind);
  // A wider promised alignment lets LLVM's load-store vectorizer (run by the NVPTX and AMDGPU
  // code generators) merge this load with the next elements' into one vector load.
  unsigned bytes = std::max<unsigned>(align, ir::scalarSize(kind));
  llvm::LoadInst *load = builder_.CreateAlignedLoad(mem, address, llvm::Align(bytes));
  noteMemoryAccess(load, pointer, false);
  if (kind == ir::ScalarKind::Bool) return builder_.CreateICmpNE(load, builder_.getInt8(0));
  return load;
}

void FunctionLowering::storeElement(Value *address, const ir::Value *pointer, ir::ScalarKind kind,
                                    Value *value, bool nontemporal, unsigned align) {
  if (kind == ir::ScalarKind::Bool) value = builder_.CreateZExt(value, builder_.getInt8Ty());
  unsigned bytes = std::max<unsigned>(align, ir::scalarSize(kind));
  llvm::StoreInst *store = builder_.CreateAlignedStore(value, address, llvm::Align(bytes));
  noteMemoryAccess(store, pointer, false);
  // LLVM's hint, kept by the vectorizers: x86 writes such stores (once vectorized) with movnt,
  // around the caches; SPIR-V gets the Nontemporal memory operand; NVPTX ignores it.
  if (nontemporal)
    store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                       llvm::MDNode::get(store->getContext(),
                                         {llvm::ConstantAsMetadata::get(builder_.getInt32(1))}));
}

// ---- scalar ops ---------------------------------------------------------------------------

Value *FunctionLowering::emitCast(Value *v, const ir::Type &from, const ir::Type &to) {
  llvm::Type *dst = scalarType(to.scalar);
  if (from == to) return v;
  if (from.isBool()) {
    if (to.isFloat()) return builder_.CreateUIToFP(v, dst);
    return builder_.CreateZExt(v, dst);
  }
  if (to.isBool()) {
    if (from.isFloat()) return builder_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    return builder_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (from.isFloat() && to.isFloat()) return builder_.CreateFPCast(v, dst);
  if (from.isFloat()) {
    if (from.scalar == ir::ScalarKind::F16) v = builder_.CreateFPExt(v, builder_.getFloatTy());
    return to.isSigned() ? builder_.CreateFPToSI(v, dst) : builder_.CreateFPToUI(v, dst);
  }
  if (to.isFloat()) {
    llvm::Type *via = to.scalar == ir::ScalarKind::F16 ? builder_.getFloatTy() : dst;
    Value *r = from.isSigned() ? builder_.CreateSIToFP(v, via) : builder_.CreateUIToFP(v, via);
    return via == dst ? r : builder_.CreateFPTrunc(r, dst);
  }
  return builder_.CreateIntCast(v, dst, from.isSigned());
}

Value *FunctionLowering::emitBinary(const ir::Op &op) {
  const ir::Type &t = op.operands[0]->type;
  Value *a = lookup(op.operands[0]);
  Value *b = lookup(op.operands[1]);
  if (t.isFloat()) {
    bool half = t.scalar == ir::ScalarKind::F16;
    if (half) {
      a = builder_.CreateFPExt(a, builder_.getFloatTy());
      b = builder_.CreateFPExt(b, builder_.getFloatTy());
    }
    Value *r = nullptr; // bitwise ops on floats are rejected by the verifier
    if (op.kind == ir::OpKind::Add) r = builder_.CreateFAdd(a, b);
    else if (op.kind == ir::OpKind::Sub) r = builder_.CreateFSub(a, b);
    else if (op.kind == ir::OpKind::Mul) r = builder_.CreateFMul(a, b);
    else if (op.kind == ir::OpKind::Div) r = builder_.CreateFDiv(a, b);
    else if (op.kind == ir::OpKind::Rem) r = builder_.CreateFRem(a, b);
    if (!r) return nullptr;
    return half ? builder_.CreateFPTrunc(r, scalarType(ir::ScalarKind::F16)) : r;
  }
  bool isSigned = t.isSigned();
  using K = ir::OpKind;
  if (op.kind == K::Add) return builder_.CreateAdd(a, b);
  if (op.kind == K::Sub) return builder_.CreateSub(a, b);
  if (op.kind == K::Mul) return builder_.CreateMul(a, b);
  if (op.kind == K::Div || op.kind == K::Rem) {
    // Total division (Ops.def): a divisor of 0, and -1 with the minimum dividend, becomes 1
    // through a select, so nothing traps and loops still vectorize; then x / 0 = 0, x % 0 = 0,
    // MIN / -1 = MIN (wraps), MIN % -1 = 0, as NumPy's integer division. A constant divisor
    // folds the selects away.
    llvm::Type *type = a->getType();
    Value *zero = llvm::ConstantInt::get(type, 0);
    Value *byZero = builder_.CreateICmpEQ(b, zero);
    Value *unsafe = byZero;
    if (isSigned) {
      unsigned bits = type->getIntegerBitWidth();
      Value *minimum = llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(bits));
      Value *overflows = builder_.CreateAnd(builder_.CreateICmpEQ(a, minimum),
                                            builder_.CreateICmpEQ(b, llvm::ConstantInt::get(type, -1, true)));
      unsafe = builder_.CreateOr(byZero, overflows);
    }
    Value *divisor = builder_.CreateSelect(unsafe, llvm::ConstantInt::get(type, 1), b);
    if (op.kind == K::Rem)
      return isSigned ? builder_.CreateSRem(a, divisor) : builder_.CreateURem(a, divisor);
    Value *quotient = isSigned ? builder_.CreateSDiv(a, divisor) : builder_.CreateUDiv(a, divisor);
    return builder_.CreateSelect(byZero, zero, quotient);
  }
  if (op.kind == K::And) return builder_.CreateAnd(a, b);
  if (op.kind == K::Or) return builder_.CreateOr(a, b);
  if (op.kind == K::Xor) return builder_.CreateXor(a, b);
  if (op.kind == K::Shl) return builder_.CreateShl(a, b);
  if (op.kind == K::Shr) return isSigned ? builder_.CreateAShr(a, b) : builder_.CreateLShr(a, b);
  return nullptr;
}

namespace {

llvm::CmpInst::Predicate comparePredicate(ir::CmpPredicate p, const ir::Type &t) {
  using P = llvm::CmpInst::Predicate;
  if (t.isFloat()) {
    switch (p) {
    case ir::CmpPredicate::Eq: return P::FCMP_OEQ;
    case ir::CmpPredicate::Ne: return P::FCMP_UNE;
    case ir::CmpPredicate::Lt: return P::FCMP_OLT;
    case ir::CmpPredicate::Le: return P::FCMP_OLE;
    case ir::CmpPredicate::Gt: return P::FCMP_OGT;
    case ir::CmpPredicate::Ge: return P::FCMP_OGE;
    }
  }
  bool s = t.isSigned();
  switch (p) {
  case ir::CmpPredicate::Eq: return P::ICMP_EQ;
  case ir::CmpPredicate::Ne: return P::ICMP_NE;
  case ir::CmpPredicate::Lt: return s ? P::ICMP_SLT : P::ICMP_ULT;
  case ir::CmpPredicate::Le: return s ? P::ICMP_SLE : P::ICMP_ULE;
  case ir::CmpPredicate::Gt: return s ? P::ICMP_SGT : P::ICMP_UGT;
  case ir::CmpPredicate::Ge: return s ? P::ICMP_SGE : P::ICMP_UGE;
  }
  return P::ICMP_EQ;
}

} // namespace

// ---- ops ----------------------------------------------------------------------------------

Error FunctionLowering::emitOp(const ir::Op &op) {
  switch (op.kind) {
  case ir::OpKind::Const: {
    const ir::Type &t = op.result->type;
    llvm::Type *ty = scalarType(t.scalar);
    Value *c = t.isFloat() ? llvm::ConstantFP::get(ty, op.floatAttr)
                           : llvm::ConstantInt::get(ty, static_cast<uint64_t>(op.intAttr),
                                                    t.isSigned());
    define(op.result, c);
    return Error::success();
  }
  case ir::OpKind::Add: case ir::OpKind::Sub: case ir::OpKind::Mul: case ir::OpKind::Div:
  case ir::OpKind::Rem: case ir::OpKind::And: case ir::OpKind::Or: case ir::OpKind::Xor:
  case ir::OpKind::Shl: case ir::OpKind::Shr: {
    Value *r = emitBinary(op);
    if (!r) return unsupported(op, "operand type " + ir::typeToString(op.operands[0]->type));
    define(op.result, r);
    return Error::success();
  }
  case ir::OpKind::Neg: {
    const ir::Type &t = op.operands[0]->type;
    Value *v = lookup(op.operands[0]);
    define(op.result, t.isFloat() ? builder_.CreateFNeg(v) : builder_.CreateNeg(v));
    return Error::success();
  }
  case ir::OpKind::Not:
    define(op.result, builder_.CreateNot(lookup(op.operands[0])));
    return Error::success();
  case ir::OpKind::Cmp: {
    const ir::Type &t = op.operands[0]->type;
    Value *a = lookup(op.operands[0]);
    Value *b = lookup(op.operands[1]);
    if (t.scalar == ir::ScalarKind::F16) {
      a = builder_.CreateFPExt(a, builder_.getFloatTy());
      b = builder_.CreateFPExt(b, builder_.getFloatTy());
    }
    define(op.result, builder_.CreateCmp(comparePredicate(op.predicate, t), a, b));
    return Error::success();
  }
  case ir::OpKind::Select:
    define(op.result, builder_.CreateSelect(lookup(op.operands[0]), lookup(op.operands[1]),
                                            lookup(op.operands[2])));
    return Error::success();
  case ir::OpKind::Cast:
    define(op.result,
           emitCast(lookup(op.operands[0]), op.operands[0]->type, op.result->type));
    return Error::success();
  case ir::OpKind::Math: return emitMath(op);
  case ir::OpKind::Call: return emitCall(op);

  case ir::OpKind::Alloca: {
    Expected<Value *> p = emitPrivateAlloc(op);
    if (!p) return p.takeError();
    define(op.result, *p);
    return Error::success();
  }
  case ir::OpKind::LocalAlloc:
    define(op.result, emitLocalAlloc(op));
    return Error::success();
  case ir::OpKind::Load: {
    Value *address = elementAddress(op.operands[0], lookup(op.operands[1]));
    define(op.result, loadElement(address, op.operands[0], op.result->type.scalar,
                                  static_cast<unsigned>(op.align)));
    return Error::success();
  }
  case ir::OpKind::Store: {
    Value *address = elementAddress(op.operands[0], lookup(op.operands[1]));
    storeElement(address, op.operands[0], op.operands[0]->type.scalar, lookup(op.operands[2]),
                 op.intAttr != 0, static_cast<unsigned>(op.align));
    return Error::success();
  }
  case ir::OpKind::PtrOffset:
    define(op.result, elementAddress(op.operands[0], lookup(op.operands[1])));
    return Error::success();
  case ir::OpKind::ViewLoad: {
    Value *address = viewElementAddress(op);
    define(op.result, loadElement(address, op.operands[0], op.result->type.scalar));
    return Error::success();
  }
  case ir::OpKind::ViewStore: {
    Value *address = viewElementAddress(op);
    const ir::Value *view = op.operands[0];
    storeElement(address, view, view->type.scalar, lookup(op.operands.back()));
    return Error::success();
  }
  case ir::OpKind::ViewDim:
    define(op.result, lookupView(op.operands[0]).shape[op.intAttr]);
    return Error::success();
  case ir::OpKind::ViewStride:
    define(op.result, lookupView(op.operands[0]).strides[op.intAttr]);
    return Error::success();
  case ir::OpKind::ViewPtr:
    define(op.result, lookupView(op.operands[0]).viewPtr);
    return Error::success();
  case ir::OpKind::ViewElementPtr:
    define(op.result, viewElementAddress(op));
    return Error::success();

  case ir::OpKind::AtomicRmw: case ir::OpKind::AtomicLoad: case ir::OpKind::AtomicStore:
  case ir::OpKind::AtomicCmpXchg:
    return emitAtomic(op);
  case ir::OpKind::Fence:
    if (op.order != ir::MemoryOrder::Relaxed) emitFence(toOrdering(op.order), op.scope);
    return Error::success();
  case ir::OpKind::Barrier: return emitBarrier(op);

  case ir::OpKind::GlobalId: case ir::OpKind::LocalId: case ir::OpKind::GroupId:
  case ir::OpKind::GlobalSize: case ir::OpKind::LocalSize: case ir::OpKind::NumGroups: {
    Expected<Value *> v = emitWorkItem(op);
    if (!v) return v.takeError();
    define(op.result, *v);
    return Error::success();
  }

  case ir::OpKind::SubGroupLocalId: case ir::OpKind::SubGroupSize:
  case ir::OpKind::SubGroupBallot: case ir::OpKind::SubGroupShuffle: {
    Expected<Value *> v = emitSubGroup(op);
    if (!v) return v.takeError();
    define(op.result, *v);
    return Error::success();
  }

  case ir::OpKind::If: return emitIf(op);
  case ir::OpKind::For: return emitFor(op);
  case ir::OpKind::While: return emitWhile(op);
  case ir::OpKind::Condition: {
    if (loops_.empty() || !loops_.back().bodyTarget)
      return unsupported(op, "condition outside a while condition region");
    const LoopTarget &loop = loops_.back();
    builder_.CreateCondBr(lookup(op.operands[0]), loop.bodyTarget, loop.breakTarget);
    return Error::success();
  }
  case ir::OpKind::Break: case ir::OpKind::Continue: {
    size_t floor = frames_.empty() ? 0 : frames_.back().loopDepth;
    if (loops_.size() <= floor) return unsupported(op, "break or continue outside a loop");
    return emitLoopExit(op, loops_.size() - 1, op.kind == ir::OpKind::Continue);
  }
  case ir::OpKind::Return: {
    if (frames_.empty()) return emitKernelReturn(op);
    const CallFrame &frame = frames_.back();
    if (frame.resultSlot && !op.operands.empty()) storeCallResult(frame.resultSlot, op.operands[0]);
    builder_.CreateBr(frame.exit);
    return Error::success();
  }
  }
  return unsupported(op, "unknown op");
}

// ---- control flow ---------------------------------------------------------------------------

Error FunctionLowering::emitIf(const ir::Op &op) {
  llvm::LLVMContext &ctx = context();
  llvm::BasicBlock *thenBB = llvm::BasicBlock::Create(ctx, "if.then", function_);
  llvm::BasicBlock *mergeBB = llvm::BasicBlock::Create(ctx, "if.end", function_);
  bool hasElse = op.regions.size() > 1 && !op.regions[1].ops.empty();
  llvm::BasicBlock *elseBB =
      hasElse ? llvm::BasicBlock::Create(ctx, "if.else", function_) : mergeBB;
  builder_.CreateCondBr(lookup(op.operands[0]), thenBB, elseBB);

  builder_.SetInsertPoint(thenBB);
  if (Error e = emitBlock(op.regions[0])) return e;
  if (!blockTerminated()) builder_.CreateBr(mergeBB);
  if (hasElse) {
    builder_.SetInsertPoint(elseBB);
    if (Error e = emitBlock(op.regions[1])) return e;
    if (!blockTerminated()) builder_.CreateBr(mergeBB);
  }
  builder_.SetInsertPoint(mergeBB);
  return Error::success();
}

Error FunctionLowering::emitFor(const ir::Op &op) {
  llvm::LLVMContext &ctx = context();
  const ir::Type &t = op.operands[0]->type;
  Value *lo = lookup(op.operands[0]);
  Value *hi = lookup(op.operands[1]);
  Value *step = lookup(op.operands[2]);
  llvm::BasicBlock *preBB = builder_.GetInsertBlock();
  llvm::BasicBlock *headerBB = llvm::BasicBlock::Create(ctx, "for.header", function_);
  llvm::BasicBlock *bodyBB = llvm::BasicBlock::Create(ctx, "for.body", function_);
  llvm::BasicBlock *latchBB = llvm::BasicBlock::Create(ctx, "for.latch", function_);
  llvm::BasicBlock *exitBB = llvm::BasicBlock::Create(ctx, "for.end", function_);
  builder_.CreateBr(headerBB);

  builder_.SetInsertPoint(headerBB);
  llvm::PHINode *iv = builder_.CreatePHI(lo->getType(), 2, "iv");
  iv->addIncoming(lo, preBB);
  bool isSigned = t.isSigned();
  Value *up = isSigned ? builder_.CreateICmpSLT(iv, hi) : builder_.CreateICmpULT(iv, hi);
  Value *cond = up;
  auto *constStep = llvm::dyn_cast<llvm::ConstantInt>(step);
  if (isSigned && !(constStep && !constStep->isNegative())) {
    Value *down = builder_.CreateICmpSGT(iv, hi);
    if (constStep) {
      cond = down;
    } else {
      Value *positive = builder_.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0));
      cond = builder_.CreateSelect(positive, up, down);
    }
  }
  builder_.CreateCondBr(cond, bodyBB, exitBB);

  builder_.SetInsertPoint(bodyBB);
  define(op.regions[0].args[0], iv);
  loops_.push_back({exitBB, latchBB, nullptr});
  Error e = emitBlock(op.regions[0]);
  loops_.pop_back();
  if (e) return e;
  if (!blockTerminated()) builder_.CreateBr(latchBB);

  builder_.SetInsertPoint(latchBB);
  Value *next = builder_.CreateAdd(iv, step, "iv.next");
  iv->addIncoming(next, latchBB);
  noteForLoopLatch(builder_.CreateBr(headerBB), op);
  builder_.SetInsertPoint(exitBB);
  return Error::success();
}

Error FunctionLowering::emitWhile(const ir::Op &op) {
  llvm::LLVMContext &ctx = context();
  llvm::BasicBlock *condBB = llvm::BasicBlock::Create(ctx, "while.cond", function_);
  llvm::BasicBlock *bodyBB = llvm::BasicBlock::Create(ctx, "while.body", function_);
  llvm::BasicBlock *exitBB = llvm::BasicBlock::Create(ctx, "while.end", function_);
  builder_.CreateBr(condBB);

  builder_.SetInsertPoint(condBB);
  loops_.push_back({exitBB, condBB, bodyBB});
  Error e = emitBlock(op.regions[0]);
  if (!e && !blockTerminated()) builder_.CreateBr(exitBB); // no condition: run once
  loops_.back().bodyTarget = nullptr; // `condition` only belongs to the cond region
  if (!e) {
    builder_.SetInsertPoint(bodyBB);
    e = emitBlock(op.regions[1]);
    if (!e && !blockTerminated()) noteLoopLatch(builder_.CreateBr(condBB));
  }
  loops_.pop_back();
  if (e) return e;
  builder_.SetInsertPoint(exitBB);
  return Error::success();
}

Error FunctionLowering::emitCall(const ir::Op &op) {
  const ir::Function *callee = module_.lookup(op.callee);
  if (!callee) return unsupported(op, "unknown function '" + op.callee + "'");
  if (callee->isExternal) return emitExternalCall(op, *callee);
  if (frames_.size() > 64) return unsupported(op, "calls nest too deeply (recursion?)");
  for (size_t i = 0; i < callee->params.size() && i < op.operands.size(); ++i)
    alias(callee->params[i], record(op.operands[i]));

  llvm::BasicBlock *exitBB = llvm::BasicBlock::Create(context(), "call.exit", function_);
  llvm::AllocaInst *slot = nullptr;
  if (op.result && !callee->returnType.isVoid()) slot = createCallResultSlot(op, *callee);
  frames_.push_back({exitBB, slot, loops_.size(), callee});
  const ir::Function *caller = current_;
  current_ = callee;
  Error e = emitBlock(callee->body);
  current_ = caller;
  frames_.pop_back();
  if (e) return e;
  if (!blockTerminated()) builder_.CreateBr(exitBB);
  builder_.SetInsertPoint(exitBB);
  if (slot) defineCallResult(op, slot);
  return Error::success();
}

llvm::FunctionType *FunctionLowering::externalFunctionType(const ir::Function &callee) const {
  std::vector<llvm::Type *> params;
  for (const ir::Value *param : callee.params) params.push_back(valueType(param->type));
  llvm::Type *result = callee.returnType.isVoid() ? llvm::Type::getVoidTy(context())
                                                  : valueType(callee.returnType);
  return llvm::FunctionType::get(result, params, false);
}

Error FunctionLowering::emitExternalCall(const ir::Op &op, const ir::Function &callee) {
  // Not inlined: a call of the symbol, which linkLlvmInputs() defines from a linked file.
  llvm::FunctionType *type = externalFunctionType(callee);
  llvm::FunctionCallee function = llvmModule().getOrInsertFunction(callee.name, type);
  auto *declared = llvm::dyn_cast<llvm::Function>(function.getCallee());
  if (!declared || declared->getFunctionType() != type)
    return unsupported(op, "the external symbol '" + callee.name +
                               "' clashes with a function dpk itself uses");
  if (target_.spirCallingConvention) declared->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  std::vector<Value *> args;
  for (const ir::Value *operand : op.operands) args.push_back(lookup(operand));
  llvm::CallInst *call = builder_.CreateCall(function, args);
  call->setCallingConv(declared->getCallingConv());
  if (op.result && !callee.returnType.isVoid()) define(op.result, call);
  return Error::success();
}

llvm::AllocaInst *FunctionLowering::createCallResultSlot(const ir::Op &,
                                                         const ir::Function &callee) {
  return entryAlloca(valueType(callee.returnType), nullptr, "call.result");
}

void FunctionLowering::storeCallResult(llvm::AllocaInst *slot, const ir::Value *value) {
  builder_.CreateStore(lookup(value), slot);
}

void FunctionLowering::defineCallResult(const ir::Op &call, llvm::AllocaInst *slot) {
  define(call.result, builder_.CreateLoad(slot->getAllocatedType(), slot));
}

// ---- math ---------------------------------------------------------------------------------

Error FunctionLowering::emitMath(const ir::Op &op) {
  std::vector<Value *> args;
  bool half = false;
  for (const ir::Value *operand : op.operands) {
    Value *v = lookup(operand);
    if (operand->type.scalar == ir::ScalarKind::F16 && operand->type.isScalar()) {
      v = builder_.CreateFPExt(v, builder_.getFloatTy());
      half = true;
    }
    args.push_back(v);
  }
  Expected<Value *> r = nullptr;
  switch (target_.math) {
  case MathStyle::Host: r = emitMathHost(op, args); break;
  case MathStyle::OpenCL: r = emitMathOpenCL(op, args); break;
  case MathStyle::Libdevice: r = emitMathLibdevice(op, args); break;
  }
  if (!r) return r.takeError();
  Value *v = *r;
  if (half && v->getType()->isFloatTy()) v = builder_.CreateFPTrunc(v, builder_.getHalfTy());
  define(op.result, v);
  return Error::success();
}

} // namespace dpk::compiler

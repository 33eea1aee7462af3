// AtomicLowering.cpp - dpk atomics as LLVM atomic instructions: read-modify-writes (floats as
// compare-exchange loops where the target lacks them), atomic loads and stores (fenced relaxed
// accesses where the target selects no ordered ones), compare-exchange.
#include "compiler/Lowering.h"

#include <llvm/IR/Constants.h>

namespace dpk::compiler {

using llvm::Value;

llvm::AtomicOrdering toOrdering(ir::MemoryOrder order) {
  switch (order) {
  case ir::MemoryOrder::Relaxed: return llvm::AtomicOrdering::Monotonic;
  case ir::MemoryOrder::Acquire: return llvm::AtomicOrdering::Acquire;
  case ir::MemoryOrder::Release: return llvm::AtomicOrdering::Release;
  case ir::MemoryOrder::AcqRel: return llvm::AtomicOrdering::AcquireRelease;
  case ir::MemoryOrder::SeqCst: return llvm::AtomicOrdering::SequentiallyConsistent;
  }
  return llvm::AtomicOrdering::SequentiallyConsistent;
}

namespace {

// Loads may not release; stores may not acquire.
llvm::AtomicOrdering loadOrdering(ir::MemoryOrder order) {
  switch (order) {
  case ir::MemoryOrder::Release: return llvm::AtomicOrdering::Monotonic;
  case ir::MemoryOrder::AcqRel: return llvm::AtomicOrdering::Acquire;
  case ir::MemoryOrder::Relaxed: case ir::MemoryOrder::Acquire: case ir::MemoryOrder::SeqCst:
    return toOrdering(order);
  }
  return llvm::AtomicOrdering::SequentiallyConsistent;
}

llvm::AtomicOrdering storeOrdering(ir::MemoryOrder order) {
  switch (order) {
  case ir::MemoryOrder::Acquire: return llvm::AtomicOrdering::Monotonic;
  case ir::MemoryOrder::AcqRel: return llvm::AtomicOrdering::Release;
  case ir::MemoryOrder::Relaxed: case ir::MemoryOrder::Release: case ir::MemoryOrder::SeqCst:
    return toOrdering(order);
  }
  return llvm::AtomicOrdering::SequentiallyConsistent;
}

} // namespace

Error FunctionLowering::emitAtomic(const ir::Op &op) {
  const ir::Value *pointer = op.operands[0];
  ir::ScalarKind kind = pointer->type.scalar;
  llvm::Type *mem = memoryType(kind);
  llvm::Align align(ir::scalarSize(kind));
  Value *address = elementAddress(pointer, lookup(op.operands[1]));
  bool isFloat = pointer->type.elementType().isFloat();
  if (kind == ir::ScalarKind::Bool || kind == ir::ScalarKind::F16)
    return unsupported(op, "atomics on " + std::string(ir::scalarName(kind)));
  llvm::IntegerType *intTy = builder_.getIntNTy(ir::scalarSize(kind) * 8);
  auto asInt = [&](Value *v) { return isFloat ? builder_.CreateBitCast(v, intTy) : v; };
  auto intAddress = [&]() {
    return builder_.CreatePointerCast(
        address, llvm::PointerType::get(intTy, address->getType()->getPointerAddressSpace()));
  };

  if (op.kind == ir::OpKind::AtomicLoad) {
    llvm::AtomicOrdering order = loadOrdering(op.order);
    bool fenced = target_.fencedAtomicLoadStore && order != llvm::AtomicOrdering::Monotonic;
    bool viaInt = isFloat && target_.floatAtomicLoadStoreAsInteger;
    llvm::LoadInst *load = viaInt ? builder_.CreateAlignedLoad(intTy, intAddress(), align)
                                  : builder_.CreateAlignedLoad(mem, address, align);
    load->setAtomic(fenced ? llvm::AtomicOrdering::Monotonic : order);
    noteMemoryAccess(load, pointer, true);
    if (fenced) emitFence(order, op.scope);
    define(op.result, viaInt ? builder_.CreateBitCast(load, mem) : static_cast<Value *>(load));
    return Error::success();
  }
  if (op.kind == ir::OpKind::AtomicStore) {
    llvm::AtomicOrdering order = storeOrdering(op.order);
    bool fenced = target_.fencedAtomicLoadStore && order != llvm::AtomicOrdering::Monotonic;
    if (fenced) emitFence(order, op.scope);
    bool viaInt = isFloat && target_.floatAtomicLoadStoreAsInteger;
    llvm::StoreInst *store =
        viaInt ? builder_.CreateAlignedStore(asInt(lookup(op.operands[2])), intAddress(), align)
               : builder_.CreateAlignedStore(lookup(op.operands[2]), address, align);
    store->setAtomic(fenced ? llvm::AtomicOrdering::Monotonic : order);
    noteMemoryAccess(store, pointer, true);
    return Error::success();
  }
  if (op.kind == ir::OpKind::AtomicCmpXchg) {
    llvm::AtomicOrdering success = toOrdering(op.order);
    llvm::AtomicOrdering failure = loadOrdering(op.order);
    llvm::AtomicCmpXchgInst *cx = builder_.CreateAtomicCmpXchg(
        intAddress(), asInt(lookup(op.operands[2])), asInt(lookup(op.operands[3])), align,
        success, failure);
    noteMemoryAccess(cx, pointer, true);
    Value *old = builder_.CreateExtractValue(cx, 0);
    define(op.result, isFloat ? builder_.CreateBitCast(old, mem) : old);
    return Error::success();
  }

  // atomic_rmw
  using B = llvm::AtomicRMWInst::BinOp;
  Value *operand = lookup(op.operands[2]);
  llvm::AtomicOrdering order = toOrdering(op.order);
  B binop = B::Add;
  bool native = true;
  bool isSigned = pointer->type.elementType().isSigned();
  switch (op.rmwKind) {
  case ir::AtomicRmwKind::Add:
    binop = isFloat ? B::FAdd : B::Add;
    native = !isFloat || target_.nativeFloatAtomicAdd;
    break;
  case ir::AtomicRmwKind::Sub:
    binop = isFloat ? B::FSub : B::Sub;
    native = !isFloat || target_.nativeFloatAtomicOther;
    break;
  case ir::AtomicRmwKind::Min:
    binop = isFloat ? B::FMin : (isSigned ? B::Min : B::UMin);
    native = !isFloat || target_.nativeFloatAtomicOther;
    break;
  case ir::AtomicRmwKind::Max:
    binop = isFloat ? B::FMax : (isSigned ? B::Max : B::UMax);
    native = !isFloat || target_.nativeFloatAtomicOther;
    break;
  case ir::AtomicRmwKind::And: binop = B::And; break;
  case ir::AtomicRmwKind::Or: binop = B::Or; break;
  case ir::AtomicRmwKind::Xor: binop = B::Xor; break;
  case ir::AtomicRmwKind::Exchange:
    binop = B::Xchg;
    native = !isFloat;
    break;
  }
  if (isFloat && (binop == B::And || binop == B::Or || binop == B::Xor))
    return unsupported(op, "bitwise atomics on floats");
  if (native) {
    llvm::AtomicRMWInst *rmw = builder_.CreateAtomicRMW(binop, address, operand, align, order);
    noteMemoryAccess(rmw, pointer, true);
    define(op.result, rmw);
    return Error::success();
  }

  // Compare-exchange loop on the integer bits of a float.
  llvm::BasicBlock *preBB = builder_.GetInsertBlock();
  llvm::BasicBlock *loopBB = llvm::BasicBlock::Create(context(), "atomic.loop", function_);
  llvm::BasicBlock *exitBB = llvm::BasicBlock::Create(context(), "atomic.end", function_);
  Value *iaddr = intAddress();
  llvm::LoadInst *initial = builder_.CreateAlignedLoad(intTy, iaddr, align);
  initial->setAtomic(llvm::AtomicOrdering::Monotonic);
  noteMemoryAccess(initial, pointer, true);
  builder_.CreateBr(loopBB);
  builder_.SetInsertPoint(loopBB);
  llvm::PHINode *oldBits = builder_.CreatePHI(intTy, 2);
  oldBits->addIncoming(initial, preBB);
  Value *oldValue = builder_.CreateBitCast(oldBits, mem);
  Value *newValue = nullptr;
  switch (binop) {
  case B::FAdd: newValue = builder_.CreateFAdd(oldValue, operand); break;
  case B::FSub: newValue = builder_.CreateFSub(oldValue, operand); break;
  case B::FMin: newValue = builder_.CreateMinNum(oldValue, operand); break;
  case B::FMax: newValue = builder_.CreateMaxNum(oldValue, operand); break;
  default: newValue = operand; break; // exchange
  }
  llvm::AtomicCmpXchgInst *cx =
      builder_.CreateAtomicCmpXchg(iaddr, oldBits, builder_.CreateBitCast(newValue, intTy), align,
                                   order, loadOrdering(op.order));
  noteMemoryAccess(cx, pointer, true);
  Value *seen = builder_.CreateExtractValue(cx, 0);
  oldBits->addIncoming(seen, builder_.GetInsertBlock());
  builder_.CreateCondBr(builder_.CreateExtractValue(cx, 1), exitBB, loopBB);
  builder_.SetInsertPoint(exitBB);
  define(op.result, oldValue);
  return Error::success();
}

} // namespace dpk::compiler

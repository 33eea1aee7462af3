// ScalarizeGathers.cpp - unmasked gathers become one scalar load per lane (host, AMD Zen).
//
// The loop vectorizer turns strided loads whose stride is only known at run time (a view's
// leading stride, e.g. pairwise distance's x[j, k] with stride d) into llvm.masked.gather. AMD
// Zen microcodes vgatherdps/vgatherqps: on this EPYC the gather version of pairwise distance ran
// 3x slower than the scalar loop. GCC instead loads lane by lane and inserts (vmovss +
// vinsertps), which feeds the vector arithmetic at load-port speed; this pass does the same
// after vectorization. Lane addresses are rebuilt with scalar arithmetic: when the pointer vector
// is affine in the lane (start + lane * delta: vector inductions, splats, adds, multiplies by
// splats), lane l is lane l-1 plus delta bytes; otherwise each lane's expression is recomputed
// from scalars. Gathers with a mask (loop tails, conditional loads) are left alone: scalarizing
// them needs a branch per lane.
#include "compiler/ScalarizeGathers.h"
#include "compiler/Targets.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Target/TargetMachine.h>

namespace dpk::compiler {

namespace {

using llvm::Value;

constexpr unsigned kMaxDepth = 8;

/// A constant integer vector <a, a + c, a + 2c, ...>.
bool isProgression(llvm::Constant *constant) {
  auto *type = llvm::dyn_cast<llvm::FixedVectorType>(constant->getType());
  if (!type || !type->getElementType()->isIntegerTy()) return false;
  auto element = [&](unsigned lane) {
    return llvm::dyn_cast_or_null<llvm::ConstantInt>(constant->getAggregateElement(lane));
  };
  llvm::ConstantInt *first = element(0), *second = type->getNumElements() > 1 ? element(1) : first;
  if (!first || !second) return false;
  llvm::APInt step = second->getValue() - first->getValue();
  for (unsigned lane = 2; lane < type->getNumElements(); ++lane) {
    llvm::ConstantInt *e = element(lane);
    if (!e || e->getValue() - first->getValue() != step * lane) return false;
  }
  return true;
}

/// `phi` is a vector induction: one incoming value adds splats to the phi (a chain when the
/// vectorizer interleaved), the other is the start. Sets `start`.
bool isVectorInduction(llvm::PHINode *phi, Value *&start) {
  if (phi->getNumIncomingValues() != 2) return false;
  auto addsSplats = [&](Value *v) {
    for (int hops = 0; hops < 32; ++hops) {
      auto *add = llvm::dyn_cast<llvm::BinaryOperator>(v);
      if (!add || add->getOpcode() != llvm::Instruction::Add) return false;
      if (llvm::getSplatValue(add->getOperand(1))) v = add->getOperand(0);
      else if (llvm::getSplatValue(add->getOperand(0))) v = add->getOperand(1);
      else return false;
      if (v == phi) return true;
    }
    return false;
  };
  for (unsigned i = 0; i < 2; ++i) {
    if (addsSplats(phi->getIncomingValue(1 - i))) {
      start = phi->getIncomingValue(i);
      return true;
    }
  }
  return false;
}

bool isSplat(Value *v) { return !v->getType()->isVectorTy() || llvm::getSplatValue(v); }

/// Lane l of `v` equals lane 0 plus l * delta for some scalar delta (mod 2^n, which is all
/// address arithmetic needs).
bool isAffine(Value *v, unsigned depth = 0) {
  if (isSplat(v)) return true;
  if (auto *constant = llvm::dyn_cast<llvm::Constant>(v)) return isProgression(constant);
  if (depth >= kMaxDepth) return false;
  if (auto *phi = llvm::dyn_cast<llvm::PHINode>(v)) {
    Value *start = nullptr;
    return phi->getType()->getScalarType()->isIntegerTy() && isVectorInduction(phi, start) &&
           phi->getParent() != nullptr && isAffine(start, depth + 1);
  }
  if (auto *binary = llvm::dyn_cast<llvm::BinaryOperator>(v)) {
    Value *a = binary->getOperand(0), *b = binary->getOperand(1);
    switch (binary->getOpcode()) {
    case llvm::Instruction::Add:
    case llvm::Instruction::Sub: return isAffine(a, depth + 1) && isAffine(b, depth + 1);
    case llvm::Instruction::Mul:
      return (isSplat(a) && isAffine(b, depth + 1)) || (isSplat(b) && isAffine(a, depth + 1));
    case llvm::Instruction::Shl: return isSplat(b) && isAffine(a, depth + 1);
    default: return false;
    }
  }
  if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(v))
    return gep->getNumIndices() == 1 && (*gep->idx_begin())->getType()->getScalarType()->isIntegerTy(64) &&
           isAffine(gep->getPointerOperand(), depth + 1) &&
           isAffine(*gep->idx_begin(), depth + 1);
  return false;
}

Value *laneValue(llvm::IRBuilder<> &builder, Value *v, unsigned lane, unsigned depth = 0);

/// For an affine `v` (isAffine): lane l+1 minus lane l, as a scalar built from loop-invariant
/// values (MachineLICM hoists it), in bytes for pointers.
Value *laneDelta(llvm::IRBuilder<> &builder, Value *v, const llvm::DataLayout &layout,
                 unsigned depth = 0) {
  llvm::Type *scalar = v->getType()->getScalarType();
  llvm::Type *intType = scalar->isPointerTy() ? builder.getInt64Ty() : scalar;
  if (isSplat(v)) return llvm::ConstantInt::get(intType, 0);
  if (auto *constant = llvm::dyn_cast<llvm::Constant>(v)) {
    auto *first = llvm::cast<llvm::ConstantInt>(constant->getAggregateElement(0u));
    auto *second = llvm::cast<llvm::ConstantInt>(constant->getAggregateElement(1u));
    return llvm::ConstantInt::get(intType, second->getValue() - first->getValue());
  }
  if (auto *phi = llvm::dyn_cast<llvm::PHINode>(v)) {
    Value *start = nullptr;
    isVectorInduction(phi, start);
    return laneDelta(builder, start, layout, depth + 1);
  }
  if (auto *binary = llvm::dyn_cast<llvm::BinaryOperator>(v)) {
    Value *a = binary->getOperand(0), *b = binary->getOperand(1);
    switch (binary->getOpcode()) {
    case llvm::Instruction::Add:
      return builder.CreateAdd(laneDelta(builder, a, layout, depth + 1), laneDelta(builder, b, layout, depth + 1));
    case llvm::Instruction::Sub:
      return builder.CreateSub(laneDelta(builder, a, layout, depth + 1), laneDelta(builder, b, layout, depth + 1));
    case llvm::Instruction::Mul:
      if (isSplat(a)) return builder.CreateMul(laneValue(builder, a, 0), laneDelta(builder, b, layout, depth + 1));
      return builder.CreateMul(laneDelta(builder, a, layout, depth + 1), laneValue(builder, b, 0));
    case llvm::Instruction::Shl:
      return builder.CreateShl(laneDelta(builder, a, layout, depth + 1), laneValue(builder, b, 0));
    default: break;
    }
  }
  auto *gep = llvm::cast<llvm::GetElementPtrInst>(v);
  Value *index = *gep->idx_begin();
  Value *indexDelta = builder.CreateSExtOrTrunc(laneDelta(builder, index, layout, depth + 1),
                                                builder.getInt64Ty());
  uint64_t size = layout.getTypeAllocSize(gep->getSourceElementType()).getFixedSize();
  return builder.CreateAdd(laneDelta(builder, gep->getPointerOperand(), layout, depth + 1),
                           builder.CreateMul(indexDelta, builder.getInt64(size)));
}

/// Lane `lane` of `v`, rebuilt from scalars where the expression allows.
Value *laneValue(llvm::IRBuilder<> &builder, Value *v, unsigned lane, unsigned depth) {
  if (!v->getType()->isVectorTy()) return v;
  if (Value *splat = llvm::getSplatValue(v)) return splat;
  if (auto *constant = llvm::dyn_cast<llvm::Constant>(v))
    if (llvm::Constant *element = constant->getAggregateElement(lane)) return element;
  if (depth < kMaxDepth) {
    // A vector induction keeps its start's lane differences: lane 0 plus (start's lane - lane 0).
    Value *start = nullptr;
    auto *phi = llvm::dyn_cast<llvm::PHINode>(v);
    if (phi && lane > 0 && isAffine(phi, depth) && isVectorInduction(phi, start)) {
      Value *first = builder.CreateExtractElement(phi, builder.getInt64(0));
      Value *offset = builder.CreateSub(laneValue(builder, start, lane, depth + 1),
                                        laneValue(builder, start, 0, depth + 1));
      return builder.CreateAdd(first, offset);
    }
    if (auto *binary = llvm::dyn_cast<llvm::BinaryOperator>(v))
      return builder.CreateBinOp(binary->getOpcode(),
                                 laneValue(builder, binary->getOperand(0), lane, depth + 1),
                                 laneValue(builder, binary->getOperand(1), lane, depth + 1));
    if (auto *cast = llvm::dyn_cast<llvm::CastInst>(v))
      return builder.CreateCast(cast->getOpcode(),
                                laneValue(builder, cast->getOperand(0), lane, depth + 1),
                                cast->getDestTy()->getScalarType());
    if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(v)) {
      std::vector<Value *> indices;
      for (Value *index : gep->indices()) indices.push_back(laneValue(builder, index, lane, depth + 1));
      return builder.CreateGEP(gep->getSourceElementType(),
                               laneValue(builder, gep->getPointerOperand(), lane, depth + 1),
                               indices, "", gep->isInBounds());
    }
  }
  return builder.CreateExtractElement(v, builder.getInt64(lane));
}

void scalarize(llvm::IntrinsicInst *gather) {
  llvm::IRBuilder<> builder(gather);
  auto *type = llvm::cast<llvm::FixedVectorType>(gather->getType());
  Value *pointers = gather->getArgOperand(0);
  auto align = llvm::cast<llvm::ConstantInt>(gather->getArgOperand(1))->getZExtValue();
  unsigned lanes = type->getNumElements();

  std::vector<Value *> addresses(lanes);
  if (lanes > 1 && isAffine(pointers)) {
    // Lane 0's address, then + delta per lane (one add each, like a strength-reduced loop).
    addresses[0] = laneValue(builder, pointers, 0);
    Value *delta = laneDelta(builder, pointers, gather->getModule()->getDataLayout());
    for (unsigned lane = 1; lane < lanes; ++lane)
      addresses[lane] = builder.CreateGEP(builder.getInt8Ty(), addresses[lane - 1], delta);
  } else {
    for (unsigned lane = 0; lane < lanes; ++lane) addresses[lane] = laneValue(builder, pointers, lane);
  }

  Value *result = llvm::PoisonValue::get(type);
  for (unsigned lane = 0; lane < lanes; ++lane) {
    llvm::LoadInst *load = builder.CreateAlignedLoad(type->getElementType(), addresses[lane],
                                                     llvm::Align(std::max<uint64_t>(align, 1)));
    load->copyMetadata(*gather, {llvm::LLVMContext::MD_access_group, llvm::LLVMContext::MD_tbaa,
                                 llvm::LLVMContext::MD_alias_scope, llvm::LLVMContext::MD_noalias});
    result = builder.CreateInsertElement(result, load, builder.getInt64(lane));
  }
  gather->replaceAllUsesWith(result);
  gather->eraseFromParent();
}

} // namespace

bool cpuHasSlowGathers(const std::string &cpu) {
  // AMD Zen microcodes gathers. Intel's cores from Skylake to Tiger Lake run them slowly since
  // the microcode against Gather Data Sampling ("Downfall", CVE-2022-40982, 2023): pairwise
  // distance n = 1024 on the build machine's Cascade Lake took 3.16 ms with gathers and 1.03 ms
  // with them scalarized (oneTBB's loop 0.96-1.18 ms).
  static const char *const intel[] = {"skylake",        "skylake-avx512", "cascadelake",
                                      "cooperlake",     "cannonlake",     "icelake-client",
                                      "icelake-server", "tigerlake",      "rocketlake"};
  if (cpu.rfind("znver", 0) == 0)
    return true;
  for (const char *name : intel)
    if (cpu == name)
      return true;
  return false;
}

bool hasSlowGathers(const llvm::TargetMachine &machine) {
  return machine.getTargetTriple().isX86() && cpuHasSlowGathers(machine.getTargetCPU().str());
}

llvm::PreservedAnalyses ScalarizeGathersPass::run(llvm::Function &function,
                                                  llvm::FunctionAnalysisManager &) {
  std::vector<llvm::IntrinsicInst *> gathers;
  for (llvm::BasicBlock &block : function)
    for (llvm::Instruction &inst : block) {
      auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
      if (!call || call->getIntrinsicID() != llvm::Intrinsic::masked_gather) continue;
      auto *mask = llvm::dyn_cast<llvm::Constant>(call->getArgOperand(2));
      if (mask && mask->isAllOnesValue() && llvm::isa<llvm::FixedVectorType>(call->getType()))
        gathers.push_back(call);
    }
  for (llvm::IntrinsicInst *gather : gathers) scalarize(gather);
  return gathers.empty() ? llvm::PreservedAnalyses::all() : llvm::PreservedAnalyses::none();
}

} // namespace dpk::compiler

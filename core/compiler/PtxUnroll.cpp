// PtxUnroll.cpp - see PtxUnroll.h.
#include "compiler/PtxUnroll.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/LoopUnrollPass.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/LCSSA.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>

namespace dpk::compiler {
namespace {

/// Whether the loop already carries a decision about unrolling or vectorization (a pragma, or
/// the mark an earlier unrolling or vectorization left).
bool alreadyDecided(const llvm::Loop &loop) {
  llvm::MDNode *id = loop.getLoopID();
  if (!id)
    return false;
  for (unsigned i = 1; i < id->getNumOperands(); ++i) {
    auto *entry = llvm::dyn_cast<llvm::MDNode>(id->getOperand(i));
    if (!entry || entry->getNumOperands() == 0)
      continue;
    auto *name = llvm::dyn_cast<llvm::MDString>(entry->getOperand(0));
    if (name && (name->getString().startswith("llvm.loop.unroll.") ||
                 name->getString().startswith("llvm.loop.isvectorized")))
      return true;
  }
  return false;
}

/// Whether the loop is small enough and free of convergent operations (barriers, which a
/// remainder loop would run in divergent control flow).
bool worthUnrolling(const llvm::Loop &loop) {
  unsigned instructions = 0;
  for (const llvm::BasicBlock *block : loop.blocks())
    for (const llvm::Instruction &inst : *block) {
      if (const auto *call = llvm::dyn_cast<llvm::CallBase>(&inst); call && call->isConvergent())
        return false;
      if (++instructions > kPtxUnrollMaxInstructions)
        return false;
    }
  return true;
}

/// Adds llvm.loop.unroll.count to the loop's metadata, keeping what it had.
void requestUnroll(llvm::Loop &loop, llvm::LLVMContext &context) {
  llvm::SmallVector<llvm::Metadata *, 4> operands{nullptr};
  if (llvm::MDNode *old = loop.getLoopID())
    for (unsigned i = 1; i < old->getNumOperands(); ++i)
      operands.push_back(old->getOperand(i));
  llvm::Metadata *count[] = {
      llvm::MDString::get(context, "llvm.loop.unroll.count"),
      llvm::ConstantAsMetadata::get(
          llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), kPtxUnrollCount))};
  operands.push_back(llvm::MDNode::get(context, count));
  llvm::MDNode *id = llvm::MDNode::getDistinct(context, operands);
  id->replaceOperandWith(0, id);
  loop.setLoopID(id);
}

} // namespace

llvm::PreservedAnalyses RequestPtxUnrollPass::run(llvm::Function &function,
                                                  llvm::FunctionAnalysisManager &manager) {
  for (llvm::Loop *loop : manager.getResult<llvm::LoopAnalysis>(function).getLoopsInPreorder()) {
    // A loop LLVM unrolled itself counts in steps of its unroll count and carries no mark:
    // only loops counting by one (their canonical induction variable) are candidates.
    if (!loop->isInnermost() || alreadyDecided(*loop) || !loop->getCanonicalInductionVariable() ||
        !worthUnrolling(*loop))
      continue;
    requestUnroll(*loop, function.getContext());
  }
  // Loop metadata only: the analyses stay valid.
  return llvm::PreservedAnalyses::all();
}

void addPtxUnrollPasses(llvm::FunctionPassManager &passes) {
  passes.addPass(RequestPtxUnrollPass());
  passes.addPass(llvm::LoopSimplifyPass());
  passes.addPass(llvm::LCSSAPass());
  passes.addPass(llvm::LoopUnrollPass(llvm::LoopUnrollOptions(3).setRuntime(true)));
  passes.addPass(llvm::InstCombinePass());
  passes.addPass(llvm::SimplifyCFGPass());
  passes.addPass(llvm::EarlyCSEPass());
}

} // namespace dpk::compiler

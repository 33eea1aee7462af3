// SpirvTarget.cpp - kernels as OpenCL SPIR-V through SPIRV-LLVM-Translator 15.
//
// The module is spir64-unknown-unknown with OpenCL address spaces (private 0, global 1,
// constant 2, local 3, generic 4) and typed pointers (the translator for LLVM 15 reads typed
// pointers only). Work-item builtins are OpenCL calls with dpk dimension d asked as OpenCL
// dimension dims-1-d; barriers are barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); math
// functions are OpenCL builtins, which the translator turns into OpenCL.std instructions.
// Float atomic add/sub/min/max are compare-exchange loops, so no SPIR-V extension is needed.
#include "compiler/Link.h"
#include "compiler/Lowering.h"
#include "compiler/Targets.h"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <mutex>
#include <sstream>

namespace dpk::compiler {

using llvm::Value;

namespace {

constexpr const char *kSpirDataLayout =
    "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024";

TargetInfo spirvTargetInfo() {
  TargetInfo info;
  info.addressSpaces = {1, 3, 0, 2, 4}; // Global, Local, Private, Constant, Generic
  info.math = MathStyle::OpenCL;
  info.nativeFloatAtomicAdd = false;
  info.nativeFloatAtomicOther = false;
  info.spirCallingConvention = true;
  info.floatAtomicLoadStoreAsInteger = true;
  return info;
}

class SpirvKernelLowering : public FunctionLowering {
public:
  SpirvKernelLowering(const ir::Module &module, const TargetInfo &target, llvm::Function *function,
                      unsigned dims)
      : FunctionLowering(module, target, function), dims_(dims) {}

  Error build(const ir::Function &kernel) {
    entry_ = llvm::BasicBlock::Create(context(), "entry", function_);
    llvm::BasicBlock *start = llvm::BasicBlock::Create(context(), "start", function_);
    builder_.SetInsertPoint(entry_);
    builder_.CreateBr(start);
    builder_.SetInsertPoint(start);
    std::vector<Value *> args;
    for (llvm::Argument &arg : function_->args()) args.push_back(&arg);
    return lowerKernel(kernel, args);
  }

protected:
  Expected<Value *> emitWorkItem(const ir::Op &op) override {
    auto d = static_cast<unsigned>(op.intAttr);
    if (d >= dims_)
      return unsupported(op, "dimension " + std::to_string(d) + " but the launch has " +
                                 std::to_string(dims_));
    using K = ir::OpKind;
    const char *name = op.kind == K::GlobalId     ? "_Z13get_global_idj"
                       : op.kind == K::LocalId    ? "_Z12get_local_idj"
                       : op.kind == K::GroupId    ? "_Z12get_group_idj"
                       : op.kind == K::GlobalSize ? "_Z15get_global_sizej"
                       : op.kind == K::LocalSize  ? "_Z14get_local_sizej"
                       : op.kind == K::NumGroups  ? "_Z14get_num_groupsj"
                                                  : nullptr;
    if (!name) return unsupported(op, "not a work-item builtin");
    return callPure(name, builder_.getInt64Ty(), {builder_.getInt32(dims_ - 1 - d)});
  }

  Error emitBarrier(const ir::Op &) override {
    auto *fnType = llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getInt32Ty()}, false);
    llvm::FunctionCallee callee = llvmModule().getOrInsertFunction("_Z7barrierj", fnType);
    auto *fn = llvm::cast<llvm::Function>(callee.getCallee());
    fn->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    fn->addFnAttr(llvm::Attribute::Convergent);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::CallInst *call = builder_.CreateCall(callee, {builder_.getInt32(3)});
    call->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    call->addFnAttr(llvm::Attribute::Convergent);
    return Error::success();
  }

private:
  unsigned dims_;
};

void addOpenCLMetadata(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  auto version = [&](unsigned major, unsigned minor) {
    llvm::Metadata *ops[] = {
        llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), major)),
        llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), minor))};
    return llvm::MDNode::get(ctx, ops);
  };
  module.getOrInsertNamedMetadata("opencl.ocl.version")->addOperand(version(2, 0));
  module.getOrInsertNamedMetadata("opencl.spir.version")->addOperand(version(1, 2));
}

Expected<std::unique_ptr<llvm::Module>> lowerSpirvModule(const ir::Module &module,
                                                         const CompileOptions &options,
                                                         llvm::LLVMContext &context) {
  auto llvmModule = std::make_unique<llvm::Module>(dumpName(module), context);
  llvmModule->setTargetTriple("spir64-unknown-unknown");
  llvmModule->setDataLayout(kSpirDataLayout);
  addOpenCLMetadata(*llvmModule);
  TargetInfo target = spirvTargetInfo();
  unsigned dims = kernelDims(module, options);
  for (const auto &kernel : module.functions) {
    if (!kernel->isKernel) continue;
    // Types come from a throwaway lowering object: they depend only on the target.
    std::vector<llvm::Type *> params;
    auto *placeholderType = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
    auto *placeholder = llvm::Function::Create(placeholderType, llvm::Function::ExternalLinkage,
                                               "", *llvmModule);
    SpirvKernelLowering typer(module, target, placeholder, dims);
    for (const ir::Value *param : kernel->params) typer.appendAbiTypes(param->type, params);
    placeholder->eraseFromParent();

    auto *fnType = llvm::FunctionType::get(llvm::Type::getVoidTy(context), params, false);
    auto *fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, kernel->name,
                                      *llvmModule);
    fn->setCallingConv(llvm::CallingConv::SPIR_KERNEL);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    SpirvKernelLowering lowering(module, target, fn, dims);
    lowering.setUnitInnerStrideViews(options.unitInnerStrideViews);
    if (Error e = lowering.build(*kernel)) return e;
  }
  if (Error e = verifyLlvmModule(*llvmModule, "SPIR-V lowering")) return e;
  return llvmModule;
}

/// SPIR-V requires every block to come after its dominators; the translator keeps LLVM's
/// block order, so put blocks in reverse post-order (unreachable ones are dropped first).
void orderBlocksForSpirv(llvm::Module &module) {
  for (llvm::Function &fn : module) {
    if (fn.isDeclaration()) continue;
    llvm::removeUnreachableBlocks(fn);
    llvm::ReversePostOrderTraversal<llvm::Function *> order(&fn);
    llvm::BasicBlock *previous = nullptr;
    for (llvm::BasicBlock *block : order) {
      if (previous) block->moveAfter(previous);
      previous = block;
    }
  }
}

/// LLVM 15's optimizer introduces `freeze` (for example when it pairs a division with its
/// remainder), which SPIRV-LLVM-Translator 15 cannot translate. Worse, the translator reports
/// that by exiting the process. Freezing only matters for poison, which the kernels' defined
/// inputs never produce, so each freeze is replaced by its operand.
void removeFreezeInstructions(llvm::Module &module) {
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : llvm::make_early_inc_range(block)) {
        auto *freeze = llvm::dyn_cast<llvm::FreezeInst>(&inst);
        if (!freeze) continue;
        freeze->replaceAllUsesWith(freeze->getOperand(0));
        freeze->eraseFromParent();
      }
}

/// An array alloca (`alloca i32, i64 8`, how private arrays are lowered) that the optimizer
/// leaves alone (-O0) is taken by SPIRV-LLVM-Translator 15 for a variable-length array, which
/// it reports by exiting the process (found by the compiler fuzzer). Each one with a constant
/// count becomes an alloca of an array type and a pointer to its first element, as InstCombine
/// would canonicalize it at -O1 and above.
void replaceArrayAllocas(llvm::Module &module) {
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : llvm::make_early_inc_range(block)) {
        auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst);
        if (!alloca || !alloca->isArrayAllocation()) continue;
        auto *count = llvm::dyn_cast<llvm::ConstantInt>(alloca->getArraySize());
        if (!count) continue;
        llvm::Type *element = alloca->getAllocatedType();
        auto *arrayType = llvm::ArrayType::get(element, count->getZExtValue());
        llvm::IRBuilder<> builder(alloca);
        llvm::AllocaInst *array =
            builder.CreateAlloca(arrayType, alloca->getType()->getAddressSpace(), nullptr);
        array->setAlignment(alloca->getAlign());
        array->takeName(alloca);
        // SPIR-V wants every OpVariable first in the entry block: the pointer goes after them.
        llvm::Instruction *afterAllocas = &*fn.getEntryBlock().getFirstInsertionPt();
        while (llvm::isa<llvm::AllocaInst>(afterAllocas)) afterAllocas = afterAllocas->getNextNode();
        builder.SetInsertPoint(afterAllocas);
        llvm::Value *first = builder.CreateConstInBoundsGEP2_32(arrayType, array, 0, 0);
        alloca->replaceAllUsesWith(first);
        alloca->eraseFromParent();
      }
}

} // namespace

Expected<std::vector<uint8_t>> compileSpirv(const ir::Module &module,
                                            const CompileOptions &options, Output output) {
  llvm::LLVMContext context;
  context.setOpaquePointers(false);
  Expected<std::unique_ptr<llvm::Module>> lowered = lowerSpirvModule(module, options, context);
  if (!lowered) return lowered.takeError();
  llvm::Module &llvmModule = **lowered;
  if (Error e = linkLlvmInputs(llvmModule, module, options, false)) return e;
  std::string name = dumpName(module);
  if (!options.dumpDirectory.empty()) dumpStage(options, name, "spirv.ll", printLlvmModule(llvmModule));
  // Scalar optimizations only: vector code gains nothing on SPIR-V consumers, which vectorize
  // across work-items themselves.
  optimizeModule(llvmModule, nullptr, std::min(options.optLevel, 2), false, false);
  if (Error e = verifyLlvmModule(llvmModule, "optimization")) return e;
  std::string text = printLlvmModule(llvmModule);
  if (!options.dumpDirectory.empty()) dumpStage(options, name, "spirv.opt.ll", text);
  if (output != Output::Artifact) return std::vector<uint8_t>(text.begin(), text.end());

  orderBlocksForSpirv(llvmModule);
  removeFreezeInstructions(llvmModule);
  replaceArrayAllocas(llvmModule);
  SPIRV::TranslatorOpts translatorOptions(SPIRV::VersionNumber::SPIRV_1_0);
  std::ostringstream stream;
  std::string message;
  // The translator fills static tables lazily; keep concurrent compiles out of each other's way.
  static std::mutex translatorMutex;
  std::lock_guard<std::mutex> lock(translatorMutex);
  if (!llvm::writeSpirv(&llvmModule, translatorOptions, stream, message))
    return Error(DPK_ERROR_COMPILE, "SPIR-V translation failed: " + message);
  std::string binary = stream.str();
  dumpStage(options, name, "spv", binary);
  return std::vector<uint8_t>(binary.begin(), binary.end());
}

} // namespace dpk::compiler

// PtxTarget.cpp - kernels as PTX through LLVM's NVPTX target.
//
// nvptx64-nvidia-cuda; kernels are marked in nvvm.annotations. dpk dimension d reads CUDA
// dimension dims-1-d (dpk's last dimension is x); global id = ctaid * ntid + tid, 64-bit for x
// (32-bit with CompileOptions::idsFit32), 32-bit and zero-extended for y and z (see emitWorkItem).
// Address spaces: global 1 (constant pointers too: they point at ordinary device memory),
// local (shared) 3, private and generic 0. local_alloc is an addrspace(3) global per op.
// ptr<local> kernel parameters (DPK_ARG_LOCAL) cannot be passed in CUDA: the kernel takes an
// i64 byte offset into the dynamic shared memory `dpk_dynamic_local` instead, and the CUDA
// backend passes the offsets and the total as the launch's dynamic shared memory size.
// Math: libdevice (__nv_*) when found, linked with only what is used and internalized;
// NVVMReflect runs in the pipeline NVPTX registers, after __CUDA_PREC_SQRT has been resolved to 1
// here (IEEE sqrt, as nvcc's default -prec-sqrt=true). LLVM 15's newest PTX target is sm_86 with
// PTX 7.5; newer architectures (sm_90) get sm_86 PTX, which the driver compiles for them.
#include "compiler/Link.h"
#include "compiler/Lowering.h"
#include "compiler/PrivateArrayLoops.h"
#include "compiler/Targets.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace dpk::compiler {

using llvm::Value;

namespace {

constexpr const char *kTriple = "nvptx64-nvidia-cuda";

std::string findLibdevice() {
  std::vector<std::string> candidates;
  if (const char *path = std::getenv("DPK_LIBDEVICE")) candidates.push_back(path);
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var))
      candidates.push_back(std::string(root) + "/nvvm/libdevice/libdevice.10.bc");
  candidates.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  candidates.push_back("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  for (const std::string &path : candidates)
    if (std::ifstream(path).good()) return path;
  return {};
}

/// sm_XX as a number (90 for "sm_90"); 0 when malformed.
/// NN of "sm_NN" or "sm_NNa"; 0 for anything else.
unsigned smNumber(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0) return 0;
  size_t end = arch.size() - (arch.back() == 'a' ? 1 : 0);
  if (end <= 3 || end - 3 > 4) return 0;
  unsigned number = 0;
  for (size_t i = 3; i < end; ++i) {
    if (arch[i] < '0' || arch[i] > '9') return 0;
    number = number * 10 + static_cast<unsigned>(arch[i] - '0');
  }
  return number;
}

class PtxKernelLowering : public FunctionLowering {
public:
  PtxKernelLowering(const ir::Module &module, const TargetInfo &target, llvm::Function *function,
                    unsigned dims)
      : FunctionLowering(module, target, function), dims_(dims) {}

  /// CompileOptions::idsFit32: CUDA x's global id and size are computed in 32 bits too.
  void setIdsFit32(bool fit) { idsFit32_ = fit; }

  Error build(const ir::Function &kernel) {
    entry_ = llvm::BasicBlock::Create(context(), "entry", function_);
    llvm::BasicBlock *start = llvm::BasicBlock::Create(context(), "start", function_);
    builder_.SetInsertPoint(entry_);
    std::vector<Value *> args;
    unsigned next = 0;
    for (const ir::Value *param : kernel.params) {
      const ir::Type &t = param->type;
      unsigned count = t.isView() ? 1 + 2 * t.rank : 1;
      for (unsigned i = 0; i < count; ++i) {
        llvm::Argument *arg = function_->getArg(next++);
        bool localPointer = i == 0 && (t.isPointer() || t.isView()) &&
                            t.space == ir::AddressSpace::Local;
        args.push_back(localPointer ? dynamicLocal(arg, t) : arg);
      }
    }
    builder_.CreateBr(start);
    builder_.SetInsertPoint(start);
    return lowerKernel(kernel, args);
  }

  /// The LLVM type of each ABI parameter: ptr<local> ones are i64 offsets.
  static void abiTypes(FunctionLowering &typer, const ir::Function &kernel,
                       std::vector<llvm::Type *> &out) {
    for (const ir::Value *param : kernel.params) {
      size_t first = out.size();
      typer.appendAbiTypes(param->type, out);
      const ir::Type &t = param->type;
      if ((t.isPointer() || t.isView()) && t.space == ir::AddressSpace::Local)
        out[first] = llvm::Type::getInt64Ty(typer.context());
    }
  }

protected:
  Value *sreg32(llvm::Intrinsic::ID x, llvm::Intrinsic::ID y, llvm::Intrinsic::ID z,
                unsigned dim) {
    llvm::Intrinsic::ID id = dim == 0 ? x : dim == 1 ? y : z;
    return builder_.CreateIntrinsic(id, {}, {});
  }
  Value *sreg(llvm::Intrinsic::ID x, llvm::Intrinsic::ID y, llvm::Intrinsic::ID z, unsigned dim) {
    return builder_.CreateZExt(sreg32(x, y, z, dim), builder_.getInt64Ty());
  }

  Expected<Value *> emitWorkItem(const ir::Op &op) override {
    auto d = static_cast<unsigned>(op.intAttr);
    if (d >= dims_)
      return unsupported(op, "dimension " + std::to_string(d) + " but the launch has " +
                                 std::to_string(dims_));
    unsigned api = dims_ - 1 - d;
    namespace I = llvm::Intrinsic;
    auto tid = [&] {
      return sreg(I::nvvm_read_ptx_sreg_tid_x, I::nvvm_read_ptx_sreg_tid_y,
                  I::nvvm_read_ptx_sreg_tid_z, api);
    };
    auto ntid = [&] {
      return sreg(I::nvvm_read_ptx_sreg_ntid_x, I::nvvm_read_ptx_sreg_ntid_y,
                  I::nvvm_read_ptx_sreg_ntid_z, api);
    };
    auto ctaid = [&] {
      return sreg(I::nvvm_read_ptx_sreg_ctaid_x, I::nvvm_read_ptx_sreg_ctaid_y,
                  I::nvvm_read_ptx_sreg_ctaid_z, api);
    };
    auto nctaid = [&] {
      return sreg(I::nvvm_read_ptx_sreg_nctaid_x, I::nvvm_read_ptx_sreg_nctaid_y,
                  I::nvvm_read_ptx_sreg_nctaid_z, api);
    };
    using K = ir::OpKind;
    if (op.kind == K::LocalId) return tid();
    if (op.kind == K::GroupId) return ctaid();
    if (op.kind == K::LocalSize) return ntid();
    if (op.kind == K::NumGroups) return nctaid();
    // CUDA y and z: the grid has at most 65535 blocks and a block at most 1024 threads there, so
    // global ids and sizes fit in 32 bits. Computed in 32 bits and zero-extended, the id's upper
    // half is visibly zero to ptxas, which then drops the high-word multiplies of every 64-bit
    // index product it takes part in (pairwise distance's row index: 103 instead of 108 sm_90
    // instructions per thread, nvcc's kernel has 100). CUDA x allows 2^31 - 1 blocks, so x stays
    // 64-bit (as in nvcc-compiled code that writes `blockIdx.x * (long)blockDim.x + threadIdx.x`)
    // unless the launch's global sizes are known to fit (idsFit32_): pairwise distance n = 16384
    // on the H100, lab: 1.089 -> 1.055 ms (docs/benchmarks.md). x may reach 2^32 - 1 there, so
    // its arithmetic is only no-unsigned-wrap.
    if ((api != 0 || idsFit32_) && (op.kind == K::GlobalId || op.kind == K::GlobalSize)) {
      bool nsw = api != 0;
      auto at = [&](llvm::Intrinsic::ID x, llvm::Intrinsic::ID y, llvm::Intrinsic::ID z) {
        return sreg32(x, y, z, api);
      };
      Value *groups = op.kind == K::GlobalId
                          ? at(I::nvvm_read_ptx_sreg_ctaid_x, I::nvvm_read_ptx_sreg_ctaid_y,
                               I::nvvm_read_ptx_sreg_ctaid_z)
                          : at(I::nvvm_read_ptx_sreg_nctaid_x, I::nvvm_read_ptx_sreg_nctaid_y,
                               I::nvvm_read_ptx_sreg_nctaid_z);
      Value *size = at(I::nvvm_read_ptx_sreg_ntid_x, I::nvvm_read_ptx_sreg_ntid_y,
                       I::nvvm_read_ptx_sreg_ntid_z);
      Value *value = builder_.CreateMul(groups, size, "", /*HasNUW=*/true, nsw);
      if (op.kind == K::GlobalId)
        value = builder_.CreateAdd(value,
                                   at(I::nvvm_read_ptx_sreg_tid_x, I::nvvm_read_ptx_sreg_tid_y,
                                      I::nvvm_read_ptx_sreg_tid_z),
                                   "", /*HasNUW=*/true, nsw);
      return builder_.CreateZExt(value, builder_.getInt64Ty());
    }
    if (op.kind == K::GlobalId) return builder_.CreateAdd(builder_.CreateMul(ctaid(), ntid()), tid());
    if (op.kind == K::GlobalSize) return builder_.CreateMul(nctaid(), ntid());
    return unsupported(op, "not a work-item builtin");
  }

  /// Sub-groups are warps: the work-group's linear thread index (CUDA x fastest, which is
  /// dpk's row-major local linear id since the last dimension is x) split in runs of 32.
  Expected<Value *> emitSubGroup(const ir::Op &op) override {
    namespace I = llvm::Intrinsic;
    using K = ir::OpKind;
    if (op.kind == K::SubGroupSize) return builder_.getInt64(32);
    if (op.kind == K::SubGroupLocalId)
      return builder_.CreateZExt(builder_.CreateIntrinsic(I::nvvm_read_ptx_sreg_laneid, {}, {}),
                                 builder_.getInt64Ty());
    Value *mask = warpMembers();
    if (op.kind == K::SubGroupBallot)
      return builder_.CreateIntrinsic(I::nvvm_vote_ballot_sync, {},
                                      {mask, lookup(op.operands[0])});
    return shuffle(mask, lookup(op.operands[0]), lookup(op.operands[1]));
  }

  /// The lanes of this thread's warp that exist: all 32 but in the last warp of a work-group
  /// whose size is not a multiple of 32 (the *.sync ops need exactly the threads that take part).
  Value *warpMembers() {
    namespace I = llvm::Intrinsic;
    auto reg = [&](llvm::Intrinsic::ID id) { return builder_.CreateIntrinsic(id, {}, {}); };
    Value *nx = reg(I::nvvm_read_ptx_sreg_ntid_x), *ny = reg(I::nvvm_read_ptx_sreg_ntid_y);
    Value *size = builder_.CreateMul(builder_.CreateMul(nx, ny), reg(I::nvvm_read_ptx_sreg_ntid_z));
    Value *linear = builder_.CreateAdd(
        reg(I::nvvm_read_ptx_sreg_tid_x),
        builder_.CreateMul(nx, builder_.CreateAdd(reg(I::nvvm_read_ptx_sreg_tid_y),
                                                  builder_.CreateMul(ny, reg(I::nvvm_read_ptx_sreg_tid_z)))));
    Value *first = builder_.CreateAnd(linear, builder_.getInt32(~31u));
    Value *lanes = builder_.CreateSub(size, first); // >= 1
    Value *partial = builder_.CreateSub(builder_.CreateShl(builder_.getInt32(1), lanes),
                                        builder_.getInt32(1));
    return builder_.CreateSelect(builder_.CreateICmpUGE(lanes, builder_.getInt32(32)),
                                 builder_.getInt32(~0u), partial);
  }

  /// shfl.sync.idx of any integer or float scalar: 32-bit pieces, the lane taken modulo 32.
  Value *shuffle(Value *mask, Value *value, Value *lane64) {
    namespace I = llvm::Intrinsic;
    llvm::Type *type = value->getType();
    llvm::Type *i32 = builder_.getInt32Ty();
    Value *lane = builder_.CreateAnd(builder_.CreateTrunc(lane64, i32), builder_.getInt32(31));
    Value *clamp = builder_.getInt32(31); // c = 0x1f: the whole warp is one segment
    auto word = [&](Value *w) {
      return builder_.CreateIntrinsic(I::nvvm_shfl_sync_idx_i32, {}, {mask, w, lane, clamp});
    };
    unsigned bits = type->getPrimitiveSizeInBits();
    if (type->isFloatTy())
      return builder_.CreateIntrinsic(I::nvvm_shfl_sync_idx_f32, {}, {mask, value, lane, clamp});
    if (bits == 64) {
      llvm::Type *i64 = builder_.getInt64Ty();
      Value *v = type->isDoubleTy() ? builder_.CreateBitCast(value, i64) : value;
      Value *lo = word(builder_.CreateTrunc(v, i32));
      Value *hi = word(builder_.CreateTrunc(builder_.CreateLShr(v, 32), i32));
      Value *joined = builder_.CreateOr(builder_.CreateZExt(lo, i64),
                                        builder_.CreateShl(builder_.CreateZExt(hi, i64), 32));
      return type->isDoubleTy() ? builder_.CreateBitCast(joined, type) : joined;
    }
    if (bits < 32) return builder_.CreateTrunc(word(builder_.CreateZExt(value, i32)), type);
    return word(value);
  }

  /// Loops that index private arrays over a few constant trips are unrolled whole (their
  /// arrays become registers; PrivateArrayLoops.h). H100, the radix sort's sub-group pass
  /// (16 rounds, keys held in a private array): rolled, every round's key load waited in local
  /// memory before the next was issued.
  void noteForLoopLatch(llvm::BranchInst *backEdge, const ir::Op &forOp) override {
    if (!indexesPrivateArrayInFewTrips(forOp)) return noteLoopLatch(backEdge);
    setLoopHints(backEdge, {loopHint(context(), "llvm.loop.unroll.full")});
  }

  void emitFence(llvm::AtomicOrdering, ir::MemoryScope scope) override {
    llvm::Intrinsic::ID id = llvm::Intrinsic::nvvm_membar_gl;
    switch (scope) {
    case ir::MemoryScope::WorkItem: case ir::MemoryScope::SubGroup:
    case ir::MemoryScope::WorkGroup:
      id = llvm::Intrinsic::nvvm_membar_cta;
      break;
    case ir::MemoryScope::Device: id = llvm::Intrinsic::nvvm_membar_gl; break;
    case ir::MemoryScope::System: id = llvm::Intrinsic::nvvm_membar_sys; break;
    }
    builder_.CreateIntrinsic(id, {}, {});
  }

  Error emitBarrier(const ir::Op &) override {
    builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
    return Error::success();
  }

private:
  Value *dynamicLocal(Value *offset, const ir::Type &t) {
    llvm::Module &m = llvmModule();
    llvm::GlobalVariable *base = m.getGlobalVariable("dpk_dynamic_local");
    if (!base) {
      auto *arrayTy = llvm::ArrayType::get(builder_.getInt8Ty(), 0);
      base = new llvm::GlobalVariable(m, arrayTy, false, llvm::GlobalValue::ExternalLinkage,
                                      nullptr, "dpk_dynamic_local", nullptr,
                                      llvm::GlobalValue::NotThreadLocal, 3);
      base->setAlignment(llvm::Align(16));
    }
    Value *bytes = builder_.CreateInBoundsGEP(base->getValueType(), base,
                                              {builder_.getInt64(0), offset});
    return builder_.CreatePointerCast(bytes, pointerType(t));
  }

  unsigned dims_;
  bool idsFit32_ = false;
};

void annotate(llvm::Module &module, llvm::Function *fn, const char *key, uint64_t value) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Metadata *ops[] = {
      llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx, key),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))};
  module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, ops));
}

/// Marks fn a kernel. Where the work-group shape is known (NdRange builds) it becomes
/// `.maxntid`: ptxas then never allocates more registers than a group of that size can have
/// (without it, a kernel built with 100 registers fails to launch in groups of 1024). With it,
/// min_groups_per_cu(N) becomes `.minnctapersm N`, so ptxas keeps registers low enough for N
/// groups on one SM (the sort's pass: 96 registers, 2 groups of 256; docs/compiler.md).
void annotateKernel(llvm::Module &module, llvm::Function *fn, const ir::Function &kernel,
                    const CompileOptions &options, unsigned dims) {
  annotate(module, fn, "kernel", 1);
  const auto &local = options.localSize;
  if (!local[0] && !local[1] && !local[2]) return;
  // dpk dimension d is CUDA dimension dims-1-d (x is the last, fastest-varying one)
  static const char *const keys[] = {"maxntidx", "maxntidy", "maxntidz"};
  for (unsigned d = 0; d < 3; ++d) {
    uint64_t size = d < dims ? local[dims - 1 - d] : 1;
    annotate(module, fn, keys[d], size ? size : 1);
  }
  if (kernel.minGroupsPerComputeUnit)
    annotate(module, fn, "minctasm", kernel.minGroupsPerComputeUnit);
}

Error linkLibdevice(llvm::Module &module, const std::string &path) {
  bool needed = false;
  for (const llvm::Function &fn : module)
    needed = needed || (fn.isDeclaration() && fn.getName().startswith("__nv_"));
  if (!needed) return Error::success();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) return Error(DPK_ERROR_COMPILE, "cannot read libdevice at " + path);
  auto library = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
  if (!library)
    return Error(DPK_ERROR_COMPILE,
                 "cannot parse libdevice: " + llvm::toString(library.takeError()));
  (*library)->setTargetTriple(module.getTargetTriple());
  (*library)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*library), llvm::Linker::LinkOnlyNeeded))
    return Error(DPK_ERROR_COMPILE, "cannot link libdevice");
  return Error::success();
}

/// libdevice asks `__nvvm_reflect("__CUDA_PREC_SQRT")` whether f32 square roots must be IEEE
/// round-to-nearest (sqrt.rn.f32) or may be approximate (sqrt.approx.f32, not correctly rounded):
/// __nv_sqrtf, __nv_hypotf, __nv_normf, __nv_norm3df, __nv_norm4df and __nv_jnf. LLVM 15's
/// NVVMReflect only knows __CUDA_FTZ and __CUDA_ARCH and answers 0 for every other name, which
/// silently made dpk's f32 sqrt approximate on CUDA. dpk's math is correctly rounded where IEEE
/// says so (the host and OpenCL targets are), and nvcc's default is -prec-sqrt=true, so the query
/// is answered 1 here, before NVVMReflect sees it. (f32 division is an `fdiv`, which NVPTX
/// selects as div.rn.f32 unless the TargetMachine allows unsafe math; it does not.)
void resolvePreciseSqrtReflect(llvm::Module &module) {
  llvm::Function *reflect = module.getFunction("__nvvm_reflect");
  if (!reflect) return;
  std::vector<llvm::CallInst *> answered;
  for (llvm::User *user : reflect->users()) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(user);
    if (!call || call->getCalledFunction() != reflect || call->arg_size() != 1) continue;
    llvm::StringRef name;
    if (!llvm::getConstantStringInfo(call->getArgOperand(0), name)) continue;
    if (name == "__CUDA_PREC_SQRT") answered.push_back(call);
  }
  for (llvm::CallInst *call : answered) {
    call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), 1));
    call->eraseFromParent();
  }
}

} // namespace


/// Multiply-adds may fuse, as CUDA C++ compiles by default (nvcc --fmad=true): one rounding
/// instead of two, one instruction instead of two.
static llvm::TargetOptions fusedMultiplyAddOptions() {
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return options;
}

Expected<std::vector<uint8_t>> compilePtx(const ir::Module &module, const CompileOptions &options,
                                          Output output) {
  initializeLlvmTargets();
  std::string arch = options.targetId.empty() ? "sm_70" : options.targetId;
  unsigned sm = smNumber(arch);
  auto badArch = [&] {
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "ptx: bad CUDA architecture '" + arch +
                     "'; give sm_NN for a compute capability LLVM knows (sm_30 .. sm_86; "
                     "newer ones, such as sm_90, get sm_86 code)");
  };
  if (sm == 0) return badArch();
  // LLVM 15 knows up to sm_86; PTX for it is JIT-compiled by newer drivers.
  if (sm > 86) arch = "sm_86";
  std::string message;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(kTriple, message);
  if (!target) return Error(DPK_ERROR_COMPILE, "LLVM has no NVPTX target: " + message);
  if (!isKnownProcessor(*target, kTriple, arch)) return badArch();
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      kTriple, arch, "+ptx75", fusedMultiplyAddOptions(), llvm::None, llvm::None,
      llvm::CodeGenOpt::Aggressive));
  if (!machine) return Error(DPK_ERROR_COMPILE, "cannot create an NVPTX target for " + arch);

  llvm::LLVMContext context;
  auto llvmModule = std::make_unique<llvm::Module>(dumpName(module), context);
  llvmModule->setTargetTriple(kTriple);
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));

  std::string libdevice = findLibdevice();
  TargetInfo info;
  info.addressSpaces = {1, 3, 0, 1, 0}; // Global, Local, Private, Constant, Generic
  info.math = MathStyle::Libdevice;
  info.libdeviceAvailable = !libdevice.empty();
  info.nativeFloatAtomicAdd = true;
  info.nativeFloatAtomicOther = false;
  info.fencedAtomicLoadStore = true;
  unsigned dims = kernelDims(module, options);

  for (const auto &kernel : module.functions) {
    if (!kernel->isKernel) continue;
    auto *placeholderType = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
    auto *placeholder = llvm::Function::Create(placeholderType, llvm::Function::ExternalLinkage,
                                               "", *llvmModule);
    std::vector<llvm::Type *> params;
    {
      PtxKernelLowering typer(module, info, placeholder, dims);
      PtxKernelLowering::abiTypes(typer, *kernel, params);
    }
    placeholder->eraseFromParent();
    auto *fnType = llvm::FunctionType::get(llvm::Type::getVoidTy(context), params, false);
    auto *fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, kernel->name,
                                      *llvmModule);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    annotateKernel(*llvmModule, fn, *kernel, options, dims);
    PtxKernelLowering lowering(module, info, fn, dims);
    lowering.setUnitInnerStrideViews(options.unitInnerStrideViews);
    lowering.setIdsFit32(options.idsFit32);
    if (Error e = lowering.build(*kernel)) return e;
  }
  if (Error e = verifyLlvmModule(*llvmModule, "PTX lowering")) return e;
  // LLVM IR inputs now; symbols they leave undefined come from .ptx/.cu inputs after codegen.
  if (Error e = linkLlvmInputs(*llvmModule, module, options, true)) return e;
  std::string name = dumpName(module);
  if (!options.dumpDirectory.empty()) dumpStage(options, name, "ptx.ll", printLlvmModule(*llvmModule));

  if (info.libdeviceAvailable) {
    if (Error e = linkLibdevice(*llvmModule, libdevice)) return e;
    resolvePreciseSqrtReflect(*llvmModule);
    // Only the kernels stay visible; everything linked from libdevice becomes internal.
    std::vector<std::string> kernels;
    for (const auto &kernel : module.functions)
      if (kernel->isKernel) kernels.push_back(kernel->name);
    for (llvm::Function &fn : *llvmModule) {
      if (fn.isDeclaration()) continue;
      if (std::find(kernels.begin(), kernels.end(), fn.getName().str()) != kernels.end()) continue;
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  optimizeModule(*llvmModule, machine.get(), options.optLevel, false, true);
  if (Error e = verifyLlvmModule(*llvmModule, "optimization")) return e;
  if (!options.dumpDirectory.empty())
    dumpStage(options, name, "ptx.opt.ll", printLlvmModule(*llvmModule));
  if (output == Output::LlvmIR) {
    std::string text = printLlvmModule(*llvmModule);
    return std::vector<uint8_t>(text.begin(), text.end());
  }
  Expected<std::vector<uint8_t>> ptx = emitMachineCode(*llvmModule, *machine, true, false);
  if (!ptx) return ptx.takeError();
  if (!options.linkInputs.empty()) {
    Expected<std::string> linked =
        linkPtxInputs(module, options, std::string(ptx->begin(), ptx->end()));
    if (!linked) return linked.takeError();
    ptx->assign(linked->begin(), linked->end());
  }
  dumpStage(options, name, "ptx", std::string(ptx->begin(), ptx->end()));
  ptx->push_back(0); // DPK_FORMAT_PTX is NUL-terminated text
  return ptx;
}

} // namespace dpk::compiler

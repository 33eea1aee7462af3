// Lowering.h - the shared walk from dpk IR to LLVM IR, parameterized by target hooks.
//
// Every target (host, SPIR-V, PTX) lowers a kernel with a subclass of FunctionLowering that
// supplies what differs: work-item builtins, barriers and fences through virtual hooks, and
// through TargetInfo address-space numbers, where local memory lives, math functions and float
// atomics. The walk itself (scalars, memory, views, atomics, structured control flow, local
// memory) lives in LowerToLLVM.cpp and is the same for all of them.
//
// Device functions are inlined during lowering: a `call` lowers the callee's body in place,
// with its parameters bound to the argument values. GPU targets inline anyway, the host needs
// work-item state and barrier regions inside callees, and it leaves one ABI (the kernel's).
// The verifier forbids recursion, so inlining terminates.
#ifndef DPK_CORE_COMPILER_LOWERING_H
#define DPK_CORE_COMPILER_LOWERING_H

#include "compiler/Compiler.h"
#include "ir/IR.h"
#include "support/Error.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <array>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace dpk::compiler {

/// How a target spells math functions that have no LLVM instruction.
enum class MathStyle {
  Host,      // LLVM intrinsics where they exist, else libm (sinf, ...) marked readnone
  OpenCL,    // OpenCL C builtins, Itanium-mangled (_Z3sinf), for SPIR-V
  Libdevice  // NVIDIA libdevice (__nv_sinf), linked in after lowering, for PTX
};

/// What differs between targets that the shared walk needs to know up front.
struct TargetInfo {
  /// LLVM address space of each ir::AddressSpace (Global, Local, Private, Constant, Generic).
  std::array<unsigned, 5> addressSpaces{0, 0, 0, 0, 0};
  MathStyle math = MathStyle::Host;
  /// atomicrmw fadd is legal; otherwise float add/sub become compare-exchange loops.
  bool nativeFloatAtomicAdd = true;
  /// atomicrmw fsub/fmin/fmax are legal; otherwise compare-exchange loops.
  bool nativeFloatAtomicOther = true;
  /// MathStyle::Libdevice only: libdevice will be linked, so __nv_* functions may be called.
  bool libdeviceAvailable = false;
  /// Atomic loads/stores stronger than relaxed become relaxed ones plus fences (NVPTX in
  /// LLVM 15 selects only relaxed atomic loads and stores).
  bool fencedAtomicLoadStore = false;
  /// Atomic loads/stores of floats go through the same-sized integer (OpenCL has no atomic
  /// load/store builtins for double, which SPIR-V consumers map OpAtomicStore to).
  bool floatAtomicLoadStoreAsInteger = false;
  /// Builtin calls use the spir_func calling convention (SPIR-V).
  bool spirCallingConvention = false;
  /// View addresses put the leading dimensions' offset into a byte GEP and only the last
  /// dimension's index in an element GEP (host): LLVM's loop vectorizer then versions loops
  /// on `last stride == 1` only, never on a leading stride (pairwise distance's x[j, k] has
  /// stride d in j; a `d == 1` version is never taken and the scalar fallback runs).
  bool splitViewAddress = false;
  /// local_alloc arrays live in the lowered function's frame (host: a work-group function runs
  /// one whole group, so its stack is per-group storage); otherwise each is a module global in
  /// the local address space, of which the GPU gives every work-group its own copy.
  bool localAllocInFrame = false;
  /// Alignment of local_alloc arrays in bytes.
  unsigned localAllocAlign = 16;
};

/// Launch dimensionality the kernels of `module` are compiled for: options.dims, or
/// ir::dimensionsUsed(module) (at least 1), as the OpenCL C emitter does.
unsigned kernelDims(const ir::Module &module, const CompileOptions &options);

/// One IR value after lowering. Views carry their expanded pieces.
struct LoweredValue {
  llvm::Value *value = nullptr;               // scalar or pointer
  llvm::Value *viewPtr = nullptr;             // views only
  std::array<llvm::Value *, 3> shape{};       // views only
  std::array<llvm::Value *, 3> strides{};     // views only
};

/// Lowers one IR function body into an LLVM function. Subclasses provide the target hooks.
class FunctionLowering {
public:
  FunctionLowering(const ir::Module &module, const TargetInfo &target, llvm::Function *function);
  virtual ~FunctionLowering() = default;

  /// Binds the kernel's IR parameters to its lowered ABI values (Compiler.h's Kernel ABI:
  /// views come as pointer, shape..., strides...) and lowers its body at the insertion point.
  /// `start` is where the body begins; the entry block (allocas) is created before it.
  Error lowerKernel(const ir::Function &kernel, llvm::ArrayRef<llvm::Value *> abiValues);
  /// CompileOptions::unitInnerStrideViews: lowerKernel() binds the innermost stride of those
  /// view parameters to the constant 1 instead of their ABI value.
  void setUnitInnerStrideViews(uint32_t mask) { unitInnerStrideViews_ = mask; }

  llvm::LLVMContext &context() const { return function_->getContext(); }
  llvm::Module &llvmModule() const { return *function_->getParent(); }

  // ---- types ----------------------------------------------------------------------------
  /// Register type of a scalar (i1 for bool, half for f16).
  llvm::Type *scalarType(ir::ScalarKind kind) const;
  /// In-memory type of a scalar (i8 for bool).
  llvm::Type *memoryType(ir::ScalarKind kind) const;
  unsigned addressSpace(ir::AddressSpace space) const {
    return target_.addressSpaces[static_cast<unsigned>(space)];
  }
  llvm::PointerType *pointerType(const ir::Type &type) const;
  /// Register type of a scalar or pointer value.
  llvm::Type *valueType(const ir::Type &type) const;
  /// The LLVM type of an external function's declaration: register types of its parameters
  /// and result (bool is i1, f16 half), the type its linked definition must have.
  llvm::FunctionType *externalFunctionType(const ir::Function &callee) const;
  /// LLVM parameter types of one IR kernel parameter after view expansion (Compiler.h ABI);
  /// bool scalars travel as i8.
  void appendAbiTypes(const ir::Type &type, std::vector<llvm::Type *> &out) const;

protected:
  // ---- target hooks -------------------------------------------------------------------------
  virtual Expected<llvm::Value *> emitWorkItem(const ir::Op &op) = 0;
  virtual Error emitBarrier(const ir::Op &op) = 0;
  /// A memory fence (order is never relaxed); the default is an LLVM fence.
  virtual void emitFence(llvm::AtomicOrdering order, ir::MemoryScope scope) {
    builder_.CreateFence(order);
  }
  /// sub_group_local_id, sub_group_size, sub_group_ballot, sub_group_shuffle. The default
  /// (SubGroupLowering.cpp) is sub-groups of one work-item: lane 0, size 1, the ballot of the
  /// work-item's own predicate, the shuffle of its own value. PTX overrides it with warps.
  virtual Expected<llvm::Value *> emitSubGroup(const ir::Op &op);
  /// A per-work-item array; the default is an alloca in the entry block.
  virtual Expected<llvm::Value *> emitPrivateAlloc(const ir::Op &op);
  /// `return` of the kernel itself (not of an inlined callee).
  virtual Error emitKernelReturn(const ir::Op &op);
  /// break/continue to loops[loopIndex].
  virtual Error emitLoopExit(const ir::Op &op, size_t loopIndex, bool isContinue);
  /// Lowers one block; the host overrides it to split at barriers.
  virtual Error emitBlock(const ir::Block &block);
  /// Value of an IR value at the current insertion point.
  virtual llvm::Value *lookup(const ir::Value *value);
  /// Records the lowered value of an IR value defined at the current insertion point.
  virtual LoweredValue &define(const ir::Value *value, llvm::Value *lowered);
  /// Called for every memory access the walk emits (loads, stores, atomics) so the host can
  /// tag work-item-parallel accesses. `pointer` is the IR pointer or view accessed.
  virtual void noteMemoryAccess(llvm::Instruction *inst, const ir::Value *pointer, bool atomic) {}
  /// Called with the back edge of each `for` and `while` the IR spells (targets add loop hints).
  virtual void noteLoopLatch(llvm::BranchInst *backEdge) {}
  /// Called with the back edge of each `for` instead of noteLoopLatch (which the default calls).
  virtual void noteForLoopLatch(llvm::BranchInst *backEdge, const ir::Op &forOp) {
    noteLoopLatch(backEdge);
  }
  /// Called once the kernel body is lowered; the default returns if the body falls through.
  virtual Error finishKernel();
  /// Lowered view pieces of a view value.
  virtual const LoweredValue &lookupView(const ir::Value *value);
  /// Where an inlined callee's `return v` puts v (the default: one alloca), how it stores it,
  /// and how the call's result is read back. The host keeps one slot per work-item for calls
  /// run once per group (callees with barriers).
  virtual llvm::AllocaInst *createCallResultSlot(const ir::Op &call, const ir::Function &callee);
  virtual void storeCallResult(llvm::AllocaInst *slot, const ir::Value *value);
  virtual void defineCallResult(const ir::Op &call, llvm::AllocaInst *slot);

  // ---- the shared walk --------------------------------------------------------------------
  Error emitOp(const ir::Op &op);
  Error emitIf(const ir::Op &op);
  Error emitFor(const ir::Op &op);
  Error emitWhile(const ir::Op &op);
  Error emitCall(const ir::Op &op);
  /// A call of an external function (ir::Function::isExternal): a call of its declaration.
  Error emitExternalCall(const ir::Op &op, const ir::Function &callee);
  Error emitMath(const ir::Op &op);
  Error emitAtomic(const ir::Op &op);
  /// A per-work-group array of op.intAttr elements (result ptr<local, T>), placed as
  /// TargetInfo::localAllocInFrame says.
  llvm::Value *emitLocalAlloc(const ir::Op &op);
  llvm::Value *emitBinary(const ir::Op &op);
  llvm::Value *emitCast(llvm::Value *v, const ir::Type &from, const ir::Type &to);
  llvm::Value *elementAddress(const ir::Value *pointer, llvm::Value *index);
  llvm::Value *viewElementAddress(const ir::Op &op);
  llvm::Value *loadElement(llvm::Value *address, const ir::Value *pointer, ir::ScalarKind kind,
                          unsigned align = 0);
  void storeElement(llvm::Value *address, const ir::Value *pointer, ir::ScalarKind kind,
                    llvm::Value *value, bool nontemporal = false, unsigned align = 0);
  llvm::AllocaInst *entryAlloca(llvm::Type *type, llvm::Value *count, const llvm::Twine &name,
                                unsigned align = 0);
  /// Starts a new block for code that follows a terminator (unreachable, deleted by LLVM).
  void startDeadBlock();
  bool blockTerminated() const { return builder_.GetInsertBlock()->getTerminator() != nullptr; }
  Error unsupported(const ir::Op &op, const std::string &why) const;
  /// Binds an IR value to an already-lowered record (inlined callee parameters).
  void alias(const ir::Value *value, LoweredValue *record) { values_[value] = record; }
  LoweredValue *record(const ir::Value *value) const;

  // Math lowering per style (MathLowering.cpp).
  Expected<llvm::Value *> emitMathHost(const ir::Op &op, llvm::ArrayRef<llvm::Value *> args);
  Expected<llvm::Value *> emitMathOpenCL(const ir::Op &op, llvm::ArrayRef<llvm::Value *> args);
  Expected<llvm::Value *> emitMathLibdevice(const ir::Op &op,
                                            llvm::ArrayRef<llvm::Value *> args);
  llvm::Value *callPure(const std::string &name, llvm::Type *resultType,
                        llvm::ArrayRef<llvm::Value *> args, bool readNone = true);

  struct LoopTarget {
    llvm::BasicBlock *breakTarget;
    llvm::BasicBlock *continueTarget;
    llvm::BasicBlock *bodyTarget; // while loops: where `condition true` goes
  };
  struct CallFrame {
    llvm::BasicBlock *exit;
    llvm::AllocaInst *resultSlot; // null for void callees
    size_t loopDepth;             // loops_.size() when the callee started
    const ir::Function *callee;
  };

  const ir::Module &module_;
  const TargetInfo &target_;
  llvm::Function *function_;
  llvm::IRBuilder<> builder_;
  llvm::BasicBlock *entry_ = nullptr; // allocas go here
  const ir::Function *current_ = nullptr; // the IR function whose ops are being lowered
  std::vector<LoopTarget> loops_;
  std::vector<CallFrame> frames_;

private:
  uint32_t unitInnerStrideViews_ = 0;
  std::deque<LoweredValue> storage_;
  std::unordered_map<const ir::Value *, LoweredValue *> values_;
};

/// Name of a math function for error messages ("math.sin").
std::string mathDescription(ir::MathFn fn);
/// One loop hint (`!{!"llvm.loop.name"}`, or with an i32 value or a metadata operand).
llvm::MDNode *loopHint(llvm::LLVMContext &ctx, const char *name, llvm::Metadata *operand = nullptr);
llvm::MDNode *loopHint(llvm::LLVMContext &ctx, const char *name, uint32_t value);
/// Attaches a loop ID (distinct, its first operand itself) holding `hints` to a back edge.
void setLoopHints(llvm::BranchInst *backEdge, std::vector<llvm::Metadata *> hints);
/// The LLVM ordering of a dpk memory order (AtomicLowering.cpp).
llvm::AtomicOrdering toOrdering(ir::MemoryOrder order);

} // namespace dpk::compiler

#endif // DPK_CORE_COMPILER_LOWERING_H

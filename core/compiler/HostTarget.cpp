// HostTarget.cpp - kernels as host work-group functions, split at barriers into work-item loops.
//
// For each kernel K this emits `void dpk_wg_K(const dpk_host_work_group_t *, void *const *args)`
// that runs every work-item of one work-group. Which statements run once per group (those that
// reach a barrier, split loops, stores of group variables) and which private variables hold one
// value per group is decided by ir/OncePerGroup.h; this file emits LLVM IR that follows it:
//  - A run of statements between once-per-group statements becomes one nest of work-item loops
//    (dpk's last dimension innermost, constant trip counts when CompileOptions::localSize is
//    set). The innermost loop carries llvm.loop.parallel_accesses and its memory accesses one
//    access group, so LLVM vectorizes across work-items without alias checks.
//  - A once-per-group statement runs outside any work-item loop, with work-item 0's conditions
//    and bounds. A barrier itself just ends the current run: the previous loop has finished
//    every work-item before the next one starts.
//  - Only values that cross from one work-item loop into another are kept per work-item: the
//    first such use creates an array indexed by the linear local id and a store after the
//    definition. Uniform pure ops (constants, sizes, view shapes, arithmetic on them) are
//    computed once per group instead. In split kernels, private arrays (alloca) are
//    per-work-item slices of one array.
//  - Work-item ids and integer arithmetic on them and on uniform values are recomputed in
//    each work-item loop that uses them rather than stored, so addresses stay affine in the
//    local id and loads stay contiguous.
//  - Group variables (a reduction's stride) get one slot per group; their stores run once per
//    group and their loads are computed once per group.
//  - break/continue/return inside a work-item loop that leave a once-per-group loop (or the
//    kernel) record their target in a per-group slot and move to the next work-item; after the
//    loop nest the group jumps there.
//  - A call of a function with barriers runs once per group but returns one value per
//    work-item: its result slot has an element per work-item.
//  - Loops that hold work-item loops (outer work-item dimensions, once-per-group loops) are
//    not runtime-unrolled: that would copy the vectorized loop inside whole.
//  - On AMD Zen, work-item loops are neither interleaved nor runtime-unrolled, and those with
//    view loads strided by a leading stride vectorize at 256 bits (their gathers become
//    lane-by-lane loads, ScalarizeGathers.cpp).
#include "compiler/Lowering.h"
#include "compiler/ScalarizeGathers.h"
#include "compiler/Targets.h"
#include "ir/OncePerGroup.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

namespace dpk::compiler {

using llvm::Value;

namespace {

constexpr int kPendingReturn = 1;

/// Integer ops on work-item ids and uniform values that are cheaper to recompute in each
/// work-item loop than to keep per work-item.
bool isRematerializable(const ir::Op &op) {
  using K = ir::OpKind;
  if (op.kind == K::GlobalId || op.kind == K::LocalId) return true;
  bool integer = op.result && op.result->type.isInteger();
  if (op.kind == K::Cast) return integer && op.operands[0]->type.isInteger();
  return integer && (op.kind == K::Add || op.kind == K::Sub || op.kind == K::Mul || op.kind == K::Shl);
}

class HostKernelLowering : public FunctionLowering {
public:
  HostKernelLowering(const ir::Module &module, const TargetInfo &target, llvm::Function *function,
                     const CompileOptions &options, unsigned dims, const ir::Function &kernel,
                     bool slowGathers)
      : FunctionLowering(module, target, function), options_(options), dims_(dims),
        groups_(ir::analyzeOncePerGroup(kernel, module)), slowGathers_(slowGathers) {}

  Error build(const ir::Function &kernel);

protected:
  Expected<Value *> emitWorkItem(const ir::Op &op) override;
  Error emitBarrier(const ir::Op &op) override;
  Expected<Value *> emitPrivateAlloc(const ir::Op &op) override;
  Error emitKernelReturn(const ir::Op &op) override;
  Error emitLoopExit(const ir::Op &op, size_t loopIndex, bool isContinue) override;
  Error emitBlock(const ir::Block &block) override;
  Value *lookup(const ir::Value *value) override;
  LoweredValue &define(const ir::Value *value, Value *lowered) override;
  void noteMemoryAccess(llvm::Instruction *inst, const ir::Value *pointer, bool atomic) override;
  Error finishKernel() override;
  llvm::AllocaInst *createCallResultSlot(const ir::Op &call, const ir::Function &callee) override;
  void storeCallResult(llvm::AllocaInst *slot, const ir::Value *value) override;
  void defineCallResult(const ir::Op &call, llvm::AllocaInst *slot) override;

private:
  struct LoopLevel {
    unsigned dim;
    llvm::PHINode *id;
    llvm::BasicBlock *body;
    llvm::BasicBlock *latch;
    llvm::BasicBlock *exit;
  };

  /// Where a lowered value lives relative to the work-item loops.
  struct ItemStorage {
    int region = -1; // the work-item loop that defined it (-1: group context)
    llvm::AllocaInst *perItemArray = nullptr; // a copy per work-item, for uses in other loops
    // An alloca of a split kernel: the work-item's slice of privateItems, privateCount long.
    llvm::AllocaInst *privateItems = nullptr;
    uint64_t privateCount = 0;
  };

  ItemStorage &storageOf(const LoweredValue *record) { return itemStorage_[record]; }
  Value *rematerialize(const ir::Value *value);
  bool isGroupValue(const ir::Value *value);
  Error flushRun(const std::vector<const ir::Op *> &run);
  void openItemLoops();
  void closeItemLoops();
  void setPending(int code, llvm::BasicBlock *target);
  void noteStridedAccess(llvm::Instruction *inst);
  Value *loadGroupField(unsigned index, const char *name);
  void noteLoopLatch(llvm::BranchInst *backEdge) override;

  const CompileOptions &options_;
  unsigned dims_;
  // What runs once per group; groups_.split: the kernel is split into several work-item loops
  // (barriers or split loops), so private arrays are kept per work-item.
  const ir::OncePerGroupInfo groups_;
  // AMD Zen: gathers become lane-by-lane loads (ScalarizeGathers.cpp), best at 256 bits and
  // without interleaving. stridedBytes_: widest element of the current work-item loop loaded
  // through a view whose leading index depends on the innermost local id (0: none).
  bool slowGathers_ = false;
  unsigned stridedBytes_ = 0;

  Value *group_ = nullptr;
  std::array<Value *, 3> groupId_{}, localSize_{}, globalSize_{}, numGroups_{};
  Value *itemCount_ = nullptr;
  llvm::BasicBlock *exit_ = nullptr;
  std::unordered_map<const LoweredValue *, ItemStorage> itemStorage_;

  // groupContext_: outside any work-item loop; otherwise inside the nest being emitted, which
  // region_ (>= 0) numbers.
  bool groupContext_ = false;
  int region_ = -1;
  int nextRegion_ = 0;
  std::vector<LoopLevel> levels_;
  std::array<Value *, 3> localId_{};
  Value *linearId_ = nullptr;
  llvm::MDNode *accessGroup_ = nullptr;
  // loops_[i] with i < itemLoopsDepth_ enclose the work-item loop nest: they run once per group.
  size_t itemLoopsDepth_ = 0;
  std::vector<Value *> regionLinearId_;
  std::vector<llvm::MDNode *> regionAccessGroup_;
  llvm::Instruction *rematAnchor_ = nullptr; // recomputed values go before it
  std::unordered_map<const ir::Value *, Value *> remat_; // of the current work-item loop

  llvm::AllocaInst *pendingSlot_ = nullptr;
  std::vector<std::pair<int, llvm::BasicBlock *>> pendingTargets_;
  // Result slots of calls run once per group (callees with barriers): one element per item.
  std::unordered_set<const llvm::AllocaInst *> perItemResults_;
  llvm::AllocaInst *lastPrivateBase_ = nullptr;
  uint64_t lastPrivateCount_ = 0;
};

// ---- prologue -----------------------------------------------------------------------------

Value *HostKernelLowering::loadGroupField(unsigned index, const char *name) {
  // dpk_host_work_group_t viewed as i64s: [0] dims (u32 + padding), [1..3] global_size,
  // [4..6] local_size, [7..9] group_id, [10..12] num_groups.
  Value *address = builder_.CreateConstInBoundsGEP1_64(builder_.getInt64Ty(), group_, index);
  llvm::LoadInst *load = builder_.CreateAlignedLoad(builder_.getInt64Ty(), address,
                                                    llvm::Align(8), name);
  load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(context(), {}));
  return load;
}

Error HostKernelLowering::build(const ir::Function &kernel) {
  llvm::LLVMContext &ctx = context();
  entry_ = llvm::BasicBlock::Create(ctx, "entry", function_);
  llvm::BasicBlock *start = llvm::BasicBlock::Create(ctx, "start", function_);
  exit_ = llvm::BasicBlock::Create(ctx, "exit", function_);
  builder_.SetInsertPoint(exit_);
  builder_.CreateRetVoid();
  builder_.SetInsertPoint(entry_);

  group_ = function_->getArg(0);
  Value *args = function_->getArg(1);
  Value *dims = builder_.CreateAlignedLoad(builder_.getInt32Ty(), group_, llvm::Align(8), "dims");
  bool specialized = options_.localSize[0] || options_.localSize[1] || options_.localSize[2];
  for (unsigned d = 0; d < 3; ++d) {
    globalSize_[d] = loadGroupField(1 + d, "global_size");
    groupId_[d] = loadGroupField(7 + d, "group_id");
    numGroups_[d] = loadGroupField(10 + d, "num_groups");
    uint64_t fixed = options_.localSize[d];
    if (specialized) {
      localSize_[d] = builder_.getInt64(fixed == 0 ? 1 : fixed);
      continue;
    }
    // A launch of known dimensionality has local size 1 beyond it (the host backend sets it):
    // a constant lets LLVM drop those loops and keeps the linear id a plain local id, which
    // the vectorizer would otherwise version on `local_size[d] == 1`.
    if (options_.dims != 0 && d >= dims_) {
      localSize_[d] = builder_.getInt64(1);
      continue;
    }
    Value *size = loadGroupField(4 + d, "local_size");
    localSize_[d] = builder_.CreateSelect(builder_.CreateICmpUGT(dims, builder_.getInt32(d)),
                                          size, builder_.getInt64(1));
  }
  itemCount_ = builder_.CreateMul(builder_.CreateMul(localSize_[0], localSize_[1]), localSize_[2],
                                  "items");

  // Arguments: args[i] points to the pointer or scalar value.
  std::vector<llvm::Type *> abiTypes;
  for (const ir::Value *param : kernel.params) appendAbiTypes(param->type, abiTypes);
  std::vector<Value *> abiValues;
  llvm::Type *ptrTy = llvm::PointerType::get(ctx, 0);
  for (size_t i = 0; i < abiTypes.size(); ++i) {
    Value *slot = builder_.CreateConstInBoundsGEP1_64(ptrTy, args, i);
    Value *valuePtr = builder_.CreateAlignedLoad(ptrTy, slot, llvm::Align(8));
    llvm::Type *t = abiTypes[i];
    unsigned align =
        t->isPointerTy() ? 8u : std::max(1u, static_cast<unsigned>(t->getPrimitiveSizeInBits() / 8));
    abiValues.push_back(builder_.CreateAlignedLoad(t, valuePtr, llvm::Align(align)));
  }
  builder_.CreateBr(start);
  builder_.SetInsertPoint(start);
  groupContext_ = true;
  return lowerKernel(kernel, abiValues);
}

Error HostKernelLowering::finishKernel() {
  if (!blockTerminated()) builder_.CreateBr(exit_);
  return Error::success();
}

// ---- regions ------------------------------------------------------------------------------

bool HostKernelLowering::isGroupValue(const ir::Value *value) {
  LoweredValue *r = record(value);
  if (!r) return false;
  const ItemStorage &storage = storageOf(r);
  return storage.region < 0 && !storage.privateItems;
}

Error HostKernelLowering::emitBlock(const ir::Block &block) {
  if (!groupContext_) return FunctionLowering::emitBlock(block);
  std::vector<const ir::Op *> run;
  for (const auto &op : block.ops) {
    if (!groups_.isGroupStatement(*op)) {
      run.push_back(op.get());
      continue;
    }
    if (Error e = flushRun(run)) return e;
    run.clear();
    if (Error e = emitOp(*op)) return e;
    if (ir::opCategory(op->kind) == ir::OpCategory::Terminator) return Error::success();
  }
  return flushRun(run);
}

Error HostKernelLowering::flushRun(const std::vector<const ir::Op *> &run) {
  std::vector<const ir::Op *> rest;
  for (const ir::Op *op : run) {
    bool uniform = ir::mayHoistToGroup(*op) ||
                   (op->kind == ir::OpKind::Load && groups_.isGroupVariableAccess(*op));
    for (const ir::Value *operand : op->operands) uniform = uniform && isGroupValue(operand);
    if (!uniform) {
      rest.push_back(op);
      continue;
    }
    if (Error e = emitOp(*op)) return e;
  }
  if (rest.empty()) return Error::success();

  openItemLoops();
  for (const ir::Op *op : rest) {
    if (Error e = emitOp(*op)) return e;
    if (ir::opCategory(op->kind) == ir::OpCategory::Terminator) break;
  }
  closeItemLoops();
  return Error::success();
}

void HostKernelLowering::openItemLoops() {
  llvm::LLVMContext &ctx = context();
  if (!pendingSlot_) pendingSlot_ = entryAlloca(builder_.getInt32Ty(), nullptr, "pending");
  builder_.CreateStore(builder_.getInt32(0), pendingSlot_);
  pendingTargets_.clear();

  region_ = nextRegion_++;
  groupContext_ = false;
  itemLoopsDepth_ = loops_.size();
  stridedBytes_ = 0;
  accessGroup_ = llvm::MDNode::getDistinct(ctx, {});
  // Dimensions the kernel does not use come first (outermost), then 0..dims-1, so dpk's
  // last launch dimension is the innermost, vectorized loop.
  std::vector<unsigned> order;
  for (unsigned d = dims_; d < 3; ++d) order.push_back(d);
  for (unsigned d = 0; d < dims_; ++d) order.push_back(d);
  levels_.clear();
  for (unsigned d : order) {
    llvm::BasicBlock *pre = builder_.GetInsertBlock();
    LoopLevel level;
    level.dim = d;
    level.body = llvm::BasicBlock::Create(ctx, "item.body" + std::to_string(d), function_);
    level.latch = llvm::BasicBlock::Create(ctx, "item.latch" + std::to_string(d), function_);
    level.exit = llvm::BasicBlock::Create(ctx, "item.end" + std::to_string(d), function_);
    builder_.CreateBr(level.body);
    builder_.SetInsertPoint(level.body);
    level.id = builder_.CreatePHI(builder_.getInt64Ty(), 2, "lid" + std::to_string(d));
    level.id->addIncoming(builder_.getInt64(0), pre);
    localId_[d] = level.id;
    levels_.push_back(level);
  }
  linearId_ = builder_.CreateAdd(
      builder_.CreateMul(
          builder_.CreateAdd(builder_.CreateMul(localId_[0], localSize_[1]), localId_[1]),
          localSize_[2]),
      localId_[2], "linear_id");
  regionLinearId_.push_back(linearId_);
  regionAccessGroup_.push_back(accessGroup_);
  rematAnchor_ = llvm::cast<llvm::Instruction>(builder_.CreateFreeze(linearId_, "remat.anchor"));
  remat_.clear();
}

void HostKernelLowering::closeItemLoops() {
  llvm::LLVMContext &ctx = context();
  for (size_t i = levels_.size(); i-- > 0;) {
    LoopLevel &level = levels_[i];
    if (!blockTerminated()) builder_.CreateBr(level.latch);
    builder_.SetInsertPoint(level.latch);
    Value *next = builder_.CreateAdd(level.id, builder_.getInt64(1), "", true, true);
    level.id->addIncoming(next, level.latch);
    Value *more = builder_.CreateICmpULT(next, localSize_[level.dim]);
    llvm::BranchInst *br = builder_.CreateCondBr(more, level.body, level.exit);
    if (i + 1 < levels_.size()) {
      // An outer work-item loop (one trip per row of the group: one in a Range launch) holds
      // the vectorized loop: unrolling it copies that loop whole.
      setLoopHints(br, {loopHint(ctx, "llvm.loop.unroll.runtime.disable")});
      builder_.SetInsertPoint(level.exit);
      continue;
    }
    std::vector<llvm::Metadata *> hints{loopHint(ctx, "llvm.loop.parallel_accesses", accessGroup_)};
    if (stridedBytes_ != 0) {
      // Lane-by-lane loads: 256-bit vectors, one at a time (measured on Zen: 16 x f32 with
      // interleaving ran 35% slower than 8 x f32 without).
      hints.push_back(loopHint(ctx, "llvm.loop.vectorize.width", std::max(2u, 32u / stridedBytes_)));
    }
    if (slowGathers_) {
      // On AMD Zen, no interleaving in any work-item loop. Interleaved by 4, a streaming loop
      // issues four loads, four adds and four stores per step; on this Zen 4 EPYC that ran
      // vector add at 0.78-0.84 of GCC's one-vector-at-a-time loop on the same arrays, and 1.01-
      // 1.03 without interleaving (`opt -force-vector-interleave=1`, a scratch driver calling
      // the work-group function). In dpk_bench --paired --single-thread: triad 0.54-0.74 ->
      // 0.90-0.91 of oneTBB, vector add 0.75-0.77 -> 0.80-0.89; tiled matmul 1.14-1.23 ->
      // 1.04-1.10 (still ahead); Black-Scholes, k-means and n-body unchanged.
      hints.push_back(loopHint(ctx, "llvm.loop.interleave.count", 1u));
      // Nor runtime unrolling, which LoopUnroll applies after the vectorizer, to the same
      // effect: pairwise distance, n = 4096, single thread (scratch driver calling the group
      // function against GCC's loop on the same arrays) ran at 0.90-0.92 of GCC unrolled by 8
      // and at 1.00-1.01 without (with the unrolling of enclosing loops also gone, below).
      hints.push_back(loopHint(ctx, "llvm.loop.unroll.runtime.disable"));
    }
    // A short constant-trip work-item loop would be fully unrolled before the vectorizer
    // runs, leaving an outer dimension to vectorize with strided accesses. (Not for longer
    // loops: the hint also stops the vectorizer from interleaving.)
    auto *trips = llvm::dyn_cast<llvm::ConstantInt>(localSize_[level.dim]);
    if (trips && trips->getZExtValue() <= 64) hints.push_back(loopHint(ctx, "llvm.loop.unroll.disable"));
    setLoopHints(br, std::move(hints));
    builder_.SetInsertPoint(level.exit);
  }
  levels_.clear();
  if (rematAnchor_) rematAnchor_->eraseFromParent();
  rematAnchor_ = nullptr;
  remat_.clear();
  region_ = -1;
  groupContext_ = true;
  localId_ = {};
  linearId_ = nullptr;
  if (pendingTargets_.empty()) return;
  llvm::BasicBlock *cont = llvm::BasicBlock::Create(ctx, "after.items", function_);
  Value *code = builder_.CreateLoad(builder_.getInt32Ty(), pendingSlot_);
  llvm::SwitchInst *sw = builder_.CreateSwitch(code, cont, pendingTargets_.size());
  for (auto &[value, target] : pendingTargets_) sw->addCase(builder_.getInt32(value), target);
  pendingTargets_.clear();
  builder_.SetInsertPoint(cont);
}

void HostKernelLowering::noteLoopLatch(llvm::BranchInst *backEdge) {
  // A loop run once per group (a split loop, or one around barriers) holds work-item loops:
  // runtime unrolling copies them whole, for pairwise distance eight copies of the vectorized
  // loop of which a `for k < 3` runs only the remainder's. (Unrolling of constant trip counts
  // stays: a work-group reduction's halving loop, fully unrolled, ran 4x faster than rolled.)
  if (groupContext_) setLoopHints(backEdge, {loopHint(context(), "llvm.loop.unroll.runtime.disable")});
}

void HostKernelLowering::setPending(int code, llvm::BasicBlock *target) {
  builder_.CreateStore(builder_.getInt32(code), pendingSlot_);
  bool known = false;
  for (auto &entry : pendingTargets_) known = known || entry.first == code;
  if (!known) pendingTargets_.push_back({code, target});
  builder_.CreateBr(levels_.back().latch);
}

Error HostKernelLowering::emitKernelReturn(const ir::Op &) {
  if (groupContext_) {
    builder_.CreateBr(exit_);
    return Error::success();
  }
  setPending(kPendingReturn, exit_);
  return Error::success();
}

Error HostKernelLowering::emitLoopExit(const ir::Op &op, size_t loopIndex, bool isContinue) {
  if (groupContext_ || loopIndex >= itemLoopsDepth_)
    return FunctionLowering::emitLoopExit(op, loopIndex, isContinue);
  const LoopTarget &loop = loops_[loopIndex];
  int code = 2 + 2 * static_cast<int>(loopIndex) + (isContinue ? 1 : 0);
  setPending(code, isContinue ? loop.continueTarget : loop.breakTarget);
  return Error::success();
}

// ---- values -------------------------------------------------------------------------------

LoweredValue &HostKernelLowering::define(const ir::Value *value, Value *lowered) {
  LoweredValue &r = FunctionLowering::define(value, lowered);
  ItemStorage &storage = storageOf(&r);
  bool uniformStorage = lowered && (llvm::isa<llvm::Constant>(lowered) ||
                                    llvm::isa<llvm::Argument>(lowered));
  storage.region = uniformStorage ? -1 : region_;
  const ir::Op *def = value->definingOp;
  if (def && def->kind == ir::OpKind::LocalAlloc) storage.region = -1;
  if (def && def->kind == ir::OpKind::Alloca) {
    if (!groups_.split || groups_.isGroupVariable(value)) {
      storage.region = -1; // one private array, reused by the work-items one after another
    } else {
      storage.privateItems = lastPrivateBase_;
      storage.privateCount = lastPrivateCount_;
    }
  }
  return r;
}

Value *HostKernelLowering::lookup(const ir::Value *value) {
  LoweredValue *r = record(value);
  assert(r && "use of an IR value that was not lowered");
  ItemStorage &storage = storageOf(r);
  Value *index = groupContext_ ? static_cast<Value *>(builder_.getInt64(0)) : linearId_;
  if (llvm::AllocaInst *base = storage.privateItems) {
    Value *offset = builder_.CreateMul(index, builder_.getInt64(storage.privateCount));
    return builder_.CreateInBoundsGEP(base->getAllocatedType(), base, offset);
  }
  if (storage.region < 0 || (!groupContext_ && storage.region == region_)) return r->value;
  if (!groupContext_ && value->definingOp && isRematerializable(*value->definingOp))
    return rematerialize(value);

  // A value defined in another work-item loop: keep a copy per work-item.
  llvm::Type *type = r->value->getType();
  if (!storage.perItemArray) {
    storage.perItemArray = entryAlloca(type, itemCount_, "per_item", 16);
    auto *def = llvm::cast<llvm::Instruction>(r->value);
    llvm::Instruction *after = def->getNextNode();
    // Local ids are the loop PHIs, defined before the linear id the store needs.
    if (llvm::isa<llvm::PHINode>(def))
      after = llvm::cast<llvm::Instruction>(regionLinearId_[storage.region])->getNextNode();
    llvm::IRBuilder<> b(after);
    Value *slot = b.CreateInBoundsGEP(type, storage.perItemArray, regionLinearId_[storage.region]);
    llvm::StoreInst *store = b.CreateStore(r->value, slot);
    store->setMetadata(llvm::LLVMContext::MD_access_group, regionAccessGroup_[storage.region]);
  }
  Value *slot = builder_.CreateInBoundsGEP(type, storage.perItemArray, index);
  llvm::LoadInst *load = builder_.CreateLoad(type, slot);
  if (!groupContext_) load->setMetadata(llvm::LLVMContext::MD_access_group, accessGroup_);
  return load;
}

namespace {
bool dependsOn(Value *value, Value *on, unsigned depth = 0) {
  if (value == on) return true;
  auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
  if (!inst || depth > 8 || llvm::isa<llvm::PHINode>(inst)) return false;
  for (Value *operand : inst->operands())
    if (dependsOn(operand, on, depth + 1)) return true;
  return false;
}
} // namespace

void HostKernelLowering::noteStridedAccess(llvm::Instruction *inst) {
  // Split view addresses (LowerToLLVM.cpp) are gep(elem, gep(i8, ptr, leading bytes), last):
  // leading bytes varying with the innermost local id means a load strided by a leading stride.
  auto *load = llvm::dyn_cast<llvm::LoadInst>(inst);
  if (!load) return;
  auto *element = llvm::dyn_cast<llvm::GetElementPtrInst>(load->getPointerOperand());
  auto *base = element ? llvm::dyn_cast<llvm::GetElementPtrInst>(element->getPointerOperand()) : nullptr;
  if (!base || !base->getSourceElementType()->isIntegerTy(8) || base->getNumIndices() != 1) return;
  if (!dependsOn(*base->idx_begin(), levels_.back().id)) return;
  unsigned bytes = static_cast<unsigned>(
      llvmModule().getDataLayout().getTypeAllocSize(load->getType()).getFixedSize());
  stridedBytes_ = std::max(stridedBytes_, bytes);
}

Value *HostKernelLowering::rematerialize(const ir::Value *value) {
  auto it = remat_.find(value);
  if (it != remat_.end()) return it->second;
  const ir::Op &op = *value->definingOp;
  llvm::IRBuilderBase::InsertPointGuard guard(builder_);
  builder_.SetInsertPoint(rematAnchor_);
  Value *result = nullptr;
  if (op.kind == ir::OpKind::GlobalId || op.kind == ir::OpKind::LocalId) {
    Expected<Value *> v = emitWorkItem(op);
    result = v ? *v : nullptr;
  } else if (op.kind == ir::OpKind::Cast) {
    result = emitCast(lookup(op.operands[0]), op.operands[0]->type, op.result->type);
  } else {
    result = emitBinary(op);
  }
  assert(result && "rematerializable op failed to lower");
  remat_[value] = result;
  return result;
}

void HostKernelLowering::noteMemoryAccess(llvm::Instruction *inst, const ir::Value *pointer,
                                          bool atomic) {
  if (groupContext_ || atomic) return;
  if (slowGathers_ && !levels_.empty()) noteStridedAccess(inst);
  // Without barriers a private array is shared by the work-items run one after another, so
  // its accesses do carry dependences across work-items; SROA usually removes them anyway.
  if (!groups_.split && pointer->type.space == ir::AddressSpace::Private) return;
  inst->setMetadata(llvm::LLVMContext::MD_access_group, accessGroup_);
}

// ---- calls of functions with barriers ---------------------------------------------------------
// Such a call runs once per group (its body is split into work-item loops), but its result is
// per work-item: `return v` stores every work-item's v in a work-item loop, and later uses read
// their own element (work-item 0's in group context, where the value must be uniform anyway).

constexpr int kNoRegion = 1 << 30; // never a work-item loop's region: uses go to the array

llvm::AllocaInst *HostKernelLowering::createCallResultSlot(const ir::Op &call,
                                                           const ir::Function &callee) {
  if (!groupContext_ || !groups_.barriers.reachesBarrier(callee))
    return FunctionLowering::createCallResultSlot(call, callee);
  llvm::AllocaInst *slot = entryAlloca(valueType(callee.returnType), itemCount_, "call.result.items", 16);
  perItemResults_.insert(slot);
  return slot;
}

void HostKernelLowering::storeCallResult(llvm::AllocaInst *slot, const ir::Value *value) {
  if (!perItemResults_.count(slot)) return FunctionLowering::storeCallResult(slot, value);
  bool wrap = groupContext_; // `return` is a group statement: store from a work-item loop
  if (wrap) openItemLoops();
  Value *element = builder_.CreateInBoundsGEP(slot->getAllocatedType(), slot, linearId_);
  llvm::StoreInst *store = builder_.CreateStore(lookup(value), element);
  store->setMetadata(llvm::LLVMContext::MD_access_group, accessGroup_);
  if (wrap) closeItemLoops();
}

void HostKernelLowering::defineCallResult(const ir::Op &call, llvm::AllocaInst *slot) {
  if (!perItemResults_.count(slot)) return FunctionLowering::defineCallResult(call, slot);
  Value *first = builder_.CreateLoad(slot->getAllocatedType(), slot);
  ItemStorage &storage = storageOf(&define(call.result, first));
  storage.region = kNoRegion;
  storage.perItemArray = slot;
}

// ---- target hooks -------------------------------------------------------------------------

Expected<Value *> HostKernelLowering::emitWorkItem(const ir::Op &op) {
  auto d = static_cast<unsigned>(op.intAttr);
  if (d > 2) return unsupported(op, "dimension " + std::to_string(d) + " out of range");
  Value *localId = groupContext_ ? static_cast<Value *>(builder_.getInt64(0)) : localId_[d];
  using K = ir::OpKind;
  if (op.kind == K::LocalId) return localId;
  if (op.kind == K::GlobalId)
    return builder_.CreateAdd(builder_.CreateMul(groupId_[d], localSize_[d]), localId);
  if (op.kind == K::GroupId) return groupId_[d];
  if (op.kind == K::LocalSize) return localSize_[d];
  if (op.kind == K::GlobalSize) return globalSize_[d];
  if (op.kind == K::NumGroups) return numGroups_[d];
  return unsupported(op, "not a work-item builtin");
}

Error HostKernelLowering::emitBarrier(const ir::Op &op) {
  // In group context the barrier only separates work-item loops; the loops before it have
  // already run every work-item. Reaching one inside a work-item loop means the barrier is in
  // control flow this splitter did not see as group-level.
  if (groupContext_) return Error::success();
  return unsupported(op, "barrier inside work-item control flow");
}

Expected<Value *> HostKernelLowering::emitPrivateAlloc(const ir::Op &op) {
  if (!groups_.split || groups_.isGroupVariable(op.result))
    return FunctionLowering::emitPrivateAlloc(op);
  llvm::Type *elem = memoryType(op.result->type.scalar);
  lastPrivateCount_ = static_cast<uint64_t>(std::max<int64_t>(op.intAttr, 1));
  llvm::IRBuilder<> entryBuilder(entry_->getTerminator());
  Value *total = entryBuilder.CreateMul(itemCount_, builder_.getInt64(lastPrivateCount_));
  lastPrivateBase_ = entryAlloca(elem, total, "private_items", 16);
  Value *index = groupContext_ ? static_cast<Value *>(builder_.getInt64(0)) : linearId_;
  return builder_.CreateInBoundsGEP(elem, lastPrivateBase_,
                                    builder_.CreateMul(index, builder_.getInt64(lastPrivateCount_)));
}

} // namespace

Expected<std::unique_ptr<llvm::Module>> lowerHostModule(const ir::Module &module,
                                                        const CompileOptions &options,
                                                        llvm::LLVMContext &context,
                                                        llvm::TargetMachine &machine) {
  auto llvmModule = std::make_unique<llvm::Module>(dumpName(module), context);
  llvmModule->setTargetTriple(machine.getTargetTriple().str());
  llvmModule->setDataLayout(machine.createDataLayout());
  TargetInfo target; // host: one address space, libm math, native float atomics
  target.splitViewAddress = true;
  target.localAllocInFrame = true; // the work-group function's frame is per-group storage
  target.localAllocAlign = 64;

  unsigned dims = kernelDims(module, options);
  llvm::Type *ptrTy = llvm::PointerType::get(context, 0);
  auto *fnType = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptrTy, ptrTy}, false);
  for (const auto &kernel : module.functions) {
    if (!kernel->isKernel) continue;
    auto *fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage,
                                      "dpk_wg_" + kernel->name, *llvmModule);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn->addFnAttr("target-cpu", machine.getTargetCPU());
    fn->addFnAttr("target-features", machine.getTargetFeatureString());
    fn->addFnAttr("no-trapping-math", "true");
    fn->addParamAttr(0, llvm::Attribute::NoAlias);
    fn->addParamAttr(0, llvm::Attribute::ReadOnly);
    fn->addParamAttr(1, llvm::Attribute::ReadOnly);
    HostKernelLowering lowering(module, target, fn, options, dims, *kernel,
                                hasSlowGathers(machine));
    lowering.setUnitInnerStrideViews(options.unitInnerStrideViews);
    if (Error e = lowering.build(*kernel)) return e;
  }
  if (Error e = verifyLlvmModule(*llvmModule, "host lowering")) return e;
  return llvmModule;
}

} // namespace dpk::compiler

// BoundsCheck.cpp - the bounds-check pass and the messages of its failure records.
#include "compiler/BoundsCheck.h"

#include "ir/Builder.h"

#include <optional>
#include <vector>

namespace dpk::compiler {
namespace {

using ir::Op;
using ir::OpKind;
using ir::ScalarKind;
using ir::Type;
using ir::Value;

bool isConstantZero(const Value *value) {
  const Op *def = value->definingOp;
  return def && def->kind == OpKind::Const && def->intAttr == 0;
}

bool isElementAccess(OpKind kind) {
  return kind == OpKind::Load || kind == OpKind::Store || kind == OpKind::AtomicRmw ||
         kind == OpKind::AtomicLoad || kind == OpKind::AtomicStore ||
         kind == OpKind::AtomicCmpXchg;
}

/// The checked access `op` is, or nothing (the file comment of BoundsCheck.h lists the kinds).
std::optional<BoundsSiteInfo> siteOf(const Op &op) {
  if (op.kind == OpKind::ViewLoad || op.kind == OpKind::ViewStore) {
    const Value *view = op.operands[0];
    return BoundsSiteInfo{&op, view, view->type.rank};
  }
  if (!isElementAccess(op.kind))
    return std::nullopt;
  const Value *pointer = op.operands[0];
  const Op *def = pointer->definingOp;
  if (!def)
    return std::nullopt;
  if (def->kind == OpKind::ViewElementPtr && isConstantZero(op.operands[1])) {
    const Value *view = def->operands[0];
    return BoundsSiteInfo{&op, view, view->type.rank};
  }
  if (def->kind == OpKind::Alloca || def->kind == OpKind::LocalAlloc)
    return BoundsSiteInfo{&op, pointer, 1};
  return std::nullopt;
}

/// The indices the site checks, one per dimension.
std::vector<Value *> siteIndices(const BoundsSiteInfo &site) {
  const Op &op = *site.access;
  if (op.kind == OpKind::ViewLoad || op.kind == OpKind::ViewStore)
    return {op.operands.begin() + 1, op.operands.begin() + 1 + site.rank};
  const Op *def = op.operands[0]->definingOp;
  if (def->kind == OpKind::ViewElementPtr)
    return {def->operands.begin() + 1, def->operands.begin() + 1 + site.rank};
  return {op.operands[1]};
}

void visitBlock(const ir::Block &block,
                const std::function<void(const BoundsSiteInfo &)> &visit) {
  for (const auto &op : block.ops) {
    for (const ir::Block &region : op->regions)
      visitBlock(region, visit);
    if (std::optional<BoundsSiteInfo> site = siteOf(*op))
      visit(*site);
  }
}

class BoundsCheckPass {
public:
  explicit BoundsCheckPass(ir::Module &module) : module_(module), builder_(module) {}

  void run() {
    // Every function first, so that calls can pass the callee's new parameter on.
    // External functions keep their signature (their definition is linked in, unchecked).
    for (auto &function : module_.functions)
      if (!function->isExternal)
        function->params.push_back(
            function->newValue(Type::pointerTy(ir::AddressSpace::Global, ScalarKind::I64),
                               kBoundsStatusParam));
    for (auto &function : module_.functions) {
      if (function->isExternal)
        continue;
      builder_.setFunction(function.get());
      status_ = function->params.back();
      functionId_ = boundsCheckFunctionId(function->name);
      sites_ = 0;
      rewrite(function->body);
    }
    builder_.clearLoc();
  }

private:
  /// Rebuilds `block` with every site guarded (regions first, in forEachBoundsSite's order).
  void rewrite(ir::Block &block) {
    std::vector<std::unique_ptr<Op>> ops = std::move(block.ops);
    block.ops.clear();
    for (std::unique_ptr<Op> &owned : ops) {
      for (ir::Block &region : owned->regions)
        rewrite(region);
      if (owned->kind == OpKind::Call) {
        const ir::Function *callee = module_.lookup(owned->callee);
        if (!callee || !callee->isExternal)
          owned->operands.push_back(status_);
      }
      std::optional<BoundsSiteInfo> site = siteOf(*owned);
      if (!site) {
        block.ops.push_back(std::move(owned));
        continue;
      }
      guard(block, std::move(owned), *site, ++sites_);
    }
  }

  Value *i64(int64_t value) { return builder_.constInt(ScalarKind::I64, value); }

  Value *zeroOf(const Type &type) {
    if (type.isBool())
      return builder_.constBool(false);
    if (type.isFloat())
      return builder_.constFloat(type.scalar, 0.0);
    return builder_.constInt(type.scalar, 0);
  }

  /// Appends to `block`: the compare of each index with its extent, then
  /// `if (out of bounds) { record } else { access }`; an access with a result goes through a
  /// private slot, so the value keeps its definition after the `if` (0 when out of bounds).
  void guard(ir::Block &block, std::unique_ptr<Op> owned, const BoundsSiteInfo &site,
             unsigned number) {
    Op *access = owned.get();
    builder_.setInsertionPoint(&block);
    builder_.setLoc(access->loc);
    std::vector<Value *> indices = siteIndices(site);
    std::vector<Value *> extents;
    std::vector<Value *> failed;
    Value *anyFailed = nullptr;
    const Type u64 = Type::scalarTy(ScalarKind::U64);
    // The pass owns the module; the site's pointers are const only because the visitor is.
    Value *array = const_cast<Value *>(site.array);
    bool isView = array->type.isView();
    for (unsigned d = 0; d < site.rank; ++d) {
      Value *extent = isView ? builder_.viewDim(array, d) : i64(array->definingOp->intAttr);
      Value *fails = builder_.cmp(ir::CmpPredicate::Ge, builder_.cast(indices[d], u64),
                                  builder_.cast(extent, u64));
      extents.push_back(extent);
      failed.push_back(fails);
      anyFailed = anyFailed ? builder_.binary(OpKind::Or, anyFailed, fails) : fails;
    }
    Value *slot = nullptr;
    if (access->result)
      slot = builder_.privateAlloc(access->result->type.scalar, 1);

    Op *check = builder_.createIf(anyFailed);
    builder_.setInsertionPoint(ir::Builder::thenBlock(check));
    record(number, indices, extents, failed);
    if (slot)
      builder_.store(slot, i64(0), zeroOf(access->result->type));

    ir::Block *accessBlock = ir::Builder::elseBlock(check);
    accessBlock->ops.push_back(std::move(owned));
    if (!slot)
      return;
    builder_.setInsertionPoint(accessBlock);
    Value *original = access->result;
    Op *keep = builder_.store(slot, i64(0), original);
    builder_.setInsertionPoint(&block);
    Value *reloaded = builder_.load(slot, i64(0));
    // Swap the definitions: the access now defines `reloaded` (stored into the slot), the load
    // after the `if` defines the access's old value, so every later use stays as it was.
    Op *load = reloaded->definingOp;
    access->result = reloaded;
    reloaded->definingOp = access;
    load->result = original;
    original->definingOp = load;
    keep->operands[2] = reloaded;
  }

  /// The first failure of a launch claims word 0 and fills in the rest.
  void record(unsigned number, const std::vector<Value *> &indices,
              const std::vector<Value *> &extents, const std::vector<Value *> &failed) {
    Value *old = builder_.atomicCmpXchg(status_, i64(BoundsSite), i64(0), i64(number),
                                        ir::MemoryOrder::Relaxed, ir::MemoryScope::Device);
    Op *first = builder_.createIf(builder_.cmp(ir::CmpPredicate::Eq, old, i64(0)));
    ir::Block *outer = builder_.insertionBlock();
    builder_.setInsertionPoint(ir::Builder::thenBlock(first));
    unsigned rank = static_cast<unsigned>(indices.size());
    Value *dimension = i64(rank - 1);
    Value *index = indices[rank - 1];
    for (unsigned d = rank - 1; d-- > 0;) {
      dimension = builder_.select(failed[d], i64(d), dimension);
      index = builder_.select(failed[d], indices[d], index);
    }
    builder_.store(status_, i64(BoundsFunction), i64(functionId_));
    builder_.store(status_, i64(BoundsDimension), dimension);
    builder_.store(status_, i64(BoundsIndex), index);
    for (unsigned d = 0; d < rank; ++d)
      builder_.store(status_, i64(BoundsShape + d), extents[d]);
    builder_.store(status_, i64(BoundsRank), i64(rank));
    builder_.setInsertionPoint(outer);
  }

  ir::Module &module_;
  ir::Builder builder_;
  Value *status_ = nullptr;
  int64_t functionId_ = 0;
  unsigned sites_ = 0;
};

std::string locationText(const ir::SourceLoc &loc) {
  if (loc.line <= 0)
    return {};
  return (loc.file.empty() ? std::string("<unknown>") : loc.file) + ":" +
         std::to_string(loc.line);
}

std::string arrayDescription(const ir::Function &holder, const Value &array, bool inKernel) {
  std::string name = array.name.empty() ? "%" + std::to_string(array.id) : array.name;
  const Op *def = array.definingOp;
  if (def && def->kind == OpKind::Alloca)
    return "private array '" + name + "' of " + std::to_string(def->intAttr) + " elements";
  if (def && def->kind == OpKind::LocalAlloc)
    return "local array '" + name + "' of " + std::to_string(def->intAttr) + " elements";
  std::string text = "array '" + name + "'";
  if (inKernel)
    return text;
  return text + " (a parameter of device function '" + holder.name + "')";
}

} // namespace

int64_t boundsCheckFunctionId(const std::string &name) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : name) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return static_cast<int64_t>(hash);
}

void forEachBoundsSite(const ir::Function &function,
                       const std::function<void(const BoundsSiteInfo &)> &visit) {
  visitBlock(function.body, visit);
}

void insertBoundsChecks(ir::Module &module) { BoundsCheckPass(module).run(); }

std::string describeBoundsFailure(const ir::Module &module, const std::string &kernel,
                                  const int64_t (&record)[kBoundsRecordWords]) {
  if (record[BoundsSite] == 0)
    return {};
  const ir::Function *holder = nullptr;
  for (const auto &function : module.functions) {
    if (boundsCheckFunctionId(function->name) == record[BoundsFunction])
      holder = function.get();
  }
  const ir::Function *launched = module.lookup(kernel);
  std::string who = "kernel '" + kernel + "'";
  std::string kernelPlace = launched ? locationText(launched->loc) : std::string();
  std::optional<BoundsSiteInfo> site;
  if (holder) {
    int64_t wanted = record[BoundsSite];
    int64_t number = 0;
    forEachBoundsSite(*holder, [&](const BoundsSiteInfo &info) {
      if (++number == wanted)
        site = info;
    });
  }
  std::string place = site ? locationText(site->access->loc) : std::string();
  if (place.empty())
    place = kernelPlace;
  std::string text = who;
  if (holder && holder != launched)
    text += ", in device function '" + holder->name + "'";
  if (!place.empty())
    text += " (" + place + ")";
  int64_t rank = record[BoundsRank];
  if (rank < 1 || rank > 3)
    rank = 1;
  bool isView = !site || site->array->type.isView();
  text += ": index " + std::to_string(record[BoundsIndex]) + " is out of bounds for ";
  if (isView)
    text += "axis " + std::to_string(record[BoundsDimension]) + " of ";
  text += site ? arrayDescription(*holder, *site->array, holder == launched) : "an array";
  if (site && site->array->type.isView()) {
    text += " with shape (";
    for (int64_t d = 0; d < rank; ++d)
      text += (d ? ", " : "") + std::to_string(record[BoundsShape + d]);
    text += rank == 1 ? ",)" : ")";
  } else if (!site) {
    text += " of size " + std::to_string(record[BoundsShape]);
  }
  return text;
}

} // namespace dpk::compiler

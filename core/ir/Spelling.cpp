// Spelling.cpp - IR text spellings of attribute enums (see Spelling.h).
#include "ir/Spelling.h"

namespace dpk::ir {

const char *cmpPredicateName(CmpPredicate p) {
  switch (p) {
  case CmpPredicate::Eq: return "eq";
  case CmpPredicate::Ne: return "ne";
  case CmpPredicate::Lt: return "lt";
  case CmpPredicate::Le: return "le";
  case CmpPredicate::Gt: return "gt";
  case CmpPredicate::Ge: return "ge";
  }
  return "<bad predicate>";
}

const char *atomicRmwKindName(AtomicRmwKind k) {
  switch (k) {
  case AtomicRmwKind::Add: return "add";
  case AtomicRmwKind::Sub: return "sub";
  case AtomicRmwKind::Min: return "min";
  case AtomicRmwKind::Max: return "max";
  case AtomicRmwKind::And: return "and";
  case AtomicRmwKind::Or: return "or";
  case AtomicRmwKind::Xor: return "xor";
  case AtomicRmwKind::Exchange: return "exchange";
  }
  return "<bad rmw>";
}

const char *memoryOrderName(MemoryOrder o) {
  switch (o) {
  case MemoryOrder::Relaxed: return "relaxed";
  case MemoryOrder::Acquire: return "acquire";
  case MemoryOrder::Release: return "release";
  case MemoryOrder::AcqRel: return "acq_rel";
  case MemoryOrder::SeqCst: return "seq_cst";
  }
  return "<bad order>";
}

const char *memoryScopeName(MemoryScope s) {
  switch (s) {
  case MemoryScope::WorkItem: return "work_item";
  case MemoryScope::SubGroup: return "sub_group";
  case MemoryScope::WorkGroup: return "work_group";
  case MemoryScope::Device: return "device";
  case MemoryScope::System: return "system";
  }
  return "<bad scope>";
}

// Each enum is small and dense, so lookup is a scan over its values.
template <typename Enum, typename NameFn>
static std::optional<Enum> lookupByName(std::string_view s, unsigned count, NameFn name) {
  for (unsigned i = 0; i < count; ++i)
    if (s == name(static_cast<Enum>(i))) return static_cast<Enum>(i);
  return std::nullopt;
}

std::optional<CmpPredicate> parseCmpPredicate(std::string_view s) {
  return lookupByName<CmpPredicate>(s, 6, cmpPredicateName);
}
std::optional<AtomicRmwKind> parseAtomicRmwKind(std::string_view s) {
  return lookupByName<AtomicRmwKind>(s, 8, atomicRmwKindName);
}
std::optional<MemoryOrder> parseMemoryOrder(std::string_view s) {
  return lookupByName<MemoryOrder>(s, 5, memoryOrderName);
}
std::optional<MemoryScope> parseMemoryScope(std::string_view s) {
  return lookupByName<MemoryScope>(s, 5, memoryScopeName);
}
std::optional<ScalarKind> parseScalarKind(std::string_view s) {
  return lookupByName<ScalarKind>(s, 12, scalarName);
}
std::optional<AddressSpace> parseAddressSpace(std::string_view s) {
  return lookupByName<AddressSpace>(s, 5, addressSpaceName);
}

std::optional<MathFn> parseMathFn(std::string_view s) {
#define DPK_MATH_COUNT(Kind, Name, Arity) +1
  constexpr unsigned count = 0 DPK_MATH_FUNCTIONS(DPK_MATH_COUNT);
#undef DPK_MATH_COUNT
  return lookupByName<MathFn>(s, count, mathFnName);
}

std::optional<OpKind> parseOpKind(std::string_view s) {
#define DPK_OP(Kind, Name, Category) +1
  constexpr unsigned count = 0
#include "ir/Ops.def"
      ;
  return lookupByName<OpKind>(s, count, opName);
}

} // namespace dpk::ir

// Spelling.h - IR text spellings of attribute enums, shared by the printer and the parser.
#ifndef DPK_CORE_IR_SPELLING_H
#define DPK_CORE_IR_SPELLING_H

#include "ir/IR.h"

#include <optional>
#include <string_view>

namespace dpk::ir {

const char *cmpPredicateName(CmpPredicate p);     // eq ne lt le gt ge
const char *atomicRmwKindName(AtomicRmwKind k);   // add sub min max and or xor exchange
const char *memoryOrderName(MemoryOrder o);       // relaxed acquire release acq_rel seq_cst
const char *memoryScopeName(MemoryScope s);       // work_item sub_group work_group device system

std::optional<CmpPredicate> parseCmpPredicate(std::string_view s);
std::optional<AtomicRmwKind> parseAtomicRmwKind(std::string_view s);
std::optional<MemoryOrder> parseMemoryOrder(std::string_view s);
std::optional<MemoryScope> parseMemoryScope(std::string_view s);
std::optional<MathFn> parseMathFn(std::string_view s);
std::optional<OpKind> parseOpKind(std::string_view s);
std::optional<ScalarKind> parseScalarKind(std::string_view s);
std::optional<AddressSpace> parseAddressSpace(std::string_view s);

} // namespace dpk::ir

#endif // DPK_CORE_IR_SPELLING_H

// IR.cpp - the IR's tables and small helpers: op names, type names, math function arity.
#include "ir/IR.h"

namespace dpk::ir {

const char *opName(OpKind kind) {
  switch (kind) {
#define DPK_OP(Kind, Name, Category)                                                            \
  case OpKind::Kind:                                                                           \
    return Name;
#include "ir/Ops.def"
  }
  return "<bad op>";
}

OpCategory opCategory(OpKind kind) {
  switch (kind) {
#define DPK_OP(Kind, Name, Category)                                                            \
  case OpKind::Kind:                                                                           \
    return OpCategory::Category;
#include "ir/Ops.def"
  }
  return OpCategory::Value;
}

bool Type::isInteger() const {
  if (!isScalar()) return false;
  switch (scalar) {
  case ScalarKind::I8: case ScalarKind::I16: case ScalarKind::I32: case ScalarKind::I64:
  case ScalarKind::U8: case ScalarKind::U16: case ScalarKind::U32: case ScalarKind::U64:
    return true;
  case ScalarKind::Bool: case ScalarKind::F16: case ScalarKind::F32: case ScalarKind::F64:
    return false;
  }
  return false;
}

bool Type::isSigned() const {
  if (!isScalar()) return false;
  switch (scalar) {
  case ScalarKind::I8: case ScalarKind::I16: case ScalarKind::I32: case ScalarKind::I64:
    return true;
  case ScalarKind::U8: case ScalarKind::U16: case ScalarKind::U32: case ScalarKind::U64:
  case ScalarKind::Bool: case ScalarKind::F16: case ScalarKind::F32: case ScalarKind::F64:
    return false;
  }
  return false;
}

bool Type::isFloat() const {
  if (!isScalar()) return false;
  switch (scalar) {
  case ScalarKind::F16: case ScalarKind::F32: case ScalarKind::F64:
    return true;
  case ScalarKind::Bool: case ScalarKind::I8: case ScalarKind::I16: case ScalarKind::I32:
  case ScalarKind::I64: case ScalarKind::U8: case ScalarKind::U16: case ScalarKind::U32:
  case ScalarKind::U64:
    return false;
  }
  return false;
}

unsigned scalarSize(ScalarKind s) {
  switch (s) {
  case ScalarKind::Bool: case ScalarKind::I8: case ScalarKind::U8: return 1;
  case ScalarKind::I16: case ScalarKind::U16: case ScalarKind::F16: return 2;
  case ScalarKind::I32: case ScalarKind::U32: case ScalarKind::F32: return 4;
  case ScalarKind::I64: case ScalarKind::U64: case ScalarKind::F64: return 8;
  }
  return 0;
}

const char *scalarName(ScalarKind s) {
  switch (s) {
  case ScalarKind::Bool: return "bool";
  case ScalarKind::I8: return "i8";
  case ScalarKind::I16: return "i16";
  case ScalarKind::I32: return "i32";
  case ScalarKind::I64: return "i64";
  case ScalarKind::U8: return "u8";
  case ScalarKind::U16: return "u16";
  case ScalarKind::U32: return "u32";
  case ScalarKind::U64: return "u64";
  case ScalarKind::F16: return "f16";
  case ScalarKind::F32: return "f32";
  case ScalarKind::F64: return "f64";
  }
  return "<bad scalar>";
}

const char *addressSpaceName(AddressSpace s) {
  switch (s) {
  case AddressSpace::Global: return "global";
  case AddressSpace::Local: return "local";
  case AddressSpace::Private: return "private";
  case AddressSpace::Constant: return "constant";
  case AddressSpace::Generic: return "generic";
  }
  return "<bad space>";
}

std::string typeToString(const Type &t) {
  switch (t.kind) {
  case TypeKind::Void: return "void";
  case TypeKind::Scalar: return scalarName(t.scalar);
  case TypeKind::Pointer:
    return std::string("ptr<") + addressSpaceName(t.space) + ", " + scalarName(t.scalar) + ">";
  case TypeKind::View:
    return std::string("view<") + addressSpaceName(t.space) + ", " + scalarName(t.scalar) + ", " +
           std::to_string(t.rank) + ">";
  }
  return "<bad type>";
}

const char *mathFnName(MathFn fn) {
  switch (fn) {
#define DPK_MATH_NAME(Kind, Name, Arity)                                                       \
  case MathFn::Kind:                                                                           \
    return Name;
    DPK_MATH_FUNCTIONS(DPK_MATH_NAME)
#undef DPK_MATH_NAME
  }
  return "<bad math fn>";
}

unsigned mathFnArity(MathFn fn) {
  switch (fn) {
#define DPK_MATH_ARITY(Kind, Name, Arity)                                                      \
  case MathFn::Kind:                                                                           \
    return Arity;
    DPK_MATH_FUNCTIONS(DPK_MATH_ARITY)
#undef DPK_MATH_ARITY
  }
  return 0;
}

Value *Function::newValue(Type type, std::string name) {
  auto value = std::make_unique<Value>();
  value->type = type;
  value->id = static_cast<unsigned>(values.size());
  value->name = std::move(name);
  values.push_back(std::move(value));
  return values.back().get();
}

Function::~Function() {
  // An op owns its regions' ops, so the implicit destructors recurse once per nesting level:
  // a body nested 100,000 deep (which the verifier refuses, but which must still be destroyed)
  // overflowed the stack under AddressSanitizer. The ops move onto a flat worklist first, so
  // each dies with its regions already empty.
  std::vector<std::unique_ptr<Op>> pending;
  pending.reserve(body.ops.size());
  for (std::unique_ptr<Op> &op : body.ops)
    pending.push_back(std::move(op));
  body.ops.clear();
  while (!pending.empty()) {
    std::unique_ptr<Op> op = std::move(pending.back());
    pending.pop_back();
    for (Block &region : op->regions) {
      for (std::unique_ptr<Op> &inner : region.ops)
        pending.push_back(std::move(inner));
      region.ops.clear();
    }
  }
}

Function *Module::lookup(const std::string &name) const {
  for (const auto &f : functions)
    if (f->name == name) return f.get();
  return nullptr;
}

} // namespace dpk::ir

// Builtins.cpp - OpenCL C for work-item builtins, math functions, fences, barriers and atomics.
//
// OpenCL C 1.2 atomics are relaxed read-modify-write functions on 32-bit integers (atomic_*;
// atomic_xchg also on float) and, with cl_khr_int64_base/extended_atomics, 64-bit integers
// (atom_*). Everything else is built from them; docs/opencl-c.md gives the full table.
#include "opencl_c/Emitter.h"

namespace dpk::opencl_c {

// ---- work-items ---------------------------------------------------------------------------

std::string workItemExpression(ModuleState &state, const ir::Op &op) {
  unsigned dim = static_cast<unsigned>(op.intAttr);
  assert(dim < state.dims && "dimension beyond the launch dimensionality");
  unsigned clDim = state.dims - 1 - dim; // dpk's last dimension is OpenCL's dimension 0
  if (op.kind == ir::OpKind::LocalSize && state.specializedLocalSize)
    return std::to_string(state.options.localSize[dim]) + "L";
  const char *function = "get_global_id";
  if (op.kind == ir::OpKind::LocalId)
    function = "get_local_id";
  else if (op.kind == ir::OpKind::GroupId)
    function = "get_group_id";
  else if (op.kind == ir::OpKind::GlobalSize)
    function = "get_global_size";
  else if (op.kind == ir::OpKind::LocalSize)
    function = "get_local_size";
  else if (op.kind == ir::OpKind::NumGroups)
    function = "get_num_groups";
  else
    assert(op.kind == ir::OpKind::GlobalId && "not a work-item op");
  // With every global size below 2^32 (CompileOptions::idsFit32) the value is computed in 32
  // bits, which lets the compiler keep index arithmetic on it in 32-bit multiplies.
  const char *cast = state.options.idsFit32 ? "(long)(uint)" : "(long)";
  return cast + std::string(function) + "(" + std::to_string(clDim) + ")";
}

// ---- math ---------------------------------------------------------------------------------

Expected<std::string> mathExpression(ModuleState &state, const ir::Op &op,
                                     const std::vector<std::string> &operands) {
  const ir::Type &type = op.operands[0]->type;
  auto call = [&](const char *name) {
    std::string text = std::string(name) + "(";
    for (size_t i = 0; i < operands.size(); ++i)
      text += (i ? ", " : "") + operands[i];
    return text + ")";
  };
  switch (op.mathFn) {
  // The scalar relational built-ins return int (1 / 0): make it a bool.
  case ir::MathFn::IsNan: return "(isnan(" + operands[0] + ") != 0)";
  case ir::MathFn::IsInf: return "(isinf(" + operands[0] + ") != 0)";
  // fmin/fmax return the other operand when one is NaN, like LLVM's minnum/maxnum.
  case ir::MathFn::Min: return call(type.isFloat() ? "fmin" : "min");
  case ir::MathFn::Max: return call(type.isFloat() ? "fmax" : "max");
  case ir::MathFn::Abs:
    if (type.isFloat())
      return call("fabs");
    // abs() of a signed integer returns the unsigned type; casting back wraps abs(INT_MIN)
    // to INT_MIN, as two's complement negation does.
    if (type.isSigned())
      return "(" + std::string(valueTypeName(type.scalar)) + ")" + call("abs");
    return operands[0];
  // popcount(gentype) counts in the operand's own width (operands are values of their IR type:
  // declared variables, typed literals); the cast pins the result to that type as well.
  case ir::MathFn::Popcount:
    return "(" + std::string(valueTypeName(type.scalar)) + ")" + call("popcount");
#define DPK_MATH_CASE(Kind, Name, Arity)                                                       \
  case ir::MathFn::Kind:                                                                       \
    return call(Name);
  // Every other function has an OpenCL C built-in of the same name and signature
  // (ldexp(gentype, int) included).
    DPK_MATH_CASE(Fabs, "fabs", 1)
    DPK_MATH_CASE(Exp, "exp", 1)
    DPK_MATH_CASE(Expm1, "expm1", 1)
    DPK_MATH_CASE(Exp2, "exp2", 1)
    DPK_MATH_CASE(Log, "log", 1)
    DPK_MATH_CASE(Log10, "log10", 1)
    DPK_MATH_CASE(Log1p, "log1p", 1)
    DPK_MATH_CASE(Log2, "log2", 1)
    DPK_MATH_CASE(Sqrt, "sqrt", 1)
    DPK_MATH_CASE(Sin, "sin", 1)
    DPK_MATH_CASE(Cos, "cos", 1)
    DPK_MATH_CASE(Tan, "tan", 1)
    DPK_MATH_CASE(Asin, "asin", 1)
    DPK_MATH_CASE(Acos, "acos", 1)
    DPK_MATH_CASE(Atan, "atan", 1)
    DPK_MATH_CASE(Atan2, "atan2", 2)
    DPK_MATH_CASE(Sinh, "sinh", 1)
    DPK_MATH_CASE(Cosh, "cosh", 1)
    DPK_MATH_CASE(Tanh, "tanh", 1)
    DPK_MATH_CASE(Asinh, "asinh", 1)
    DPK_MATH_CASE(Acosh, "acosh", 1)
    DPK_MATH_CASE(Atanh, "atanh", 1)
    DPK_MATH_CASE(Floor, "floor", 1)
    DPK_MATH_CASE(Ceil, "ceil", 1)
    DPK_MATH_CASE(Trunc, "trunc", 1)
    DPK_MATH_CASE(Copysign, "copysign", 2)
    DPK_MATH_CASE(Pow, "pow", 2)
    DPK_MATH_CASE(Fmod, "fmod", 2)
    DPK_MATH_CASE(Erf, "erf", 1)
    DPK_MATH_CASE(Erfc, "erfc", 1)
    DPK_MATH_CASE(Tgamma, "tgamma", 1)
    DPK_MATH_CASE(Lgamma, "lgamma", 1)
    DPK_MATH_CASE(Ldexp, "ldexp", 2)
    DPK_MATH_CASE(Hypot, "hypot", 2)
#undef DPK_MATH_CASE
  }
  (void)state;
  return Error(DPK_ERROR_UNSUPPORTED, "unknown math function");
}

// ---- fences and barriers ------------------------------------------------------------------

const char *fenceFlags(ir::MemoryScope scope) {
  switch (scope) {
  // Narrower than a work-group: only the work-group's shared (local) memory can be involved.
  case ir::MemoryScope::WorkItem:
  case ir::MemoryScope::SubGroup:
    return "CLK_LOCAL_MEM_FENCE";
  // A work-group scope fence orders every address space among the group's work-items (SYCL
  // semantics), so global memory is fenced too; wider scopes likewise.
  case ir::MemoryScope::WorkGroup:
  case ir::MemoryScope::Device:
  case ir::MemoryScope::System:
    return "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE";
  }
  return "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE";
}

std::vector<std::string> fenceStatements(ir::MemoryOrder order, ir::MemoryScope scope) {
  // A relaxed fence orders nothing, and a work-item scope fence concerns one work-item only,
  // whose own accesses are already in program order.
  if (order == ir::MemoryOrder::Relaxed || scope == ir::MemoryScope::WorkItem)
    return {};
  return {"mem_fence(" + std::string(fenceFlags(scope)) + ");"};
}

// ---- atomics ------------------------------------------------------------------------------

namespace {

bool is64Bit(ir::ScalarKind kind) { return ir::scalarSize(kind) == 8; }

// "volatile __global uint *" for the integer view of an atomic element.
std::string bitsPointerType(ir::AddressSpace space, ir::ScalarKind kind) {
  return "volatile " + std::string(addressSpaceQualifier(space)) +
         (is64Bit(kind) ? " ulong *" : " uint *");
}

const char *rmwFunctionStem(ir::AtomicRmwKind kind) {
  switch (kind) {
  case ir::AtomicRmwKind::Add: return "add";
  case ir::AtomicRmwKind::Sub: return "sub";
  case ir::AtomicRmwKind::Min: return "min";
  case ir::AtomicRmwKind::Max: return "max";
  case ir::AtomicRmwKind::And: return "and";
  case ir::AtomicRmwKind::Or: return "or";
  case ir::AtomicRmwKind::Xor: return "xor";
  case ir::AtomicRmwKind::Exchange: return "xchg";
  }
  return "add";
}

// The 32-bit (atomic_*) or 64-bit (atom_*) spelling; records the extension 64-bit needs.
std::string integerAtomic(ModuleState &state, ir::ScalarKind kind, const char *stem) {
  if (!is64Bit(kind))
    return std::string("atomic_") + stem;
  std::string name = stem;
  bool extended = name == "min" || name == "max" || name == "and" || name == "or" ||
                  name == "xor";
  (extended ? state.needsInt64ExtendedAtomics : state.needsInt64BaseAtomics) = true;
  state.needsInt64BaseAtomics = true;
  return "atom_" + name;
}

// A compare-and-swap loop applying `kind` to a float element; returns the helper's name.
std::string floatRmwHelper(ModuleState &state, ir::AtomicRmwKind kind, ir::ScalarKind scalar,
                           ir::AddressSpace space) {
  bool wide = is64Bit(scalar);
  const char *floatType = wide ? "double" : "float";
  const char *bitsType = wide ? "ulong" : "uint";
  std::string asBits = wide ? "as_ulong" : "as_uint";
  std::string asFloat = wide ? "as_double" : "as_float";
  std::string space_name = space == ir::AddressSpace::Local ? "local" : "global";
  std::string name = std::string("dpk_atomic_") + rmwFunctionStem(kind) + "_" +
                     (wide ? "f64_" : "f32_") + space_name;
  std::string combine;
  switch (kind) {
  case ir::AtomicRmwKind::Add: combine = asFloat + "(expected) + value"; break;
  case ir::AtomicRmwKind::Sub: combine = asFloat + "(expected) - value"; break;
  case ir::AtomicRmwKind::Min: combine = "fmin(" + asFloat + "(expected), value)"; break;
  case ir::AtomicRmwKind::Max: combine = "fmax(" + asFloat + "(expected), value)"; break;
  case ir::AtomicRmwKind::And:
  case ir::AtomicRmwKind::Or:
  case ir::AtomicRmwKind::Xor:
  case ir::AtomicRmwKind::Exchange:
    assert(false && "no compare-and-swap loop for this float atomic");
    break;
  }
  std::string cmpxchg = integerAtomic(state, wide ? ir::ScalarKind::U64 : ir::ScalarKind::U32,
                                      "cmpxchg");
  std::string pointerType = bitsPointerType(space, scalar);
  std::string definition =
      std::string(floatType) + " " + name + "(" + pointerType + "bits, " + floatType +
      " value) {\n"
      "  " + bitsType + " expected = *bits;\n"
      "  for (;;) {\n"
      "    " + bitsType + " desired = " + asBits + "(" + combine + ");\n"
      "    " + bitsType + " seen = " + cmpxchg + "(bits, expected, desired);\n"
      "    if (seen == expected)\n"
      "      return " + asFloat + "(expected);\n"
      "    expected = seen;\n"
      "  }\n"
      "}\n";
  return state.addHelper(name, definition);
}

void addOrderFences(AtomicLowering &lowering, ir::MemoryOrder order, ir::MemoryScope scope) {
  // OpenCL C 1.2 atomics are relaxed: acquire adds a fence after, release a fence before.
  bool acquire = order == ir::MemoryOrder::Acquire || order == ir::MemoryOrder::AcqRel ||
                 order == ir::MemoryOrder::SeqCst;
  bool release = order == ir::MemoryOrder::Release || order == ir::MemoryOrder::AcqRel ||
                 order == ir::MemoryOrder::SeqCst;
  ir::MemoryOrder fenceOrder = ir::MemoryOrder::AcqRel;
  if (release)
    lowering.before = fenceStatements(fenceOrder, scope);
  if (acquire)
    lowering.after = fenceStatements(fenceOrder, scope);
}

} // namespace

std::string roundToHalfHelper(ModuleState &state, ir::ScalarKind from) {
  // vstore_half_rte rounds to nearest even; the round trip through a private ushort keeps the
  // value in a float (OpenCL C 1.2 without cl_khr_fp16 has no half variables).
  bool wide = from == ir::ScalarKind::F64;
  std::string name = wide ? "dpk_round_to_half_f64" : "dpk_round_to_half";
  std::string definition = std::string("float ") + name + "(" + (wide ? "double" : "float") +
                           " value) {\n"
                           "  ushort bits;\n"
                           "  vstore_half_rte(value, 0, (__private half *)&bits);\n"
                           "  return vload_half(0, (const __private half *)&bits);\n"
                           "}\n";
  return state.addHelper(name, definition);
}

Expected<AtomicLowering> atomicExpression(ModuleState &state, const ir::Op &op,
                                          const std::string &address,
                                          const std::vector<std::string> &values) {
  const ir::Type &pointer = op.operands[0]->type;
  ir::ScalarKind kind = pointer.scalar;
  bool isFloat = pointer.elementType().isFloat();
  bool wide = is64Bit(kind);
  std::string bits = "(" + bitsPointerType(pointer.space, kind) + ")" + address;
  std::string asFloat = wide ? "as_double" : "as_float";
  std::string asBits = wide ? "as_ulong" : "as_uint";
  std::string zero = wide ? "0UL" : "0u";

  AtomicLowering lowering;
  addOrderFences(lowering, op.order, op.scope);
  if (op.kind == ir::OpKind::AtomicRmw) {
    const std::string &value = values[0];
    if (!isFloat) {
      lowering.expression = integerAtomic(state, kind, rmwFunctionStem(op.rmwKind)) + "(" +
                            address + ", " + value + ")";
      return lowering;
    }
    if (op.rmwKind == ir::AtomicRmwKind::Exchange) {
      // atomic_xchg has a float overload; doubles go through the 64-bit integer exchange.
      if (!wide) {
        lowering.expression = "atomic_xchg(" + address + ", " + value + ")";
        return lowering;
      }
      lowering.expression = asFloat + "(" + integerAtomic(state, ir::ScalarKind::U64, "xchg") +
                            "(" + bits + ", " + asBits + "(" + value + ")))";
      return lowering;
    }
    std::string helper = floatRmwHelper(state, op.rmwKind, kind, pointer.space);
    lowering.expression = helper + "(" + bits + ", " + value + ")";
    return lowering;
  }
  if (op.kind == ir::OpKind::AtomicLoad) {
    // An atomic read as a read-modify-write that changes nothing (or with 0): the only loads
    // OpenCL C 1.2 guarantees to be atomic.
    std::string read = integerAtomic(state, wide ? ir::ScalarKind::U64 : ir::ScalarKind::U32,
                                     wide ? "add" : "or");
    if (isFloat) {
      lowering.expression = asFloat + "(" + read + "(" + bits + ", " + zero + "))";
      return lowering;
    }
    lowering.expression = "(" + std::string(valueTypeName(kind)) + ")" + read + "(" + bits +
                          ", " + zero + ")";
    return lowering;
  }
  if (op.kind == ir::OpKind::AtomicStore) {
    // An atomic write as an exchange whose old value is dropped.
    const std::string &value = values[0];
    std::string exchange = integerAtomic(state, wide ? ir::ScalarKind::U64 : ir::ScalarKind::U32,
                                         "xchg");
    std::string asIntegerBits =
        isFloat ? asBits + "(" + value + ")"
                : "(" + std::string(wide ? "ulong" : "uint") + ")" + value;
    lowering.expression = "(void)" + exchange + "(" + bits + ", " + asIntegerBits + ")";
    return lowering;
  }
  if (op.kind == ir::OpKind::AtomicCmpXchg) {
    const std::string &expected = values[0];
    const std::string &desired = values[1];
    std::string cmpxchg = integerAtomic(state, kind, "cmpxchg");
    if (!isFloat) {
      lowering.expression = cmpxchg + "(" + address + ", " + expected + ", " + desired + ")";
      return lowering;
    }
    // Floats compare by bit pattern, as C++ compare_exchange does.
    lowering.expression = asFloat + "(" + cmpxchg + "(" + bits + ", " + asBits + "(" +
                          expected + "), " + asBits + "(" + desired + ")))";
    return lowering;
  }
  return Error(DPK_ERROR_UNSUPPORTED, std::string("not an atomic op: ") + ir::opName(op.kind));
}

} // namespace dpk::opencl_c

// Types.cpp - OpenCL C spellings of dpk types, constants and identifiers.
#include "opencl_c/Emitter.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_set>

namespace dpk::opencl_c {

const char *valueTypeName(ir::ScalarKind kind) {
  switch (kind) {
  case ir::ScalarKind::Bool: return "bool";
  case ir::ScalarKind::I8: return "char";
  case ir::ScalarKind::I16: return "short";
  case ir::ScalarKind::I32: return "int";
  case ir::ScalarKind::I64: return "long";
  case ir::ScalarKind::U8: return "uchar";
  case ir::ScalarKind::U16: return "ushort";
  case ir::ScalarKind::U32: return "uint";
  case ir::ScalarKind::U64: return "ulong";
  case ir::ScalarKind::F16: return "float";
  case ir::ScalarKind::F32: return "float";
  case ir::ScalarKind::F64: return "double";
  }
  return "void";
}

const char *storageTypeName(ir::ScalarKind kind) {
  if (kind == ir::ScalarKind::Bool)
    return "uchar";
  if (kind == ir::ScalarKind::F16)
    return "half";
  return valueTypeName(kind);
}

const char *addressSpaceQualifier(ir::AddressSpace space) {
  switch (space) {
  case ir::AddressSpace::Global: return "__global";
  case ir::AddressSpace::Local: return "__local";
  case ir::AddressSpace::Private: return "__private";
  case ir::AddressSpace::Constant: return "__constant";
  case ir::AddressSpace::Generic: return "__global";
  }
  return "__global";
}

std::string pointerTypeName(const ir::Type &type) {
  return std::string(addressSpaceQualifier(type.space)) + " " + storageTypeName(type.scalar) +
         " *";
}

std::string declarationTypeName(const ir::Type &type) {
  switch (type.kind) {
  case ir::TypeKind::Void: return "void";
  case ir::TypeKind::Scalar: return valueTypeName(type.scalar);
  case ir::TypeKind::Pointer: return pointerTypeName(type);
  case ir::TypeKind::View: return pointerTypeName(type); // the view's pointer part
  }
  return "void";
}

double roundToHalf(double value) {
  if (std::isnan(value) || std::isinf(value) || value == 0.0)
    return value;
  double magnitude = std::fabs(value);
  constexpr double kMaxHalf = 65504.0;
  // The spacing of halves around `magnitude`: 2^(e-10) for normals, 2^-24 for subnormals.
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude = m * 2^exponent, m in [0.5, 1)
  int unitExponent = std::max(exponent - 1, -14) - 10;
  double unit = std::ldexp(1.0, unitExponent);
  double rounded = std::nearbyint(magnitude / unit) * unit; // ties to even in the default mode
  if (rounded > kMaxHalf) {
    // Beyond the largest half: values that round below 65520 stay at 65504, the rest overflow.
    rounded = magnitude < 65520.0 ? kMaxHalf : std::numeric_limits<double>::infinity();
  }
  return std::copysign(rounded, value);
}

namespace {

std::string printFloating(double value, bool isDouble) {
  if (std::isnan(value))
    return isDouble ? "(double)NAN" : "NAN";
  if (std::isinf(value)) {
    const char *text = isDouble ? "(double)INFINITY" : "INFINITY";
    return value < 0 ? std::string("(-") + text + ")" : std::string(text);
  }
  // Shortest text that reads back to the same value; locale independent.
  char buffer[64];
  std::to_chars_result result =
      isDouble ? std::to_chars(buffer, buffer + sizeof(buffer), value)
               : std::to_chars(buffer, buffer + sizeof(buffer), static_cast<float>(value));
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  if (!isDouble)
    text += "f";
  if (text[0] == '-')
    return "(" + text + ")";
  return text;
}

} // namespace

std::string printInteger(ir::ScalarKind kind, int64_t value) {
  switch (kind) {
  case ir::ScalarKind::Bool: return value ? "true" : "false";
  case ir::ScalarKind::I32:
    if (value == std::numeric_limits<int32_t>::min())
      return "(-2147483647 - 1)";
    return value < 0 ? "(" + std::to_string(value) + ")" : std::to_string(value);
  case ir::ScalarKind::I64:
    if (value == std::numeric_limits<int64_t>::min())
      return "(-9223372036854775807L - 1L)";
    return value < 0 ? "(" + std::to_string(value) + "L)" : std::to_string(value) + "L";
  case ir::ScalarKind::U32: return std::to_string(static_cast<uint32_t>(value)) + "u";
  case ir::ScalarKind::U64: return std::to_string(static_cast<uint64_t>(value)) + "UL";
  case ir::ScalarKind::I8:
  case ir::ScalarKind::I16:
  case ir::ScalarKind::U8:
  case ir::ScalarKind::U16:
    return "((" + std::string(valueTypeName(kind)) + ")" + std::to_string(value) + ")";
  case ir::ScalarKind::F16:
  case ir::ScalarKind::F32:
  case ir::ScalarKind::F64:
    break;
  }
  assert(false && "integer literal of a float kind");
  return "0";
}

std::string constantLiteral(const ir::Op &op) {
  assert(op.kind == ir::OpKind::Const && op.result && "not a constant");
  ir::ScalarKind kind = op.result->type.scalar;
  switch (kind) {
  case ir::ScalarKind::F16: return printFloating(roundToHalf(op.floatAttr), false);
  case ir::ScalarKind::F32: return printFloating(op.floatAttr, false);
  case ir::ScalarKind::F64: return printFloating(op.floatAttr, true);
  case ir::ScalarKind::Bool:
  case ir::ScalarKind::I8:
  case ir::ScalarKind::I16:
  case ir::ScalarKind::I32:
  case ir::ScalarKind::I64:
  case ir::ScalarKind::U8:
  case ir::ScalarKind::U16:
  case ir::ScalarKind::U32:
  case ir::ScalarKind::U64:
    return printInteger(kind, op.intAttr);
  }
  return "0";
}

// ---- identifiers --------------------------------------------------------------------------

namespace {

// OpenCL C keywords and type names, and the built-in functions most likely to be shadowed by a
// kernel's variable names (a local named `sqrt` would hide the built-in in its scope).
const char *const kReservedNames[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "uchar",
    "ushort", "uint", "ulong", "half", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
    "kernel", "global", "local", "constant", "private", "generic", "read_only", "write_only",
    "read_write", "image1d_t", "image2d_t", "image3d_t", "sampler_t", "event_t", "complex",
    "imaginary", "NAN", "INFINITY", "HUGE_VALF", "MAXFLOAT", "M_PI", "M_PI_F", "M_E", "M_E_F",
    // math
    "fabs", "exp", "expm1", "exp2", "exp10", "log", "log10", "log1p", "log2", "logb", "sqrt",
    "rsqrt", "cbrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "sinpi", "cospi", "tanpi", "asinpi", "acospi",
    "atanpi", "atan2pi", "sincos", "floor", "ceil", "trunc", "round", "rint", "copysign",
    "pow", "pown", "powr", "rootn", "fmod", "remainder", "remquo", "modf", "frexp", "ldexp",
    "ilogb", "erf", "erfc", "tgamma", "lgamma", "lgamma_r", "hypot", "fma", "mad", "fmin",
    "fmax", "fdim", "fract", "nan", "nextafter", "isnan", "isinf", "isfinite", "isnormal",
    "signbit", "isequal", "isnotequal", "isgreater", "isless", "isordered", "isunordered",
    "min", "max", "abs", "abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "clamp", "clz",
    "popcount", "rotate", "mad24", "mul24", "mad_hi", "mul_hi", "mad_sat", "upsample",
    "degrees", "radians", "mix", "step", "smoothstep", "sign", "dot", "cross", "distance",
    "length", "normalize", "fast_distance", "fast_length", "fast_normalize", "any", "all",
    "bitselect", "select", "shuffle", "shuffle2", "vec_step", "printf", "prefetch",
    // synchronization, atomics, work-items
    "barrier", "mem_fence", "read_mem_fence", "write_mem_fence", "work_group_barrier",
    "atomic_add", "atomic_sub", "atomic_xchg", "atomic_inc", "atomic_dec", "atomic_cmpxchg",
    "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor", "atom_add",
    "atom_sub", "atom_xchg", "atom_inc", "atom_dec", "atom_cmpxchg", "atom_min", "atom_max",
    "atom_and", "atom_or", "atom_xor", "get_work_dim", "get_global_id", "get_local_id",
    "get_group_id", "get_global_size", "get_local_size", "get_num_groups",
    "get_global_offset", "vload_half", "vstore_half", "vstore_half_rte", "vstore_half_rtz",
    "async_work_group_copy", "wait_group_events", "main"};

} // namespace

bool isReservedIdentifier(const std::string &name) {
  static const std::unordered_set<std::string> *reserved = [] {
    auto *set = new std::unordered_set<std::string>();
    for (const char *name : kReservedNames)
      set->insert(name);
    return set;
  }();
  if (reserved->count(name))
    return true;
  // Prefixes of built-in families and of the emitter's own helpers and generated names.
  static const char *const kReservedPrefixes[] = {"__",     "dpk_",   "convert_", "as_",
                                                  "vload",  "vstore", "native_",  "half_",
                                                  "atomic_", "atom_", "get_",     "CLK_",
                                                  "cl_",    "CL_"};
  for (const char *prefix : kReservedPrefixes)
    if (name.compare(0, std::strlen(prefix), prefix) == 0)
      return true;
  return false;
}

std::string sanitizeIdentifier(const std::string &name) {
  std::string out;
  for (char c : name) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out.push_back(alnum || c == '_' ? c : '_');
  }
  if (!out.empty() && out[0] >= '0' && out[0] <= '9')
    out = "v" + out;
  return out;
}

} // namespace dpk::opencl_c

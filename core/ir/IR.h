// IR.h - dpk's kernel IR: types, values, ops, regions, functions, modules.
//
// The IR is small, typed and structured:
//  - SSA values are defined once (by an op result, a function parameter or a loop induction
//    variable) and never reassigned. Mutable variables are private memory: `alloca` then
//    load/store; LLVM's mem2reg/SROA and the OpenCL C emitter's locals make that free.
//  - Control flow is structured (if / for / while / break / continue / return), so a kernel is
//    a tree. Barrier splitting on the CPU and the OpenCL C emitter are tree walks.
//  - Every region is a single block: a list of ops. A block argument exists only as the `for`
//    induction variable.
//
// Index space: dimension 0 is the slowest varying (row-major linear ids), as in SYCL and kapi.
//
// Ownership: a Module owns its Functions; a Function owns every Value defined in it and its
// body Block; a Block owns its Ops; an Op owns its Regions. Values are referenced by raw
// pointer and live as long as their Function.
#ifndef DPK_CORE_IR_IR_H
#define DPK_CORE_IR_IR_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dpk::ir {

enum class OpKind : uint8_t {
#define DPK_OP(Kind, Name, Category) Kind,
#include "ir/Ops.def"
};

enum class OpCategory : uint8_t { Value, Binary, Unary, Memory, Atomic, WorkItem, Control, Terminator };

/// The op's spelling in IR text ("add", "view_load", ...).
const char *opName(OpKind kind);
OpCategory opCategory(OpKind kind);

// ---- limits --------------------------------------------------------------------------------

/// Regions nest at most this deep in one function: the ops of a function's body are at depth
/// 0, the ops of an `if`, `for` or `while` region there at depth 1, and so on. The parser and
/// the verifier enforce it, so a pass over a verified module may recurse over regions without
/// exhausting the stack (docs/ir.md, "Limits").
constexpr unsigned kMaxRegionDepth = 256;
/// The largest Function::minGroupsPerComputeUnit (no device holds more work-groups per unit).
constexpr uint32_t kMaxGroupsPerComputeUnit = 64;
/// A chain of calls holds at most this many functions (a kernel calling @f calling @g is 3).
/// The verifier enforces it, for passes that follow calls.
constexpr unsigned kMaxCallDepth = 256;

// ---- types -------------------------------------------------------------------------------

enum class ScalarKind : uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64 };

enum class AddressSpace : uint8_t { Global, Local, Private, Constant, Generic };

enum class TypeKind : uint8_t {
  Void,    // no value (function returns nothing)
  Scalar,  // bool, integers, floats; f16 is storage only: arithmetic promotes to f32
  Pointer, // pointer to scalar elements in an address space
  View     // n-D array view: pointer + shape[rank] + strides[rank] (in elements, i64)
};

/// A type is a small value: compare with ==. Pointers and views point to scalars only.
struct Type {
  TypeKind kind = TypeKind::Void;
  ScalarKind scalar = ScalarKind::I64; // element type for Pointer and View
  AddressSpace space = AddressSpace::Global;
  uint8_t rank = 0;                    // View only, 1..3

  static Type voidTy() { return {}; }
  static Type scalarTy(ScalarKind s) { return {TypeKind::Scalar, s, AddressSpace::Private, 0}; }
  static Type pointerTy(AddressSpace sp, ScalarKind elem) { return {TypeKind::Pointer, elem, sp, 0}; }
  static Type viewTy(AddressSpace sp, ScalarKind elem, unsigned rank) {
    return {TypeKind::View, elem, sp, static_cast<uint8_t>(rank)};
  }

  bool isVoid() const { return kind == TypeKind::Void; }
  bool isScalar() const { return kind == TypeKind::Scalar; }
  bool isPointer() const { return kind == TypeKind::Pointer; }
  bool isView() const { return kind == TypeKind::View; }
  bool isBool() const { return isScalar() && scalar == ScalarKind::Bool; }
  bool isInteger() const; // signed or unsigned integer scalar (not bool)
  bool isSigned() const;  // signed integer scalar
  bool isFloat() const;   // f16, f32, f64 scalar
  /// The element type of a pointer or view as a scalar type.
  Type elementType() const { return scalarTy(scalar); }

  bool operator==(const Type &o) const {
    if (kind != o.kind) return false;
    switch (kind) {
    case TypeKind::Void: return true;
    case TypeKind::Scalar: return scalar == o.scalar;
    case TypeKind::Pointer: return scalar == o.scalar && space == o.space;
    case TypeKind::View: return scalar == o.scalar && space == o.space && rank == o.rank;
    }
    return false;
  }
  bool operator!=(const Type &o) const { return !(*this == o); }
};

/// Size in bytes of a scalar kind (bool is 1).
unsigned scalarSize(ScalarKind s);
const char *scalarName(ScalarKind s);   // "f32", "i64", "bool", ...
const char *addressSpaceName(AddressSpace s); // "global", "local", ...
/// IR text spelling: "f32", "ptr<global, f32>", "view<local, f64, 2>", "void".
std::string typeToString(const Type &t);

// ---- attributes ---------------------------------------------------------------------------

enum class CmpPredicate : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

// Math functions. Unless noted: 1 float operand, result of the same type.
// Two operands: Atan2, Copysign, Pow, Fmod, Hypot, Min, Max, Ldexp (float, i32).
// Min, Max, Abs also accept integers. IsNan, IsInf return bool. Popcount takes an integer
// only (the number of set bits of its bit pattern, in the operand's type).
// New functions go at the end, so existing enum values stay (tests/_core.pyi.ref pins them).
#define DPK_MATH_FUNCTIONS(X)                                                                  \
  X(Fabs, "fabs", 1) X(Exp, "exp", 1) X(Expm1, "expm1", 1) X(Exp2, "exp2", 1) X(Log, "log", 1)  \
  X(Log10, "log10", 1) X(Log1p, "log1p", 1) X(Log2, "log2", 1) X(Sqrt, "sqrt", 1)              \
  X(Sin, "sin", 1) X(Cos, "cos", 1) X(Tan, "tan", 1) X(Asin, "asin", 1) X(Acos, "acos", 1)     \
  X(Atan, "atan", 1) X(Atan2, "atan2", 2) X(Sinh, "sinh", 1) X(Cosh, "cosh", 1)                \
  X(Tanh, "tanh", 1) X(Asinh, "asinh", 1) X(Acosh, "acosh", 1) X(Atanh, "atanh", 1)            \
  X(Floor, "floor", 1) X(Ceil, "ceil", 1) X(Trunc, "trunc", 1) X(Copysign, "copysign", 2)      \
  X(Pow, "pow", 2) X(Fmod, "fmod", 2) X(Erf, "erf", 1) X(Erfc, "erfc", 1)                      \
  X(Tgamma, "tgamma", 1) X(Lgamma, "lgamma", 1) X(Ldexp, "ldexp", 2) X(Hypot, "hypot", 2)      \
  X(IsNan, "isnan", 1) X(IsInf, "isinf", 1) X(Min, "min", 2) X(Max, "max", 2) X(Abs, "abs", 1) \
  X(Popcount, "popcount", 1)

enum class MathFn : uint8_t {
#define DPK_MATH_ENUM(Kind, Name, Arity) Kind,
  DPK_MATH_FUNCTIONS(DPK_MATH_ENUM)
#undef DPK_MATH_ENUM
};
const char *mathFnName(MathFn fn);
unsigned mathFnArity(MathFn fn);

enum class AtomicRmwKind : uint8_t { Add, Sub, Min, Max, And, Or, Xor, Exchange };
// Memory orders and scopes as in SYCL / kapi.
enum class MemoryOrder : uint8_t { Relaxed, Acquire, Release, AcqRel, SeqCst };
enum class MemoryScope : uint8_t { WorkItem, SubGroup, WorkGroup, Device, System };

/// A source location carried from the frontend (Python file and line) for error messages.
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;
};

// ---- values, ops, blocks ------------------------------------------------------------------

struct Op;
struct Function;

/// An SSA value: an op result, a function parameter, or a `for` induction variable.
struct Value {
  Type type;
  unsigned id = 0;      // unique within its function; the printer's %N
  std::string name;     // optional readable name (printed %name when unique)
  Op *definingOp = nullptr; // null for parameters and induction variables
};

/// An ordered list of ops. Every region of an op is exactly one Block.
struct Block {
  std::vector<Value *> args; // only the `for` body has one: the induction variable
  std::vector<std::unique_ptr<Op>> ops;
};

struct Op {
  OpKind kind;
  Value *result = nullptr; // null for ops without a result
  std::vector<Value *> operands;
  std::vector<Block> regions;
  SourceLoc loc;

  // Attributes; which ones are meaningful depends on kind (see Ops.def).
  int64_t intAttr = 0;      // Const (integer/bool), Alloca/LocalAlloc count, dims of builtins and views
  double floatAttr = 0.0;   // Const (float)
  CmpPredicate predicate = CmpPredicate::Eq;
  MathFn mathFn = MathFn::Fabs;
  AtomicRmwKind rmwKind = AtomicRmwKind::Add;
  MemoryOrder order = MemoryOrder::Relaxed;
  MemoryScope scope = MemoryScope::Device;
  std::string callee;       // Call: the called function's name
  // Load/Store: the alignment (bytes) the address is promised to have; 0: the element's size.
  int64_t align = 0;
};

struct Function {
  std::string name;
  bool isKernel = false;   // kernels return void and are launchable
  Type returnType;         // Void for kernels
  std::vector<Value *> params;
  Block body;
  std::vector<std::unique_ptr<Value>> values; // owns every Value of this function
  SourceLoc loc;

  /// Creates a value owned by this function with the next id.
  Value *newValue(Type type, std::string name = {});

  /// An external device function (`extern func @name(...) -> T`, no body): its definition
  /// comes from a linked file (CompileOptions::linkInputs; docs/linking.md). It is called like
  /// any device function but is never inlined by dpk; its name is the symbol every target links
  /// against, so it must be a C identifier (the verifier's rule). Its body stays empty.
  bool isExternal = false;
  /// Kernels: at least this many work-groups should be resident on one compute unit at once
  /// (`min_groups_per_cu(N)` in the text form; 0 = no request). Targets that allocate
  /// registers per kernel limit them to make room where the work-group size is known when
  /// compiling (PTX: `.maxntid` and `.minnctapersm`); the others ignore it. A performance
  /// hint only: the kernel means the same with or without it.
  uint32_t minGroupsPerComputeUnit = 0;

  /// Destroys the body without recursing once per nesting level (IR.cpp says why). Moves stay
  /// as the compiler writes them (a declared destructor would otherwise remove them).
  ~Function();
  Function() = default;
  Function(Function &&) = default;
  Function &operator=(Function &&) = default;
};

struct Module {
  std::vector<std::unique_ptr<Function>> functions;
  Function *lookup(const std::string &name) const;
};

} // namespace dpk::ir

#endif // DPK_CORE_IR_IR_H

// Emitter.h - internal state and helpers of the OpenCL C emitter, shared by its .cpp files.
//
// Types.cpp prints types and literals, Builtins.cpp maps work-item builtins, math, atomics,
// fences and barriers, Statements.cpp walks a function's structured body, and
// OpenCLCEmitter.cpp orders functions and assembles the translation unit.
#ifndef DPK_CORE_OPENCL_C_EMITTER_H
#define DPK_CORE_OPENCL_C_EMITTER_H

#include "compiler/Compiler.h"
#include "ir/IR.h"
#include "support/Error.h"

#include <array>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace dpk::opencl_c {

// ---- types and literals (Types.cpp) -------------------------------------------------------

/// The OpenCL C type holding a value of `kind` in a variable. f16 values live in `float`
/// (every half is exactly a float; without cl_khr_fp16 `half` cannot name a variable).
const char *valueTypeName(ir::ScalarKind kind);
/// The OpenCL C element type in memory: bool is `uchar` (bool is not allowed in buffers or
/// kernel arguments), f16 is `half` (accessed with vload_half / vstore_half).
const char *storageTypeName(ir::ScalarKind kind);
/// "__global", "__local", "__private", "__constant"; generic maps to "__global" (OpenCL C 1.2
/// has no generic address space).
const char *addressSpaceQualifier(ir::AddressSpace space);
/// "__global float *" for ptr<global, f32> (with the trailing space-star).
std::string pointerTypeName(const ir::Type &type);
/// The declaration type of a value: value type for scalars, pointer type for pointers.
std::string declarationTypeName(const ir::Type &type);
/// An integer literal of `kind` (bool: true/false); negative numbers are parenthesized.
std::string printInteger(ir::ScalarKind kind, int64_t value);
/// The C expression of a `const` op; negative numbers are parenthesized.
std::string constantLiteral(const ir::Op &op);
/// Rounds a double to the nearest f16 value (ties to even) and returns it as a double.
double roundToHalf(double value);

// ---- the module being emitted -------------------------------------------------------------

/// The OpenCL C expressions that make up a view value after ABI expansion.
struct ViewParts {
  std::string pointer;
  std::array<std::string, 3> shape;
  std::array<std::string, 3> strides;
};

/// Module-wide facts collected while emitting functions: what the preamble must enable and
/// which helper functions it must define. Ordered containers keep the output deterministic.
struct ModuleState {
  const ir::Module *module = nullptr;
  compiler::CompileOptions options;
  unsigned dims = 1; // launch dimensionality used for the index reversal
  bool specializedLocalSize = false;
  bool needsFp64 = false;
  bool needsInt64BaseAtomics = false;
  bool needsInt64ExtendedAtomics = false;
  std::map<std::string, std::string> helpers; // name -> definition
  std::map<std::string, std::string> functionNames; // IR name -> OpenCL C name

  /// Adds a helper definition once; returns its name.
  const std::string &addHelper(const std::string &name, const std::string &definition);
  const std::string &functionName(const std::string &irName) const;
};

/// Names that must not be used for locals or device functions: keywords, types and the
/// built-in functions the emitter or user code may call.
bool isReservedIdentifier(const std::string &name);
/// A C identifier made of `name` (invalid characters replaced), or "" when nothing is left.
std::string sanitizeIdentifier(const std::string &name);

// ---- builtins (Builtins.cpp) --------------------------------------------------------------

/// `(long)get_global_id(k)` etc. with the dimension reversed; a constant for local_size when
/// the local size is specialized.
std::string workItemExpression(ModuleState &state, const ir::Op &op);
/// The expression of a math op over already-printed operands.
Expected<std::string> mathExpression(ModuleState &state, const ir::Op &op,
                                     const std::vector<std::string> &operands);
/// Flags of barrier()/mem_fence() for a fence scope.
const char *fenceFlags(ir::MemoryScope scope);
/// A statement list (each line without indentation) implementing a fence; may be empty.
std::vector<std::string> fenceStatements(ir::MemoryOrder order, ir::MemoryScope scope);

/// An atomic op (rmw, load, store, cmpxchg) over printed operands. `address` is the printed
/// element pointer ("(p + i)"). The returned expression yields the old/loaded value (or is a
/// statement expression for stores); `before`/`after` receive fence statements for the order.
struct AtomicLowering {
  std::vector<std::string> before;
  std::string expression;
  std::vector<std::string> after;
};
Expected<AtomicLowering> atomicExpression(ModuleState &state, const ir::Op &op,
                                          const std::string &address,
                                          const std::vector<std::string> &values);

/// Helper that rounds a float or double to the nearest half and returns it as float.
std::string roundToHalfHelper(ModuleState &state, ir::ScalarKind from);

// ---- functions (Statements.cpp) -----------------------------------------------------------

/// Emits the signature ("void f(...)", "__kernel void k(...)") of `function`.
std::string functionSignature(ModuleState &state, const ir::Function &function);
/// Emits the whole definition of `function`.
Expected<std::string> emitFunction(ModuleState &state, const ir::Function &function);

/// DPK_ERROR_UNSUPPORTED naming the function and op.
Error unsupported(const ir::Function &function, const ir::Op &op, const std::string &why);

} // namespace dpk::opencl_c

#endif // DPK_CORE_OPENCL_C_EMITTER_H

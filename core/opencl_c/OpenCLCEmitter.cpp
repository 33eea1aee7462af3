// OpenCLCEmitter.cpp - assembles the OpenCL C translation unit: extension pragmas, helpers,
// prototypes and device functions (callees first), then kernels.
#include "opencl_c/OpenCLCEmitter.h"

#include "ir/LaunchDimensions.h"
#include "opencl_c/Emitter.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

namespace dpk::opencl_c {

const std::string &ModuleState::addHelper(const std::string &name,
                                          const std::string &definition) {
  helpers.emplace(name, definition);
  return helpers.find(name)->first;
}

const std::string &ModuleState::functionName(const std::string &irName) const {
  auto found = functionNames.find(irName);
  assert(found != functionNames.end() && "function was not named before emission");
  return found->second;
}

namespace {

void collectCallees(const ir::Block &block, std::vector<std::string> &callees) {
  for (const auto &op : block.ops) {
    if (op->kind == ir::OpKind::Call)
      callees.push_back(op->callee);
    for (const ir::Block &region : op->regions)
      collectCallees(region, callees);
  }
}

bool usesDouble(const ir::Function &function) {
  auto isDouble = [](const ir::Type &type) {
    return !type.isVoid() && type.scalar == ir::ScalarKind::F64;
  };
  if (isDouble(function.returnType))
    return true;
  for (const auto &value : function.values)
    if (isDouble(value->type))
      return true;
  return false;
}

// Device functions reachable from the kernels, callees before callers (post-order of a depth
// first walk in module order, so the result is deterministic).
Expected<std::vector<const ir::Function *>> reachableDeviceFunctions(const ir::Module &module) {
  std::vector<const ir::Function *> order;
  std::unordered_set<const ir::Function *> visited;
  Error failure;
  std::function<void(const ir::Function &)> visit = [&](const ir::Function &function) {
    std::vector<std::string> callees;
    collectCallees(function.body, callees);
    for (const std::string &name : callees) {
      const ir::Function *callee = module.lookup(name);
      if (!callee) {
        if (!failure)
          failure = Error(DPK_ERROR_UNSUPPORTED, "opencl-c: function @" + function.name +
                                                     " calls unknown function @" + name);
        continue;
      }
      if (!visited.insert(callee).second)
        continue;
      visit(*callee);
      order.push_back(callee);
    }
  };
  for (const auto &function : module.functions)
    if (function->isKernel)
      visit(*function);
  if (failure)
    return failure;
  return order;
}

} // namespace

Expected<std::string> emitOpenCLC(const ir::Module &module,
                                  const compiler::CompileOptions &options) {
  Expected<std::vector<const ir::Function *>> deviceFunctions = reachableDeviceFunctions(module);
  if (!deviceFunctions)
    return deviceFunctions.takeError();
  std::vector<const ir::Function *> kernels;
  for (const auto &function : module.functions)
    if (function->isKernel)
      kernels.push_back(function.get());

  ModuleState state;
  state.module = &module;
  state.options = options;

  // Launch dimensionality: the option, or the dimensions the kernels use (at least 1), the
  // same count the LLVM targets compile for (compiler::kernelDims).
  unsigned used = ir::dimensionsUsed(module);
  if (options.dims > 3)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "opencl-c: dims must be 0 (infer) or 1..3, not " + std::to_string(options.dims));
  if (options.dims != 0 && options.dims < used)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "opencl-c: the module indexes work-item dimension " +
                     std::to_string(used - 1) + ", so it needs " + std::to_string(used) +
                     " launch dimensions, but is compiled for " + std::to_string(options.dims));
  state.dims = options.dims ? options.dims : std::max(used, 1u);
  state.specializedLocalSize = true;
  for (unsigned d = 0; d < state.dims; ++d)
    state.specializedLocalSize &= options.localSize[d] != 0;

  // Names: kernels keep theirs (the runtime looks them up); device functions keep theirs
  // unless that would clash with an OpenCL C keyword or built-in.
  std::unordered_set<std::string> taken;
  for (const ir::Function *kernel : kernels) {
    state.functionNames[kernel->name] = kernel->name;
    taken.insert(kernel->name);
  }
  // External functions keep their names too: a linked .cl file defines them by that name.
  for (const ir::Function *function : *deviceFunctions) {
    if (!function->isExternal)
      continue;
    state.functionNames[function->name] = function->name;
    taken.insert(function->name);
  }
  for (const ir::Function *function : *deviceFunctions) {
    if (function->isExternal)
      continue;
    std::string base = sanitizeIdentifier(function->name);
    if (base.empty() || isReservedIdentifier(base))
      base = "dpk_fn_" + base;
    std::string name = base;
    for (unsigned suffix = 1; taken.count(name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    taken.insert(name);
    state.functionNames[function->name] = name;
  }

  std::string definitions;
  std::string prototypes;
  for (const ir::Function *function : *deviceFunctions) {
    state.needsFp64 |= usesDouble(*function);
    prototypes += functionSignature(state, *function) + ";\n";
    if (function->isExternal)
      continue; // defined by a linked file (compiler/Link.h)
    Expected<std::string> text = emitFunction(state, *function);
    if (!text)
      return text.takeError();
    definitions += "\n" + *text;
  }
  for (const ir::Function *kernel : kernels) {
    state.needsFp64 |= usesDouble(*kernel);
    Expected<std::string> text = emitFunction(state, *kernel);
    if (!text)
      return text.takeError();
    definitions += "\n" + *text;
  }

  std::string source = "// OpenCL C 1.2 generated by dpk from core IR.\n";
  if (state.dims == 1) {
    source += "// Index mapping: 1-D launch; dpk dimension 0 is OpenCL dimension 0.\n";
  } else {
    source += "// Index mapping: " + std::to_string(state.dims) +
              "-D launch; dpk dimension d is OpenCL dimension " + std::to_string(state.dims - 1) +
              "-d: launch with the global and local sizes reversed.\n";
  }
  // A multiply then an add may become one fma (one rounding), as on every other target: the
  // host and PTX code generators contract (HostCompile.cpp, PtxTarget.cpp), as OpenCL C's
  // default, CUDA and GCC's -ffp-contract=fast do; said explicitly, not left to the default.
  source += "#pragma OPENCL FP_CONTRACT ON\n";
  if (state.needsFp64)
    source += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  if (state.needsInt64BaseAtomics)
    source += "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n";
  if (state.needsInt64ExtendedAtomics)
    source += "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n";
  for (const auto &helper : state.helpers)
    source += "\n" + helper.second;
  if (!prototypes.empty())
    source += "\n" + prototypes;
  source += definitions;
  return source;
}

} // namespace dpk::opencl_c

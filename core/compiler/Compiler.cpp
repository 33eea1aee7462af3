// Compiler.cpp - compileModule(): dispatch to the target, and level-4 dumps of the input IR.
#include "compiler/Compiler.h"
#include "compiler/BoundsCheck.h"
#include "compiler/Link.h"
#include "compiler/RangeGuard.h"
#include "compiler/Targets.h"
#include "ir/LaunchDimensions.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <algorithm>

#ifdef DPK_HAVE_OPENCL_C
#include "opencl_c/OpenCLCEmitter.h"
#endif

namespace dpk::compiler {

const char *targetName(TargetKind target) {
  switch (target) {
  case TargetKind::Host: return "host";
  case TargetKind::SpirV: return "spirv";
  case TargetKind::OpenCLC: return "opencl-c";
  case TargetKind::Ptx: return "ptx";
  }
  return "unknown";
}

namespace {

Expected<std::vector<uint8_t>> compileOpenCLC(const ir::Module &module,
                                              const CompileOptions &options) {
#ifdef DPK_HAVE_OPENCL_C
  Expected<std::string> source = opencl_c::emitOpenCLC(module, options);
  if (!source) return source.takeError();
  if (!options.linkInputs.empty() || !reachedExternals(module).empty()) {
    source = linkOpenCLCInputs(module, options, std::move(*source));
    if (!source) return source.takeError();
  }
  dumpStage(options, dumpName(module), "cl", *source);
  return std::vector<uint8_t>(source->begin(), source->end());
#else
  (void)module;
  (void)options;
  return Error(DPK_ERROR_UNSUPPORTED, "this build has no OpenCL C emitter");
#endif
}

} // namespace

Expected<Artifact> compileModule(const ir::Module &module, const CompileOptions &options) {
  if (options.boundsCheck) {
    // The checks go into a copy (the printer's round trip is exact, locations included), which
    // is then compiled like any module.
    ir::PrintOptions withLocations;
    withLocations.locations = true;
    Expected<std::unique_ptr<ir::Module>> copy =
        ir::parseModule(ir::printModule(module, withLocations), dumpName(module));
    if (!copy)
      return Error(DPK_ERROR_GENERIC, "internal: copying the module for bounds checks: " +
                                          copy.takeError().message());
    insertBoundsChecks(**copy);
    CompileOptions checked = options;
    checked.boundsCheck = false;
    return compileModule(**copy, checked);
  }
  if (options.dims > 3)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "launch dimensionality " + std::to_string(options.dims) + " is not 1, 2 or 3");
  if (options.rangeGuard != RangeGuardKind::None) {
    // Range kernels in pieces (RangeGuard.h) are compiled from a copy too, after any bounds
    // checks, so the sizes and offsets are the last launch arguments.
    ir::PrintOptions withLocations;
    withLocations.locations = true;
    Expected<std::unique_ptr<ir::Module>> copy =
        ir::parseModule(ir::printModule(module, withLocations), dumpName(module));
    if (!copy)
      return Error(DPK_ERROR_GENERIC, "internal: copying the module for the range guard: " +
                                          copy.takeError().message());
    unsigned dims = options.dims ? options.dims : std::max(ir::dimensionsUsed(module), 1u);
    if (Error error = addRangeGuard(**copy, dims, options.rangeGuard == RangeGuardKind::Guarded))
      return error;
    if (Error error = ir::verifyModule(**copy))
      return Error(DPK_ERROR_GENERIC, "internal: the range guard broke the module: " +
                                          error.message());
    CompileOptions guarded = options;
    guarded.rangeGuard = RangeGuardKind::None;
    return compileModule(**copy, guarded);
  }
  if (!options.dumpDirectory.empty())
    dumpStage(options, dumpName(module), "dpkir", ir::printModule(module));

  Artifact artifact;
  Expected<std::vector<uint8_t>> bytes = std::vector<uint8_t>{};
  switch (options.target) {
  case TargetKind::Host:
    artifact.format = DPK_FORMAT_HOST_NATIVE;
    bytes = compileHost(module, options, Output::Artifact);
    break;
  case TargetKind::SpirV:
    artifact.format = DPK_FORMAT_SPIRV;
    bytes = compileSpirv(module, options, Output::Artifact);
    break;
  case TargetKind::OpenCLC:
    artifact.format = DPK_FORMAT_OPENCL_C;
    bytes = compileOpenCLC(module, options);
    break;
  case TargetKind::Ptx:
    artifact.format = DPK_FORMAT_PTX;
    bytes = compilePtx(module, options, Output::Artifact);
    break;
  }
  if (!bytes) return bytes.takeError();
  artifact.bytes = std::move(*bytes);
  return artifact;
}

} // namespace dpk::compiler

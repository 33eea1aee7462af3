// Compiler.cpp - compileModule(): dispatch to the target, and level-4 dumps of the input IR.
#include "compiler/Compiler.h"
#include "compiler/Targets.h"
#include "ir/Printer.h"

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
  if (options.dims > 3)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "launch dimensionality " + std::to_string(options.dims) + " is not 1, 2 or 3");
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

// program.cpp - program_create over cuModuleLoadDataEx, with the JIT logs carried into errors
// and diagnostics.
#include "program.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace dpk::cuda {

void releaseProgramRef(Program *program) {
  if (!program->releaseRef())
    return;
  if (makeCurrent(program->context->native) == DPK_SUCCESS)
    cu.moduleUnload(program->module);
  releaseContextRef(program->context);
  delete program;
}

dpk_status_t programCreate(dpk_pl_program_t *out, dpk_pl_context_t context, dpk_artifact_format_t format, const void *data,
                           size_t size, const char *options) {
  if (format != DPK_FORMAT_PTX)
    return fail(DPK_ERROR_UNSUPPORTED, "program_create: the CUDA backend accepts PTX only");
  Context &ctx = *toContext(context);
  // The driver reads PTX up to its NUL; copying guarantees one whatever the caller passed.
  std::string ptx(static_cast<const char *>(data), size);
  // Build options are dpk's, not ptxas's; the JIT takes its own from the PTX (.target) and the
  // context (the device's architecture), so none are forwarded.
  (void)options;
  RETURN_ON_FAILURE(makeCurrent(ctx.native));
  constexpr size_t LogSize = 16384;
  std::unique_ptr<char[]> infoLog(new char[LogSize]());
  std::unique_ptr<char[]> errorLog(new char[LogSize]());
  int keys[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  void *values[] = {infoLog.get(), reinterpret_cast<void *>(static_cast<uintptr_t>(LogSize)),
                    errorLog.get(), reinterpret_cast<void *>(static_cast<uintptr_t>(LogSize)),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(1))};
  auto program = std::make_unique<Program>();
  program->context = &ctx;
  CUresult rc = cu.moduleLoadDataEx(&program->module, ptx.c_str(), 5, keys, values);
  infoLog[LogSize - 1] = errorLog[LogSize - 1] = '\0';
  if (rc != CUDA_SUCCESS) {
    std::string log = errorLog.get();
    if (log.empty())
      log = infoLog.get();
    return checkCu(rc, "cuModuleLoadDataEx",
                   "PTX JIT for " + ctx.device->label() + " failed\n" + log);
  }
  if (infoLog[0])
    logDiagnostic(2, "program.build", std::string("cuda JIT: ") + infoLog.get());
  ctx.retain();
  *out = reinterpret_cast<dpk_pl_program_t>(program.release());
  return DPK_SUCCESS;
}

dpk_status_t programRelease(dpk_pl_program_t program) {
  releaseProgramRef(toProgram(program));
  return DPK_SUCCESS;
}

} // namespace dpk::cuda

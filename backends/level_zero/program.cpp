// program.cpp - program_create over zeModuleCreate, with the build log in the error.
#include "program.hpp"

#include <memory>
#include <string>

namespace dpk::level_zero {
namespace {

/// The build log's text; destroys the log handle.
std::string takeBuildLog(ze_module_build_log_handle_t log) {
  if (!log)
    return {};
  std::string text;
  size_t size = 0;
  if (zeModuleBuildLogGetString(log, &size, nullptr) == ZE_RESULT_SUCCESS && size > 1) {
    text.resize(size);
    if (zeModuleBuildLogGetString(log, &size, &text[0]) == ZE_RESULT_SUCCESS)
      text.resize(size > 0 ? size - 1 : 0); // drop the NUL the size counts
    else
      text.clear();
  }
  zeModuleBuildLogDestroy(log);
  return text;
}

} // namespace

void releaseProgramRef(Program *program) {
  if (!program->releaseRef())
    return;
  zeModuleDestroy(program->module);
  releaseContextRef(program->context);
  delete program;
}

dpk_status_t programCreate(dpk_pl_program_t *out, dpk_pl_context_t context, dpk_artifact_format_t format, const void *data,
                           size_t size, const char *options) {
  if (format != DPK_FORMAT_SPIRV)
    return fail(DPK_ERROR_UNSUPPORTED,
                "program_create: the Level Zero backend accepts SPIR-V only");
  Context &ctx = *toContext(context);
  ze_module_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
  desc.inputSize = size;
  desc.pInputModule = static_cast<const uint8_t *>(data);
  // Options go to the driver's compiler as build flags (OpenCL-style, e.g. "-ze-opt-disable").
  desc.pBuildFlags = options;
  auto program = std::make_unique<Program>();
  program->context = &ctx;
  ze_module_build_log_handle_t log = nullptr;
  ze_result_t rc = zeModuleCreate(ctx.native, ctx.device->native, &desc, &program->module, &log);
  std::string text = takeBuildLog(log);
  if (rc != ZE_RESULT_SUCCESS)
    return checkZe(rc, "zeModuleCreate",
                   "SPIR-V build for " + ctx.device->label() + " failed\n" + text);
  if (!text.empty())
    logDiagnostic(2, "program.build", "level_zero build log: " + text);
  ctx.retain();
  *out = reinterpret_cast<dpk_pl_program_t>(program.release());
  return DPK_SUCCESS;
}

dpk_status_t programRelease(dpk_pl_program_t program) {
  releaseProgramRef(toProgram(program));
  return DPK_SUCCESS;
}

} // namespace dpk::level_zero

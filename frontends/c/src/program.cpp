// program.cpp - dpk_program_* and dpk_kernel_* entry points.
#include "ApiGuard.h"

#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace dpk;
using namespace dpk::capi;

namespace {

template <typename Handle, typename Object>
Error giveObject(Handle *out, Expected<runtime::Ref<Object>> &created) {
  if (!created)
    return created.takeError();
  *out = newHandle<Handle>(*created);
  return Error::success();
}

} // namespace

extern "C" {

dpk_status_t dpk_program_create_from_ir(dpk_program_t *out, const char *ir_text, size_t length,
                                        const char *name) {
  return apiEntry("dpk_program_create_from_ir", [&] {
    if (!out)
      return nullArgument("out");
    if (!ir_text)
      return nullArgument("ir_text");
    Expected<runtime::Ref<runtime::Program>> program =
        runtime::Program::fromIr(std::string_view(ir_text, length), name ? name : "");
    return giveObject(out, program);
  });
}

dpk_status_t dpk_program_create_from_ir_with_options(dpk_program_t *out, const char *ir_text,
                                                     size_t length, const char *name,
                                                     const dpk_program_options_t *options) {
  return apiEntry("dpk_program_create_from_ir_with_options", [&] {
    if (!out)
      return nullArgument("out");
    if (!ir_text)
      return nullArgument("ir_text");
    std::optional<bool> boundsCheck;
    std::vector<std::string> linkFiles;
    if (options) {
      // The struct before link_files was appended is still accepted.
      constexpr size_t firstSize = offsetof(dpk_program_options_t, link_files);
      if (options->struct_size < firstSize)
        return Error(DPK_ERROR_INVALID_ARGUMENT,
                     "options->struct_size is " + std::to_string(options->struct_size) +
                         ", expected at least " + std::to_string(firstSize));
      if (options->struct_size >= sizeof(dpk_program_options_t) && options->num_link_files) {
        if (!options->link_files)
          return nullArgument("options->link_files");
        for (size_t i = 0; i < options->num_link_files; ++i) {
          if (!options->link_files[i])
            return Error(DPK_ERROR_INVALID_ARGUMENT,
                         "options->link_files[" + std::to_string(i) + "] is NULL");
          linkFiles.push_back(options->link_files[i]);
        }
      }
      switch (runtime::enumValue(options->boundscheck)) {
      case DPK_BOUNDSCHECK_DEFAULT: break;
      case DPK_BOUNDSCHECK_OFF: boundsCheck = false; break;
      case DPK_BOUNDSCHECK_ON: boundsCheck = true; break;
      default:
        return Error(DPK_ERROR_INVALID_ARGUMENT,
                     "options->boundscheck is " +
                         std::to_string(runtime::enumValue(options->boundscheck)) +
                         "; expected DPK_BOUNDSCHECK_DEFAULT, _OFF or _ON");
      }
    }
    Expected<std::vector<compiler::LinkInput>> linkInputs =
        runtime::Program::readLinkInputs(linkFiles);
    if (!linkInputs)
      return linkInputs.takeError();
    Expected<runtime::Ref<runtime::Program>> program = runtime::Program::fromIr(
        std::string_view(ir_text, length), name ? name : "", boundsCheck,
        std::move(*linkInputs));
    return giveObject(out, program);
  });
}

dpk_status_t dpk_program_create_from_spirv(dpk_program_t *out, dpk_device_t device,
                                           const void *spirv, size_t size) {
  return apiEntry("dpk_program_create_from_spirv", [&] {
    if (!out)
      return nullArgument("out");
    if (!spirv)
      return nullArgument("spirv");
    Expected<runtime::Device *> resolved = toDevice(device);
    if (!resolved)
      return resolved.takeError();
    Expected<runtime::Ref<runtime::Program>> program =
        runtime::Program::fromSpirv(**resolved, spirv, size);
    return giveObject(out, program);
  });
}

dpk_status_t dpk_program_create_from_host(dpk_program_t *out,
                                          const dpk_host_kernel_entry_t *entries,
                                          uint32_t num_entries) {
  return apiEntry("dpk_program_create_from_host", [&] {
    if (!out)
      return nullArgument("out");
    if (!entries && num_entries > 0)
      return nullArgument("entries");
    if (num_entries == 0)
      return Error(DPK_ERROR_INVALID_ARGUMENT, "num_entries is 0: a program needs a kernel");
    Expected<runtime::Ref<runtime::Program>> program =
        runtime::Program::fromHost(entries, num_entries);
    return giveObject(out, program);
  });
}

dpk_status_t dpk_program_retain(dpk_program_t program) {
  return apiEntry("dpk_program_retain", [&] {
    return retainHandle(program, runtime::HandleKind::Program, "program");
  });
}

dpk_status_t dpk_program_release(dpk_program_t program) {
  return apiEntry("dpk_program_release", [&] {
    return releaseHandle(program, runtime::HandleKind::Program, "program");
  });
}

dpk_status_t dpk_kernel_get(dpk_kernel_t *out, dpk_program_t program, const char *name) {
  return apiEntry("dpk_kernel_get", [&] {
    if (!out)
      return nullArgument("out");
    if (!name)
      return nullArgument("name");
    Expected<runtime::Program *> resolved = toProgram(program);
    if (!resolved)
      return resolved.takeError();
    Expected<runtime::Ref<runtime::Kernel>> kernel = runtime::Kernel::create(**resolved, name);
    return giveObject(out, kernel);
  });
}

dpk_status_t dpk_kernel_retain(dpk_kernel_t kernel) {
  return apiEntry("dpk_kernel_retain", [&] {
    return retainHandle(kernel, runtime::HandleKind::Kernel, "kernel");
  });
}

dpk_status_t dpk_kernel_release(dpk_kernel_t kernel) {
  return apiEntry("dpk_kernel_release", [&] {
    return releaseHandle(kernel, runtime::HandleKind::Kernel, "kernel");
  });
}

} // extern "C"

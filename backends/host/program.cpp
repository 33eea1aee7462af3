// program.cpp - program and kernel entry points of the host backend.
#include "program.hpp"

#include "device.hpp"
#include "PluginSupport.h"

#include <memory>

namespace plugin = dpk::plugin;

namespace dpk::host {

dpk_status_t programCreate(dpk_pl_program_t *out, dpk_pl_context_t context, dpk_artifact_format_t format, const void *data,
                           size_t size, const char *options) {
  if (format != DPK_FORMAT_HOST_NATIVE)
    return plugin::fail(DPK_ERROR_UNSUPPORTED,
                        "program_create: the host backend accepts only DPK_FORMAT_HOST_NATIVE artifacts (got format " +
                            std::to_string(format) + ")");
  const auto *module = static_cast<const dpk_host_module_t *>(data);
  if (size < sizeof(dpk_host_module_t) || module->struct_size < sizeof(dpk_host_module_t))
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "program_create: host module is smaller than dpk_host_module_t");
  if (module->num_kernels && !module->kernels)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "program_create: host module has no kernel table");

  auto program = std::make_unique<dpk_pl_program_s>();
  program->entries.reserve(module->num_kernels);
  for (uint32_t i = 0; i < module->num_kernels; ++i) {
    const dpk_host_kernel_entry_t &entry = module->kernels[i];
    if (!entry.name || !entry.fn)
      return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "program_create: kernel entry " + std::to_string(i) + " has no name or function");
    if (entry.kind != DPK_HOST_KERNEL_GROUP && entry.kind != DPK_HOST_KERNEL_ITEM)
      return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, std::string("program_create: kernel '") + entry.name + "' has an unknown kind");
    program->entries.push_back({entry.name, entry});
  }
  // Names are re-pointed only after the vector stopped growing.
  for (auto &stored : program->entries)
    stored.entry.name = stored.name.c_str();
  *out = program.release();
  return DPK_SUCCESS;
}

dpk_status_t programRelease(dpk_pl_program_t program) {
  program->release();
  return DPK_SUCCESS;
}

dpk_status_t kernelCreate(dpk_pl_kernel_t *out, dpk_pl_program_t program, const char *name) {
  for (const auto &stored : program->entries) {
    if (stored.name != name)
      continue;
    program->references.fetch_add(1, std::memory_order_relaxed);
    *out = new dpk_pl_kernel_s{program, stored.entry, stored.cost.get()};
    return DPK_SUCCESS;
  }
  return plugin::fail(DPK_ERROR_NOT_FOUND, std::string("kernel_create: no kernel named '") + name + "' in the program");
}

dpk_status_t kernelRelease(dpk_pl_kernel_t kernel) {
  kernel->program->release();
  delete kernel;
  return DPK_SUCCESS;
}

dpk_status_t kernelMaxWorkGroupSize(uint64_t *out, dpk_pl_kernel_t kernel) {
  const uint64_t *required = kernel->entry.required_local_size;
  if (required[0] || required[1] || required[2]) {
    uint64_t product = 1;
    for (int d = 0; d < 3; ++d)
      product *= required[d] ? required[d] : 1;
    *out = product;
    return DPK_SUCCESS;
  }
  *out = kMaxWorkGroupSize;
  return DPK_SUCCESS;
}

} // namespace dpk::host

// kernel.cpp - kernel entry points.
#include "kernel.hpp"

#include <memory>

namespace dpk::level_zero {

dpk_status_t kernelCreate(dpk_pl_kernel_t *out, dpk_pl_program_t program, const char *name) {
  Program &prog = *toProgram(program);
  auto kernel = std::make_unique<Kernel>();
  kernel->program = &prog;
  kernel->name = name;
  ze_kernel_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
  desc.pKernelName = name;
  ze_result_t rc = zeKernelCreate(prog.module, &desc, &kernel->native);
  if (rc != ZE_RESULT_SUCCESS)
    return checkZe(rc, "zeKernelCreate", std::string("kernel '") + name + "'");
  ze_kernel_properties_t props{};
  props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  if (zeKernelGetProperties(kernel->native, &props) == ZE_RESULT_SUCCESS)
    kernel->numArgs = props.numKernelArgs;
  prog.retain();
  *out = reinterpret_cast<dpk_pl_kernel_t>(kernel.release());
  return DPK_SUCCESS;
}

dpk_status_t kernelRelease(dpk_pl_kernel_t handle) {
  Kernel *kernel = toKernel(handle);
  Program *program = kernel->program;
  zeKernelDestroy(kernel->native);
  delete kernel;
  releaseProgramRef(program);
  return DPK_SUCCESS;
}

dpk_status_t kernelMaxWorkGroupSize(uint64_t *out, dpk_pl_kernel_t handle) {
  // The core API has no per-kernel limit (that is an extension); the device's is the bound.
  *out = toKernel(handle)->program->context->device->compute.maxTotalGroupSize;
  return DPK_SUCCESS;
}

} // namespace dpk::level_zero

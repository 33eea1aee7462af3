// kernel.cpp - kernel entry points.
#include "kernel.hpp"

#include <memory>

namespace dpk::opencl {

dpk_status_t kernelCreate(dpk_pl_kernel_t *out, dpk_pl_program_t program, const char *name) {
  auto kernel = std::make_unique<dpk_pl_kernel_s>();
  kernel->context = program->context;
  kernel->name = name;
  cl_int status = CL_SUCCESS;
  kernel->native = clCreateKernel(program->native, name, &status);
  DPK_RETURN_ON_FAILURE(checkCl(status, "clCreateKernel", std::string("kernel '") + name + "'"));
  CL_RETURN_ON_FAILURE(clGetKernelInfo(kernel->native, CL_KERNEL_NUM_ARGS, sizeof kernel->numArgs,
                                       &kernel->numArgs, nullptr));
  *out = kernel.release();
  return DPK_SUCCESS;
}

dpk_status_t kernelRelease(dpk_pl_kernel_t kernel) {
  delete kernel;
  return DPK_SUCCESS;
}

dpk_status_t kernelMaxWorkGroupSize(uint64_t *out, dpk_pl_kernel_t kernel) {
  size_t size = 0;
  CL_RETURN_ON_FAILURE(clGetKernelWorkGroupInfo(kernel->native, kernel->context->device->native,
                                                CL_KERNEL_WORK_GROUP_SIZE, sizeof size, &size,
                                                nullptr));
  *out = size;
  return DPK_SUCCESS;
}

} // namespace dpk::opencl

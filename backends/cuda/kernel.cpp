// kernel.cpp - kernel entry points.
#include "kernel.hpp"

namespace dpk::cuda {

dpk_status_t kernelCreate(dpk_pl_kernel_t *out, dpk_pl_program_t program, const char *name) {
  Program &prog = *toProgram(program);
  RETURN_ON_FAILURE(makeCurrent(prog.context->native));
  auto kernel = std::make_unique<Kernel>();
  kernel->program = &prog;
  kernel->name = std::make_shared<const std::string>(name);
  CUresult rc = cu.moduleGetFunction(&kernel->function, prog.module, name);
  if (rc != CUDA_SUCCESS)
    return checkCu(rc, "cuModuleGetFunction", std::string("no kernel '") + name + "' in program");
  int dynamicLimit = 0;
  CUDA_RETURN_ON_FAILURE(cu.funcGetAttribute(&kernel->maxThreadsPerBlock,
                                             CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                             kernel->function),
                         "cuFuncGetAttribute");
  CUDA_RETURN_ON_FAILURE(cu.funcGetAttribute(&kernel->staticShared,
                                             CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel->function),
                         "cuFuncGetAttribute");
  CUDA_RETURN_ON_FAILURE(cu.funcGetAttribute(&dynamicLimit,
                                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             kernel->function),
                         "cuFuncGetAttribute");
  kernel->dynamicSharedLimit.store(dynamicLimit);
  const Device &device = *prog.context->device;
  kernel->limits.maxThreads = static_cast<uint64_t>(kernel->maxThreadsPerBlock);
  for (int i = 0; i < 3; ++i) {
    kernel->limits.maxBlock[i] = static_cast<uint64_t>(device.maxBlock[i]);
    kernel->limits.maxGrid[i] = static_cast<uint64_t>(device.maxGrid[i]);
  }
  if (cu.funcGetParamInfo) {
    // Enumerate parameters until the driver says the index is past the end.
    // Any other failure leaves the list unknown rather than wrong.
    for (size_t i = 0;; ++i) {
      size_t offset = 0, size = 0;
      CUresult info = cu.funcGetParamInfo(kernel->function, i, &offset, &size);
      if (info != CUDA_SUCCESS) {
        kernel->paramsKnown = info == CUDA_ERROR_INVALID_VALUE;
        break;
      }
      kernel->paramSizes.push_back(size);
    }
  }
  prog.retain();
  *out = reinterpret_cast<dpk_pl_kernel_t>(kernel.release());
  return DPK_SUCCESS;
}

dpk_status_t kernelRelease(dpk_pl_kernel_t handle) {
  Kernel *kernel = toKernel(handle);
  Program *program = kernel->program;
  delete kernel;
  releaseProgramRef(program);
  return DPK_SUCCESS;
}

dpk_status_t kernelMaxWorkGroupSize(uint64_t *out, dpk_pl_kernel_t handle) {
  *out = static_cast<uint64_t>(toKernel(handle)->maxThreadsPerBlock);
  return DPK_SUCCESS;
}

} // namespace dpk::cuda

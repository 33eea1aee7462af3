// context.cpp - context entry points.
#include "context.hpp"

#include <memory>

dpk_pl_context_s::~dpk_pl_context_s() {
  for (auto &[address, allocation] : allocations)
    dpk::opencl::releaseAllocation(*this, address, allocation);
  if (native)
    clReleaseContext(native);
}

namespace dpk::opencl {

dpk_status_t contextCreate(dpk_pl_context_t *out, dpk_pl_device_t device) {
  auto context = std::make_unique<dpk_pl_context_s>();
  context->device = device;
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(device->platform), 0};
  cl_int status = CL_SUCCESS;
  context->native = clCreateContext(properties, 1, &device->native, nullptr, nullptr, &status);
  DPK_RETURN_ON_FAILURE(checkCl(status, "clCreateContext"));
  *out = context.release();
  return DPK_SUCCESS;
}

dpk_status_t contextRelease(dpk_pl_context_t context) {
  delete context;
  return DPK_SUCCESS;
}

} // namespace dpk::opencl

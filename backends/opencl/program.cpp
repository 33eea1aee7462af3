// program.cpp - programs from SPIR-V (clCreateProgramWithIL) or OpenCL C source, built for the
// context's device with the build log carried into the error.
#include "program.hpp"

#include <memory>

namespace dpk::opencl {
namespace {

std::string buildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
          CL_SUCCESS ||
      size == 0)
    return "(no build log)";
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log.empty() ? "(empty build log)" : log;
}

/// clCreateProgramWithIL is core from OpenCL 2.1; older platforms offer it as the KHR extension.
cl_program createFromIl(dpk_pl_device_t device, cl_context context, const void *data, size_t size,
                        cl_int *status) {
  if (device->clVersion >= 201)
    return clCreateProgramWithIL(context, data, size, status);
  using CreateWithIlKhr = cl_program(CL_API_CALL *)(cl_context, const void *, size_t, cl_int *);
  auto createKhr = reinterpret_cast<CreateWithIlKhr>(
      clGetExtensionFunctionAddressForPlatform(device->platform, "clCreateProgramWithILKHR"));
  if (!createKhr) {
    *status = CL_INVALID_OPERATION;
    return nullptr;
  }
  return createKhr(context, data, size, status);
}

} // namespace

dpk_status_t programCreate(dpk_pl_program_t *out, dpk_pl_context_t context, dpk_artifact_format_t format, const void *data,
                           size_t size, const char *options) {
  dpk_pl_device_t device = context->device;
  if (!(device->props.formats & format))
    return fail(DPK_ERROR_UNSUPPORTED, "program_create: format " +
                                           std::to_string(static_cast<int>(format)) +
                                           " is not accepted by " + device->props.name);
  auto program = std::make_unique<dpk_pl_program_s>();
  program->context = context;
  cl_int status = CL_SUCCESS;
  const char *call = "clCreateProgramWithSource";
  if (format == DPK_FORMAT_SPIRV) {
    call = "clCreateProgramWithIL";
    program->native = createFromIl(device, context->native, data, size, &status);
  } else {
    // OpenCL C text may or may not count its terminating NUL in `size`.
    auto text = static_cast<const char *>(data);
    size_t length = size;
    while (length && text[length - 1] == '\0')
      --length;
    program->native = clCreateProgramWithSource(context->native, 1, &text, &length, &status);
  }
  DPK_RETURN_ON_FAILURE(checkCl(status, call));
  std::string buildOptions = options ? options : "";
  // OpenCL C lets single-precision division and sqrt be off by up to 2.5 and 3 ulp unless the
  // program asks for correct rounding; dpk's results match NumPy's, which rounds correctly.
  // NVIDIA's OpenCL uses the fast forms otherwise (x / 3 differed from NumPy in the last bit);
  // devices able to round correctly say so in CL_DEVICE_SINGLE_FP_CONFIG.
  cl_device_fp_config single = 0;
  if (format == DPK_FORMAT_OPENCL_C &&
      clGetDeviceInfo(device->native, CL_DEVICE_SINGLE_FP_CONFIG, sizeof single, &single,
                      nullptr) == CL_SUCCESS &&
      (single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT))
    buildOptions += " -cl-fp32-correctly-rounded-divide-sqrt";
  status = clBuildProgram(program->native, 1, &device->native, buildOptions.c_str(), nullptr,
                          nullptr);
  if (status != CL_SUCCESS)
    return checkCl(status, "clBuildProgram", buildLog(program->native, device->native));
  *out = program.release();
  return DPK_SUCCESS;
}

dpk_status_t programRelease(dpk_pl_program_t program) {
  delete program;
  return DPK_SUCCESS;
}

} // namespace dpk::opencl

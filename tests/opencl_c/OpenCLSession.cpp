// OpenCLSession.cpp - the OpenCL calls behind OpenCLSession.h.
#include "OpenCLSession.h"

#include <cstdio>
#include <cstdlib>

namespace dpk::testing {
namespace {

std::string &reason() {
  static std::string text;
  return text;
}

std::string failure(const char *call, cl_int status) {
  return std::string(call) + " failed with CL error " + std::to_string(status);
}

} // namespace

OpenCLSession *OpenCLSession::get() {
  static OpenCLSession *session = create();
  return session;
}

const std::string &OpenCLSession::skipReason() { return reason(); }

OpenCLSession *OpenCLSession::create() {
  cl_uint platformCount = 0;
  cl_int status = clGetPlatformIDs(0, nullptr, &platformCount);
  if (status != CL_SUCCESS || platformCount == 0) {
    reason() = "no OpenCL platform (clGetPlatformIDs returned " + std::to_string(status) + ")";
    return nullptr;
  }
  std::vector<cl_platform_id> platforms(platformCount);
  clGetPlatformIDs(platformCount, platforms.data(), nullptr);
  // DPK_OPENCL_TEST_PLATFORM (a substring of the platform name) picks a platform; otherwise
  // PoCL (the CI device for OpenCL C), else the first platform that has a device.
  const char *wanted = std::getenv("DPK_OPENCL_TEST_PLATFORM");
  std::string preferred = wanted && *wanted ? wanted : "Portable Computing Language";
  cl_device_id chosen = nullptr;
  for (int pass = 0; pass < 2 && !chosen; ++pass) {
    if (pass == 1 && wanted && *wanted)
      break; // an explicit choice does not fall back
    for (cl_platform_id platform : platforms) {
      char name[256] = {0};
      clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(name) - 1, name, nullptr);
      bool isPreferred = std::string(name).find(preferred) != std::string::npos;
      if (pass == 0 && !isPreferred)
        continue;
      cl_device_id device = nullptr;
      cl_uint count = 0;
      if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &count) == CL_SUCCESS &&
          count > 0) {
        chosen = device;
        break;
      }
    }
  }
  if (!chosen) {
    reason() = wanted && *wanted ? "no OpenCL platform named like '" + preferred + "' with a device"
                                 : "no OpenCL device on any platform";
    return nullptr;
  }
  auto *session = new OpenCLSession();
  session->device_ = chosen;
  session->context_ = clCreateContext(nullptr, 1, &chosen, nullptr, nullptr, &status);
  if (status != CL_SUCCESS) {
    reason() = failure("clCreateContext", status);
    delete session;
    return nullptr;
  }
  session->queue_ = clCreateCommandQueue(session->context_, chosen, 0, &status);
  if (status != CL_SUCCESS) {
    reason() = failure("clCreateCommandQueue", status);
    delete session;
    return nullptr;
  }
  char name[512] = {0};
  clGetDeviceInfo(chosen, CL_DEVICE_NAME, sizeof(name) - 1, name, nullptr);
  session->deviceName_ = name;
  char platformName[256] = {0};
  cl_platform_id platform = nullptr;
  clGetDeviceInfo(chosen, CL_DEVICE_PLATFORM, sizeof(platform), &platform, nullptr);
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(platformName) - 1, platformName, nullptr);
  std::fprintf(stderr, "[ opencl   ] platform '%s', device '%s'\n", platformName, name);
  return session;
}

cl_program OpenCLSession::build(const std::string &source, std::string &log) {
  const char *text = source.c_str();
  size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &status);
  if (status != CL_SUCCESS) {
    log = failure("clCreateProgramWithSource", status);
    return nullptr;
  }
  status = clBuildProgram(program, 1, &device_, "-cl-std=CL1.2", nullptr, nullptr);
  size_t logSize = 0;
  clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &logSize);
  std::string buildLog(logSize, '\0');
  if (logSize)
    clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, logSize, buildLog.data(),
                          nullptr);
  while (!buildLog.empty() && (buildLog.back() == '\0' || buildLog.back() == '\n'))
    buildLog.pop_back();
  log = buildLog;
  if (status != CL_SUCCESS) {
    log = failure("clBuildProgram", status) + "\n" + buildLog;
    clReleaseProgram(program);
    return nullptr;
  }
  return program;
}

DeviceBuffer OpenCLSession::createBuffer(const void *data, size_t bytes) {
  cl_int status = CL_SUCCESS;
  size_t size = bytes ? bytes : 1;
  cl_mem mem = clCreateBuffer(context_, CL_MEM_READ_WRITE, size, nullptr, &status);
  if (status != CL_SUCCESS)
    return {};
  if (bytes)
    clEnqueueWriteBuffer(queue_, mem, CL_TRUE, 0, bytes, data, 0, nullptr, nullptr);
  return DeviceBuffer(mem, bytes);
}

void OpenCLSession::readBuffer(const DeviceBuffer &buffer, void *out) {
  if (buffer.bytes())
    clEnqueueReadBuffer(queue_, buffer.mem(), CL_TRUE, 0, buffer.bytes(), out, 0, nullptr,
                        nullptr);
}

std::string OpenCLSession::launch(cl_program program, const std::string &name,
                                  const std::vector<KernelArg> &args,
                                  const std::vector<size_t> &global,
                                  const std::vector<size_t> &local) {
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, name.c_str(), &status);
  if (status != CL_SUCCESS)
    return failure("clCreateKernel", status) + " for '" + name + "'";
  for (cl_uint i = 0; i < args.size(); ++i) {
    const KernelArg &arg = args[i];
    switch (arg.kind) {
    case KernelArg::Kind::Buffer: status = clSetKernelArg(kernel, i, sizeof(cl_mem), &arg.mem); break;
    case KernelArg::Kind::Scalar:
      status = clSetKernelArg(kernel, i, arg.bytes.size(), arg.bytes.data());
      break;
    case KernelArg::Kind::Local: status = clSetKernelArg(kernel, i, arg.localBytes, nullptr); break;
    }
    if (status != CL_SUCCESS) {
      clReleaseKernel(kernel);
      return failure("clSetKernelArg", status) + " for argument " + std::to_string(i);
    }
  }
  // dpk dimension d is OpenCL dimension dims-1-d.
  cl_uint dims = static_cast<cl_uint>(global.size());
  size_t clGlobal[3] = {1, 1, 1}, clLocal[3] = {1, 1, 1};
  for (cl_uint d = 0; d < dims; ++d) {
    clGlobal[dims - 1 - d] = global[d];
    if (!local.empty())
      clLocal[dims - 1 - d] = local[d];
  }
  status = clEnqueueNDRangeKernel(queue_, kernel, dims, nullptr, clGlobal,
                                  local.empty() ? nullptr : clLocal, 0, nullptr, nullptr);
  if (status == CL_SUCCESS)
    status = clFinish(queue_);
  clReleaseKernel(kernel);
  if (status != CL_SUCCESS)
    return failure("clEnqueueNDRangeKernel/clFinish", status);
  return {};
}

} // namespace dpk::testing

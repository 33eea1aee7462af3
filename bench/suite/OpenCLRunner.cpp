// OpenCLRunner.cpp - plain OpenCL: buffers, clBuildProgram, clSetKernelArg, NDRange, finish.
#define CL_TARGET_OPENCL_VERSION 300
#include "OpenCLRunner.h"

#include <CL/cl.h>

#include <stdexcept>
#include <vector>

namespace dpk::bench {

struct OpenCLRunner::State {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  std::vector<cl_mem> buffers;
  size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  bool hasLocal = false;
};

static void checkCl(cl_int status, const char *what) {
  if (status != CL_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with OpenCL status " + std::to_string(status));
}

static cl_device_id findDevice(const std::string &platformSubstring) {
  cl_uint count = 0;
  clGetPlatformIDs(0, nullptr, &count);
  std::vector<cl_platform_id> platforms(count);
  if (count)
    clGetPlatformIDs(count, platforms.data(), nullptr);
  for (cl_platform_id platform : platforms) {
    char name[256] = {};
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (std::string(name).find(platformSubstring) == std::string::npos)
      continue;
    cl_device_id device = nullptr;
    cl_uint found = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &found) == CL_SUCCESS && found)
      return device;
  }
  throw std::runtime_error("no OpenCL platform named like '" + platformSubstring + "'");
}

OpenCLRunner::OpenCLRunner(const std::string &platformSubstring, Problem &prob)
    : state(std::make_unique<State>()), problem(prob) {
  std::string source = problem.openclSource();
  if (source.empty())
    throw std::runtime_error(problem.workload + " has no OpenCL baseline");
  State &s = *state;
  s.device = findDevice(platformSubstring);
  cl_int status = CL_SUCCESS;
  s.context = clCreateContext(nullptr, 1, &s.device, nullptr, nullptr, &status);
  checkCl(status, "clCreateContext");
  s.queue = clCreateCommandQueueWithProperties(s.context, s.device, nullptr, &status);
  checkCl(status, "clCreateCommandQueueWithProperties");
  const char *text = source.c_str();
  s.program = clCreateProgramWithSource(s.context, 1, &text, nullptr, &status);
  checkCl(status, "clCreateProgramWithSource");
  if (clBuildProgram(s.program, 1, &s.device, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
    size_t logSize = 0;
    clGetProgramBuildInfo(s.program, s.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &logSize);
    std::string log(logSize, '\0');
    clGetProgramBuildInfo(s.program, s.device, CL_PROGRAM_BUILD_LOG, logSize, log.data(), nullptr);
    throw std::runtime_error("baseline OpenCL C of " + problem.workload + " does not build:\n" + log);
  }
  s.kernel = clCreateKernel(s.program, problem.kernelName.c_str(), &status);
  checkCl(status, "clCreateKernel");
  for (Array &array : problem.arrays) {
    cl_mem buffer = clCreateBuffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, array.bytes(),
                                   array.initial.data(), &status);
    checkCl(status, "clCreateBuffer");
    s.buffers.push_back(buffer);
  }
  cl_uint index = 0;
  for (const ArgSpec &spec : problem.openclArgs()) {
    switch (spec.kind) {
    case ArgSpec::ArrayPointer:
    case ArgSpec::ArrayView: // hand-written baselines take plain buffers and sizes
      checkCl(clSetKernelArg(s.kernel, index++, sizeof(cl_mem), &s.buffers[spec.array]), "clSetKernelArg");
      break;
    case ArgSpec::Scalar:
      checkCl(clSetKernelArg(s.kernel, index++, spec.bytes.size(), spec.bytes.data()), "clSetKernelArg");
      break;
    case ArgSpec::Local:
      checkCl(clSetKernelArg(s.kernel, index++, spec.localBytes, nullptr), "clSetKernelArg");
      break;
    }
  }
  // Hand-written kernels use OpenCL's own order: dimension 0 is the fastest varying, so the
  // dpk range is reversed, exactly as dpk's OpenCL backend does.
  const dpk_launch_config_t &range = problem.range;
  for (uint32_t d = 0; d < range.dims; ++d) {
    s.global[d] = range.global_size[range.dims - 1 - d];
    s.local[d] = range.local_size[range.dims - 1 - d];
    s.hasLocal = s.hasLocal || s.local[d] != 0;
  }
}

OpenCLRunner::~OpenCLRunner() {
  State &s = *state;
  if (s.queue)
    clFinish(s.queue);
  for (cl_mem buffer : s.buffers)
    clReleaseMemObject(buffer);
  if (s.kernel)
    clReleaseKernel(s.kernel);
  if (s.program)
    clReleaseProgram(s.program);
  if (s.queue)
    clReleaseCommandQueue(s.queue);
  if (s.context)
    clReleaseContext(s.context);
}

void OpenCLRunner::run() {
  State &s = *state;
  checkCl(clEnqueueNDRangeKernel(s.queue, s.kernel, problem.range.dims, nullptr, s.global, s.hasLocal ? s.local : nullptr,
                                 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  checkCl(clFinish(s.queue), "clFinish");
}

std::string OpenCLRunner::runAndVerify() {
  State &s = *state;
  for (size_t i = 0; i < problem.arrays.size(); ++i)
    if (problem.arrays[i].isOutput)
      checkCl(clEnqueueWriteBuffer(s.queue, s.buffers[i], CL_TRUE, 0, problem.arrays[i].bytes(),
                                   problem.arrays[i].initial.data(), 0, nullptr, nullptr),
              "clEnqueueWriteBuffer");
  run();
  for (size_t i = 0; i < problem.arrays.size(); ++i)
    if (problem.arrays[i].isOutput)
      checkCl(clEnqueueReadBuffer(s.queue, s.buffers[i], CL_TRUE, 0, problem.arrays[i].bytes(),
                                  problem.arrays[i].data.data(), 0, nullptr, nullptr),
              "clEnqueueReadBuffer");
  return problem.verify();
}

std::string OpenCLRunner::deviceName() const {
  char name[256] = {};
  clGetDeviceInfo(state->device, CL_DEVICE_NAME, sizeof name, name, nullptr);
  return name;
}

} // namespace dpk::bench

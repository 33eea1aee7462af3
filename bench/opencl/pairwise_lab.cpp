// pairwise_lab.cpp - dpk_opencl_pairwise_lab: pairwise-distance OpenCL C kernels (dpk's emitted
// source, the suite's hand-written one, variants) built with each of several option strings and
// timed by OpenCL events on one GPU, in one process, so a gap between dpk's OpenCL path and raw
// OpenCL can be taken apart (issue 18: NVIDIA OpenCL ran dpk's kernel 1.2x slower than raw).
//
//   dpk_opencl_pairwise_lab DIR [N [cpu]]  every DIR/*.cl, N points (default 16384), d = 3, on
//                                          the first GPU (or CPU: a check of the tool itself)
//
// A kernel takes either the raw parameters (x, dist, n, d) or dpk's ABI for two 2-D views
// (x, shape[2], strides[2], dist, shape[2], strides[2]), told apart by its argument count.
// Launch: global (N, N), local (256, 1), dimension 0 the column. Each result is checked on the
// host before it is timed. Options: "-cl-std=CL1.2" and, separately, with
// "-cl-fp32-correctly-rounded-divide-sqrt" added (what dpk's OpenCL backend builds with).
#define CL_TARGET_OPENCL_VERSION 300
#include "../common/PairwiseCheck.h"

#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool ok(cl_int status, const char *what) {
  if (status == CL_SUCCESS)
    return true;
  std::fprintf(stderr, "%s failed: %d\n", what, status);
  return false;
}

struct Gpu {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
};

/// The first device of `type` (a GPU unless the third argument says "cpu": a check here).
bool firstDevice(Gpu &gpu, cl_device_type type) {
  cl_uint platforms = 0;
  clGetPlatformIDs(0, nullptr, &platforms);
  std::vector<cl_platform_id> ids(platforms);
  clGetPlatformIDs(platforms, ids.data(), nullptr);
  for (cl_platform_id platform : ids) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, type, 1, &gpu.device, &count) != CL_SUCCESS ||
        count == 0)
      continue;
    cl_int status = CL_SUCCESS;
    gpu.context = clCreateContext(nullptr, 1, &gpu.device, nullptr, nullptr, &status);
    if (!ok(status, "clCreateContext"))
      return false;
    const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    gpu.queue = clCreateCommandQueueWithProperties(gpu.context, gpu.device, properties, &status);
    return ok(status, "clCreateCommandQueue");
  }
  std::fprintf(stderr, "no OpenCL device of the type asked for\n");
  return false;
}

/// Median GPU time (ms) of `runs` launches, or a negative number when something failed.
double timeKernel(const Gpu &gpu, const std::string &source, const std::string &options, cl_mem x,
                  cl_mem dist, cl_long n, cl_long d, const std::vector<float> &points, int runs) {
  const char *text = source.c_str();
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(gpu.context, 1, &text, nullptr, &status);
  if (!ok(status, "clCreateProgramWithSource"))
    return -1;
  if (clBuildProgram(program, 1, &gpu.device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, gpu.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, gpu.device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    std::fprintf(stderr, "build failed:\n%s\n", log.c_str());
    return -1;
  }
  cl_kernel kernel = nullptr;
  cl_uint kernels = 0;
  clCreateKernelsInProgram(program, 1, &kernel, &kernels);
  cl_uint args = 0;
  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr);
  cl_long one = 1;
  if (args == 4) {
    clSetKernelArg(kernel, 0, sizeof x, &x);
    clSetKernelArg(kernel, 1, sizeof dist, &dist);
    clSetKernelArg(kernel, 2, sizeof n, &n);
    clSetKernelArg(kernel, 3, sizeof d, &d);
  } else if (args == 10) {
    const cl_long xViews[4] = {n, d, d, one}, distViews[4] = {n, n, n, one};
    clSetKernelArg(kernel, 0, sizeof x, &x);
    for (int i = 0; i < 4; ++i) clSetKernelArg(kernel, 1 + i, sizeof(cl_long), &xViews[i]);
    clSetKernelArg(kernel, 5, sizeof dist, &dist);
    for (int i = 0; i < 4; ++i) clSetKernelArg(kernel, 6 + i, sizeof(cl_long), &distViews[i]);
  } else {
    std::fprintf(stderr, "kernel with %u arguments: neither raw (4) nor dpk's views (10)\n", args);
    return -1;
  }
  size_t global[2] = {size_t(n), size_t(n)}, local[2] = {256, 1};
  auto launch = [&](cl_event *event) {
    return clEnqueueNDRangeKernel(gpu.queue, kernel, 2, nullptr, global, local, 0, nullptr, event);
  };
  if (!ok(launch(nullptr), "clEnqueueNDRangeKernel") || !ok(clFinish(gpu.queue), "clFinish"))
    return -1;
  std::vector<float> result(size_t(n) * size_t(n));
  clEnqueueReadBuffer(gpu.queue, dist, CL_TRUE, 0, result.size() * 4, result.data(), 0, nullptr,
                      nullptr);
  auto [i, j] = dpk::bench::pairwiseMismatch(points.data(), result.data(), n, d);
  if (i >= 0) {
    std::fprintf(stderr, "wrong result at (%lld, %lld)\n", i, j);
    return -1;
  }
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    cl_event event = nullptr;
    launch(&event);
    clWaitForEvents(1, &event);
    cl_ulong start = 0, end = 0;
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    clReleaseEvent(event);
    times.push_back(double(end - start) * 1e-6);
  }
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [N [cpu]]\n", argv[0]);
    return 2;
  }
  const cl_long n = argc > 2 ? std::stol(argv[2]) : 16384, d = 3;
  Gpu gpu;
  cl_device_type type = argc > 3 && std::string(argv[3]) == "cpu" ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
  if (!firstDevice(gpu, type))
    return 1;
  std::vector<float> points(size_t(n * d));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (float &v : points) v = float(uniform(rng));
  cl_int status = CL_SUCCESS;
  cl_mem x = clCreateBuffer(gpu.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            points.size() * 4, points.data(), &status);
  cl_mem dist = clCreateBuffer(gpu.context, CL_MEM_READ_WRITE, size_t(n) * size_t(n) * 4, nullptr,
                               &status);
  if (!ok(status, "clCreateBuffer"))
    return 1;
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(argv[1]))
    if (entry.path().extension() == ".cl") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  const std::string options[] = {"-cl-std=CL1.2",
                                 "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"};
  std::printf("n=%lld, d=3, local 256x1, median of 21 GPU times (ms)\n", (long long)n);
  for (const auto &file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    for (const std::string &option : options) {
      double ms = timeKernel(gpu, text.str(), option, x, dist, n, d, points, 21);
      std::printf("%-28s %-54s %8.3f\n", file.filename().c_str(), option.c_str(), ms);
    }
  }
  return 0;
}

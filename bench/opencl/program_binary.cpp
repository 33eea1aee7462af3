// program_binary.cpp - dpk_opencl_program_binary: builds an OpenCL C file for the first GPU of
// the machine and writes the program binary to standard output: on NVIDIA's OpenCL that is the
// PTX its compiler made, which can be set beside the PTX of dpk's CUDA target for the same kernel
// (`dpkc --emit=ptx`) when the two backends run one kernel at different speeds (issue 18).
//
//   dpk_opencl_program_binary FILE.cl [BUILD OPTIONS]
//
// Run on the GPU machine, never by ctest.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// The first GPU of any platform, or null.
cl_device_id firstGpu() {
  cl_uint platforms = 0;
  clGetPlatformIDs(0, nullptr, &platforms);
  std::vector<cl_platform_id> ids(platforms);
  clGetPlatformIDs(platforms, ids.data(), nullptr);
  for (cl_platform_id platform : ids) {
    cl_device_id device = nullptr;
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, &count) == CL_SUCCESS && count)
      return device;
  }
  return nullptr;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.cl [BUILD OPTIONS]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream source;
  source << in.rdbuf();
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  std::string options = argc > 2 ? argv[2] : "";
  cl_device_id device = firstGpu();
  if (!device) {
    std::fprintf(stderr, "no OpenCL GPU\n");
    return 1;
  }
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  std::string text = source.str();
  const char *chars = text.c_str();
  cl_program program = clCreateProgramWithSource(context, 1, &chars, nullptr, &status);
  if (status != CL_SUCCESS ||
      clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    std::fprintf(stderr, "build failed (%d):\n%s\n", status, log.c_str());
    return 1;
  }
  size_t size = 0;
  clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
  std::vector<unsigned char> binary(size);
  unsigned char *data = binary.data();
  clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr);
  std::fwrite(binary.data(), 1, binary.size(), stdout);
  clReleaseProgram(program);
  clReleaseContext(context);
  return 0;
}

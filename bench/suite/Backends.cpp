// Backends.cpp - discovers the backends of a run and builds the runner for each kind.
#include "Backends.h"

#include "DpkRunner.h"
#include "OpenCLRunner.h"

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstring>

namespace dpk::bench {
namespace {

struct DpkBackendRunner final : Runner {
  DpkRunner runner;
  DpkBackendRunner(dpk_device_t device, Problem &problem) : runner(device, problem) {}
  void run() override { runner.run(); }
  std::string runAndVerify() override { return runner.runAndVerify(); }
};

struct OpenCLBackendRunner final : Runner {
  OpenCLRunner runner;
  OpenCLBackendRunner(const std::string &platform, Problem &problem) : runner(platform, problem) {}
  void run() override { runner.run(); }
  std::string runAndVerify() override { return runner.runAndVerify(); }
};

struct TbbRunner final : Runner {
  Problem &problem;
  explicit TbbRunner(Problem &p) : problem(p) {}
  void run() override { problem.runTbbBaseline(); }
  std::string runAndVerify() override {
    problem.resetOutputs();
    problem.runTbbBaseline();
    return problem.verify();
  }
};

} // namespace

std::unique_ptr<Runner> makeRunner(const Backend &backend, Problem &problem) {
  if (backend.isTbb)
    return std::make_unique<TbbRunner>(problem);
  if (!backend.openclPlatform.empty())
    return std::make_unique<OpenCLBackendRunner>(backend.openclPlatform, problem);
  return std::make_unique<DpkBackendRunner>(backend.device, problem);
}

bool hasBaseline(const Backend &backend, const Problem &problem) {
  return backend.openclPlatform.empty() || !problem.openclSource().empty();
}

std::vector<Backend> discoverBackends() {
  std::vector<Backend> backends;
  uint32_t count = 0;
  if (dpk_device_count(&count) == DPK_SUCCESS) {
    for (uint32_t i = 0; i < count; ++i) {
      Backend backend;
      if (dpk_device_get(&backend.device, i) != DPK_SUCCESS)
        continue;
      dpk_device_info_t info;
      std::memset(&info, 0, sizeof info);
      info.struct_size = sizeof info;
      dpk_device_get_info(&info, backend.device);
      backend.name = std::string("dpk:") + info.filter_string;
      backends.push_back(backend);
    }
  }
  Backend tbb;
  tbb.name = "tbb";
  tbb.isTbb = true;
  backends.push_back(tbb);
  cl_uint platformCount = 0;
  clGetPlatformIDs(0, nullptr, &platformCount);
  std::vector<cl_platform_id> platforms(platformCount);
  if (platformCount)
    clGetPlatformIDs(platformCount, platforms.data(), nullptr);
  for (cl_platform_id platform : platforms) {
    char name[256] = {};
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    Backend raw;
    raw.name = std::string("opencl-raw:") + name;
    raw.openclPlatform = name;
    backends.push_back(raw);
  }
  return backends;
}

} // namespace dpk::bench

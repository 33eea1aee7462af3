// Conformance.cpp - the fixture's helpers, the device list and the known-failure guard.
#include "Conformance.h"

#include "KnownFailures.h"

#include <gtest/gtest-spi.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace dpk::conformance {

std::ostream &operator<<(std::ostream &out, const DeviceParam &param) {
  return out << param.filter << " (" << param.name << ", " << param.vendor << ")";
}

std::vector<DeviceParam> allDevices() {
  std::vector<DeviceParam> devices;
  uint32_t count = 0;
  if (dpk_device_count(&count) != DPK_SUCCESS)
    return devices;
  for (uint32_t i = 0; i < count; ++i) {
    dpk_device_t device = nullptr;
    if (dpk_device_get(&device, i) != DPK_SUCCESS)
      continue;
    dpk_device_info_t info{};
    info.struct_size = sizeof info;
    if (dpk_device_get_info(&info, device) == DPK_SUCCESS)
      devices.push_back(
          {i, info.filter_string, info.backend, info.name, info.vendor, inputOf(info)});
    dpk_device_release(device);
  }
  return devices;
}

std::string testNameOf(const ::testing::TestParamInfo<DeviceParam> &info) {
  std::string name = info.param.filter;
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

std::string lastError(dpk_status_t status) {
  return std::string(dpk_status_name(status)) + ": " + dpk_last_error();
}

std::string inputOf(const dpk_device_info_t &info) {
  if (info.formats & DPK_FORMAT_HOST_NATIVE)
    return "host";
  if (info.formats & DPK_FORMAT_PTX)
    return "ptx";
  // The runtime's rule (core/runtime/Program.cpp): SPIR-V unless DPK_OPENCL_INPUT=opencl-c.
  const char *choice = std::getenv("DPK_OPENCL_INPUT");
  bool openclC = choice && std::string(choice) == "opencl-c";
  if ((info.formats & DPK_FORMAT_SPIRV) && !(openclC && (info.formats & DPK_FORMAT_OPENCL_C)))
    return "spirv";
  return "opencl-c";
}

void Conformance::SetUp() {
  const DeviceParam &param = GetParam();
  dpk_status_t status = dpk_device_get(&device, param.index);
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  info.struct_size = sizeof info;
  status = dpk_device_get_info(&info, device);
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  status = dpk_queue_create(&queue, device, DPK_QUEUE_IN_ORDER);
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
}

void Conformance::TearDown() {
  if (queue)
    dpk_queue_wait(queue);
  for (dpk_kernel_t kernel : kernels)
    dpk_kernel_release(kernel);
  for (dpk_program_t program : programs)
    dpk_program_release(program);
  for (void *ptr : allocations)
    dpk_mem_free(ptr);
  if (queue)
    dpk_queue_release(queue);
  if (device)
    dpk_device_release(device);
}

void Conformance::runGuarded(const char *test, const std::function<void()> &body) {
  const DeviceParam &param = GetParam();
  const KnownFailure *known =
      findKnownFailure(param.backend, param.name + " [" + param.vendor + "]", param.input, test);
  if (!known) {
    body();
    return;
  }
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter intercept(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    body();
  }
  std::string firstFailure, skipped;
  for (int i = 0; i < results.size(); ++i) {
    const ::testing::TestPartResult &result = results.GetTestPartResult(i);
    if (result.failed() && firstFailure.empty())
      firstFailure = result.summary();
    if (result.skipped() && skipped.empty())
      skipped = result.summary();
  }
  if (!firstFailure.empty())
    GTEST_SKIP() << "known failure on " << param.filter << " (" << param.name
                 << "): " << known->reason << "\n  first failure: " << firstFailure;
  if (!skipped.empty())
    GTEST_SKIP() << skipped;
  ADD_FAILURE() << "KNOWN FAILURE UNEXPECTEDLY PASSED on " << param.filter << " (" << param.name
                << "): '" << known->reason
                << "' - remove this entry from tests/conformance/KnownFailures.cpp";
}

void *Conformance::alloc(size_t bytes, dpk_mem_kind_t kind) {
  void *ptr = nullptr;
  dpk_status_t status = dpk_mem_alloc(&ptr, device, kind, bytes);
  EXPECT_EQ(status, DPK_SUCCESS) << "dpk_mem_alloc(" << bytes << "): " << lastError(status);
  if (status == DPK_SUCCESS)
    allocations.push_back(ptr);
  return status == DPK_SUCCESS ? ptr : nullptr;
}

void Conformance::copy(void *dst, const void *src, size_t bytes) {
  dpk_status_t status = dpk_enqueue_copy(nullptr, queue, dst, src, bytes, 0, nullptr);
  EXPECT_EQ(status, DPK_SUCCESS) << "dpk_enqueue_copy: " << lastError(status);
  status = dpk_queue_wait(queue);
  EXPECT_EQ(status, DPK_SUCCESS) << "dpk_queue_wait after a copy: " << lastError(status);
}

std::string Conformance::corpusText(const std::string &file) {
  std::string path = std::string(DPK_CORPUS_DIR) + "/" + file;
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "corpus file " << path
                  << " is missing: the IR team's corpus (tests/ir/corpus) must provide it";
    return {};
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

dpk_kernel_t Conformance::corpusKernel(const std::string &file, const std::string &kernelName) {
  std::string text = corpusText(file);
  if (text.empty())
    return nullptr;
  return irKernel(text, kernelName, file);
}

dpk_kernel_t Conformance::irKernel(const std::string &text, const std::string &kernelName,
                                   const std::string &file) {
  dpk_program_t program = nullptr;
  dpk_status_t status =
      dpk_program_create_from_ir(&program, text.data(), text.size(), file.c_str());
  EXPECT_EQ(status, DPK_SUCCESS) << file << ": " << lastError(status);
  if (status != DPK_SUCCESS)
    return nullptr;
  programs.push_back(program);
  dpk_kernel_t kernel = nullptr;
  status = dpk_kernel_get(&kernel, program, kernelName.c_str());
  EXPECT_EQ(status, DPK_SUCCESS) << file << " @" << kernelName << ": " << lastError(status);
  if (status != DPK_SUCCESS)
    return nullptr;
  kernels.push_back(kernel);
  return kernel;
}

dpk_status_t Conformance::launch(dpk_kernel_t kernel, const dpk_launch_config_t &range,
                                 const std::vector<dpk_arg_t> &args) {
  dpk_status_t status = dpk_enqueue_launch(
      nullptr, queue, kernel, &range, static_cast<uint32_t>(args.size()), args.data(), 0, nullptr);
  if (status != DPK_SUCCESS)
    return status;
  return dpk_queue_wait(queue);
}

} // namespace dpk::conformance

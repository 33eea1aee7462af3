// OpenCLSession.h - a minimal OpenCL host harness for the emitter tests: finds a device, builds
// emitted source (returning the build log), and launches kernels with dpk's index mapping.
#ifndef DPK_TESTS_OPENCL_C_OPENCLSESSION_H
#define DPK_TESTS_OPENCL_C_OPENCLSESSION_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dpk::testing {

/// A device buffer; released on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(cl_mem mem, size_t bytes) : mem_(mem), bytes_(bytes) {}
  DeviceBuffer(DeviceBuffer &&other) noexcept : mem_(other.mem_), bytes_(other.bytes_) {
    other.mem_ = nullptr;
  }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    std::swap(mem_, other.mem_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  ~DeviceBuffer() {
    if (mem_)
      clReleaseMemObject(mem_);
  }
  cl_mem mem() const { return mem_; }
  size_t bytes() const { return bytes_; }

private:
  cl_mem mem_ = nullptr;
  size_t bytes_ = 0;
};

/// One kernel argument in Kernel ABI order.
struct KernelArg {
  enum class Kind { Buffer, Scalar, Local } kind;
  cl_mem mem = nullptr;
  std::vector<uint8_t> bytes; // Scalar
  size_t localBytes = 0;      // Local

  static KernelArg buffer(const DeviceBuffer &b) { return {Kind::Buffer, b.mem(), {}, 0}; }
  template <typename T> static KernelArg scalar(T value) {
    KernelArg arg{Kind::Scalar, nullptr, std::vector<uint8_t>(sizeof(T)), 0};
    std::memcpy(arg.bytes.data(), &value, sizeof(T));
    return arg;
  }
  static KernelArg local(size_t bytes) { return {Kind::Local, nullptr, {}, bytes}; }
};

class OpenCLSession {
public:
  /// The shared session, or null when no OpenCL platform/device is available (skipReason()
  /// says why).
  static OpenCLSession *get();
  static const std::string &skipReason();

  const std::string &deviceName() const { return deviceName_; }

  /// Builds `source`; on failure returns null and leaves the build log in `log`.
  cl_program build(const std::string &source, std::string &log);

  template <typename T> DeviceBuffer upload(const std::vector<T> &data) {
    return createBuffer(data.data(), data.size() * sizeof(T));
  }
  template <typename T> std::vector<T> download(const DeviceBuffer &buffer) {
    std::vector<T> out(buffer.bytes() / sizeof(T));
    readBuffer(buffer, out.data());
    return out;
  }

  /// Runs kernel `name` of `program` on a dpk index space: `global` and `local` list dpk
  /// dimensions (0 slowest); they are reversed for OpenCL. An empty `local` lets OpenCL choose.
  /// Returns "" on success, else a message naming the failing call and the CL error code.
  std::string launch(cl_program program, const std::string &name,
                     const std::vector<KernelArg> &args, const std::vector<size_t> &global,
                     const std::vector<size_t> &local = {});

private:
  OpenCLSession() = default;
  static OpenCLSession *create();
  DeviceBuffer createBuffer(const void *data, size_t bytes);
  void readBuffer(const DeviceBuffer &buffer, void *out);

  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::string deviceName_;
};

} // namespace dpk::testing

#endif // DPK_TESTS_OPENCL_C_OPENCLSESSION_H

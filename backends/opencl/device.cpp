// device.cpp - platform and device discovery, properties, and the memory strategy per device.
#include "device.hpp"

#include "DeviceList.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

namespace dpk::opencl {
namespace {

struct DeviceList {
  std::mutex mutex;
  bool enumerated = false;
  std::vector<std::unique_ptr<dpk_pl_device_s>> devices;
  std::string noDeviceReason;
};

DeviceList &deviceList() {
  static DeviceList *list = new DeviceList; // never destroyed: entry points may outlive statics
  return *list;
}

std::string platformString(cl_platform_id platform, cl_platform_info param) {
  size_t size = 0;
  if (clGetPlatformInfo(platform, param, 0, nullptr, &size) != CL_SUCCESS || size == 0)
    return {};
  std::string value(size, '\0');
  if (clGetPlatformInfo(platform, param, size, value.data(), nullptr) != CL_SUCCESS)
    return {};
  value.resize(std::strlen(value.c_str()));
  return value;
}

/// A string query; "" when the device does not know the parameter (an older OpenCL version).
std::string deviceString(cl_device_id device, cl_device_info param) {
  size_t size = 0;
  if (clGetDeviceInfo(device, param, 0, nullptr, &size) != CL_SUCCESS || size == 0)
    return {};
  std::string value(size, '\0');
  if (clGetDeviceInfo(device, param, size, value.data(), nullptr) != CL_SUCCESS)
    return {};
  value.resize(std::strlen(value.c_str()));
  return value;
}

/// A scalar query; `fallback` when the device does not know the parameter.
template <typename T> T deviceValue(cl_device_id device, cl_device_info param, T fallback = {}) {
  T value{};
  if (clGetDeviceInfo(device, param, sizeof value, &value, nullptr) != CL_SUCCESS)
    return fallback;
  return value;
}

bool hasExtension(const std::string &extensions, const char *name) {
  return (" " + extensions + " ").find(std::string(" ") + name + " ") != std::string::npos;
}

/// "OpenCL 3.0 CUDA" -> 300.
unsigned parseClVersion(const std::string &version) {
  unsigned major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "OpenCL %u.%u", &major, &minor) != 2)
    return 0;
  return major * 100 + minor;
}

/// Platform name + device name + driver version, hashed into the tail when too long to fit, so
/// that two devices never share a kernel-cache key.
std::string targetId(const std::string &platform, const std::string &device,
                     const std::string &driver) {
  std::string id = platform + "/" + device + "/" + driver;
  constexpr size_t Capacity = sizeof(dpk_device_props_t::target_id) - 1;
  if (id.size() <= Capacity)
    return id;
  uint64_t hash = 1469598103934665603ull; // FNV-1a
  for (unsigned char c : id)
    hash = (hash ^ c) * 1099511628211ull;
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "#%016llx", static_cast<unsigned long long>(hash));
  return id.substr(0, Capacity - std::strlen(suffix)) + suffix;
}

/// Loads the USM entry points; false when the platform lacks any of them.
bool loadUsmFunctions(cl_platform_id platform, UsmFunctions &usm) {
  auto load = [&](auto &slot, const char *name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
        clGetExtensionFunctionAddressForPlatform(platform, name));
    return slot != nullptr;
  };
  return load(usm.hostMemAlloc, "clHostMemAllocINTEL") &&
         load(usm.deviceMemAlloc, "clDeviceMemAllocINTEL") &&
         load(usm.sharedMemAlloc, "clSharedMemAllocINTEL") &&
         load(usm.memBlockingFree, "clMemBlockingFreeINTEL") &&
         load(usm.setKernelArgMemPointer, "clSetKernelArgMemPointerINTEL") &&
         load(usm.enqueueMemcpy, "clEnqueueMemcpyINTEL") &&
         load(usm.enqueueMemFill, "clEnqueueMemFillINTEL");
}

/// Picks the device's best memory strategy, or the one DPK_OPENCL_MEMORY (usm|svm|buffer) asks
/// for when the device offers it; records why in device.memoryNote otherwise.
void chooseMemoryStrategy(dpk_pl_device_s &device, const std::string &extensions) {
  cl_device_id native = device.native;
  bool usm = hasExtension(extensions, "cl_intel_unified_shared_memory") &&
             loadUsmFunctions(device.platform, device.usm) &&
             deviceValue<cl_bitfield>(native, CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL) != 0;
  auto svm = deviceValue<cl_device_svm_capabilities>(native, CL_DEVICE_SVM_CAPABILITIES);
  bool svmFine = (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
  bool svmCoarse = (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;

  // Fine-grained SVM first: it is core OpenCL 2.0 and gives the same host-addressable pointers
  // as USM, while the USM extension's implementations vary (PoCL 5.0's crashed in dpk's first
  // conformance run on the GPU machine; Intel's runtime offers both and passes with either).
  // Coarse-grained SVM next: it has no host access without map/unmap (dpk copies instead), but
  // a kernel argument may point anywhere inside an allocation. Buffers can pass an interior
  // pointer only as a sub-buffer whose offset is a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN
  // (512 bytes on NVIDIA's OpenCL), so array views at other offsets could not be launched:
  // 21 array tests failed on NVIDIA's OpenCL with buffers and all pass with coarse SVM
  // (docs/gpu-machine.md, 2026-11-25). Buffers are the last resort.
  device.memory = svmFine     ? MemoryStrategyKind::SvmFine
                  : usm       ? MemoryStrategyKind::Usm
                  : svmCoarse ? MemoryStrategyKind::SvmCoarse
                              : MemoryStrategyKind::Buffer;
  const char *forced = std::getenv("DPK_OPENCL_MEMORY");
  if (forced && *forced) {
    std::string request = forced;
    bool granted = true;
    if (request == "usm" && usm)
      device.memory = MemoryStrategyKind::Usm;
    else if (request == "svm" && (svmFine || svmCoarse))
      device.memory = svmFine ? MemoryStrategyKind::SvmFine : MemoryStrategyKind::SvmCoarse;
    else if (request == "buffer")
      device.memory = MemoryStrategyKind::Buffer;
    else
      granted = false;
    if (!granted)
      device.memoryNote = "DPK_OPENCL_MEMORY=" + request + " not available on this device";
  }

  switch (device.memory) {
  case MemoryStrategyKind::Usm:
    device.usmAspects = DPK_ASPECT_USM_DEVICE;
    if (deviceValue<cl_bitfield>(native, CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL))
      device.usmAspects |= DPK_ASPECT_USM_HOST;
    if (deviceValue<cl_bitfield>(native, CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL))
      device.usmAspects |= DPK_ASPECT_USM_SHARED;
    break;
  case MemoryStrategyKind::SvmFine:
    device.usmAspects = DPK_ASPECT_USM_DEVICE | DPK_ASPECT_USM_SHARED | DPK_ASPECT_USM_HOST;
    break;
  case MemoryStrategyKind::SvmCoarse:
  case MemoryStrategyKind::Buffer: device.usmAspects = DPK_ASPECT_USM_DEVICE; break;
  }
}

void describeDevice(dpk_pl_device_s &device) {
  cl_device_id native = device.native;
  std::string platformName = platformString(device.platform, CL_PLATFORM_NAME);
  std::string name = deviceString(native, CL_DEVICE_NAME);
  std::string driver = deviceString(native, CL_DRIVER_VERSION);
  std::string version = deviceString(native, CL_DEVICE_VERSION);
  std::string extensions = deviceString(native, CL_DEVICE_EXTENSIONS);
  std::string ilVersions = deviceString(native, CL_DEVICE_IL_VERSION);
  device.clVersion = parseClVersion(version);
  device.baseAddressAlignment =
      std::max<size_t>(1, deviceValue<cl_uint>(native, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8);
  device.maxAllocSize = deviceValue<cl_ulong>(native, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  chooseMemoryStrategy(device, extensions);

  dpk_device_props_t &props = device.props;
  std::memset(&props, 0, sizeof props);
  props.struct_size = sizeof props;
  plugin::copyString(props.name, name);
  plugin::copyString(props.vendor, deviceString(native, CL_DEVICE_VENDOR));
  plugin::copyString(props.driver_version, driver);
  plugin::copyString(props.target_id, targetId(platformName, name, driver));
  auto type = deviceValue<cl_device_type>(native, CL_DEVICE_TYPE);
  props.type = (type & CL_DEVICE_TYPE_GPU)   ? DPK_DEVICE_TYPE_GPU
               : (type & CL_DEVICE_TYPE_CPU) ? DPK_DEVICE_TYPE_CPU
                                             : DPK_DEVICE_TYPE_ACCELERATOR;
  props.compute_units = deviceValue<cl_uint>(native, CL_DEVICE_MAX_COMPUTE_UNITS);
  props.global_mem_size = deviceValue<cl_ulong>(native, CL_DEVICE_GLOBAL_MEM_SIZE);
  props.local_mem_size = deviceValue<cl_ulong>(native, CL_DEVICE_LOCAL_MEM_SIZE);
  props.max_alloc_size = device.maxAllocSize;
  props.max_work_group_size = deviceValue<size_t>(native, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  // dpk's dimension d is OpenCL's dimension 2-d for a 3-D launch (docs/architecture.md, "Index space on the device APIs").
  size_t itemSizes[3] = {1, 1, 1};
  cl_uint itemDims = deviceValue<cl_uint>(native, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  if (itemDims >= 3)
    clGetDeviceInfo(native, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof itemSizes, itemSizes, nullptr);
  for (int d = 0; d < 3; ++d)
    props.max_work_item_sizes[d] = itemSizes[2 - d];
  // Launch limits OpenCL does not report. A global size must fit the device's size_t.
  if (deviceValue<cl_uint>(native, CL_DEVICE_ADDRESS_BITS) == 32)
    props.max_total_items = UINT32_MAX;
  // PoCL's CPU driver counts a launch's work-groups in 32 bits (pthread_scheduler.c,
  // `unsigned remaining_wgs`): with more it aborts in `assert (max_wgs > 0)` or silently runs a
  // fraction of them (PoCL 3.1).
  if (platformName == "Portable Computing Language" && (type & CL_DEVICE_TYPE_CPU))
    props.max_total_groups = UINT32_MAX;

  bool hasSpirv = ilVersions.find("SPIR-V") != std::string::npos;
  props.formats = DPK_FORMAT_OPENCL_C;
  if (hasSpirv)
    props.formats |= DPK_FORMAT_SPIRV;
  bool fp64 = hasExtension(extensions, "cl_khr_fp64") ||
              deviceValue<cl_device_fp_config>(native, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  props.aspects = device.usmAspects;
  if (fp64)
    props.aspects |= DPK_ASPECT_FP64;
  if (hasExtension(extensions, "cl_khr_fp16"))
    props.aspects |= DPK_ASPECT_FP16;
  if (hasExtension(extensions, "cl_khr_int64_base_atomics"))
    props.aspects |= DPK_ASPECT_ATOMIC64;
  std::string memory = memoryStrategyName(device.memory);
  if (!device.memoryNote.empty())
    memory += " (" + device.memoryNote + ")";
  std::string extra =
      "platform=" + platformName + "\nopencl_version=" + version +
      "\nopencl_c_version=" + deviceString(native, CL_DEVICE_OPENCL_C_VERSION) +
      "\nil_versions=" + (ilVersions.empty() ? "none" : ilVersions) + "\nmemory=" + memory +
      "\nmem_base_addr_align_bytes=" + std::to_string(device.baseAddressAlignment) +
      "\nglobal_mem_cache_bytes=" +
      std::to_string(deviceValue<cl_ulong>(native, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE)) + "\n";
  plugin::copyString(props.extra, extra);
}

/// Fills the list once; each platform that fails to answer is skipped and named in the reason.
void enumerate(DeviceList &list) {
  list.enumerated = true;
  cl_uint numPlatforms = 0;
  cl_int status = clGetPlatformIDs(0, nullptr, &numPlatforms);
  if (status != CL_SUCCESS || numPlatforms == 0) {
    list.noDeviceReason = std::string("no OpenCL platform: clGetPlatformIDs returned ") +
                          clErrorName(status) + " (" + std::to_string(status) +
                          "); check the ICD files in /etc/OpenCL/vendors or OCL_ICD_VENDORS";
    return;
  }
  std::vector<cl_platform_id> platforms(numPlatforms);
  clGetPlatformIDs(numPlatforms, platforms.data(), nullptr);
  std::string skipped;
  for (cl_platform_id platform : platforms) {
    cl_uint numDevices = 0;
    status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &numDevices);
    if (status != CL_SUCCESS || numDevices == 0) {
      skipped += "; platform '" + platformString(platform, CL_PLATFORM_NAME) +
                 "': clGetDeviceIDs returned " + clErrorName(status);
      continue;
    }
    std::vector<cl_device_id> ids(numDevices);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, numDevices, ids.data(), nullptr);
    for (cl_device_id id : ids) {
      auto device = std::make_unique<dpk_pl_device_s>();
      device->platform = platform;
      device->native = id;
      describeDevice(*device);
      list.devices.push_back(std::move(device));
    }
  }
  if (list.devices.empty())
    list.noDeviceReason =
        "no OpenCL device on " + std::to_string(numPlatforms) + " platform(s)" + skipped;
}

} // namespace

const char *memoryStrategyName(MemoryStrategyKind kind) {
  switch (kind) {
  case MemoryStrategyKind::Usm: return "usm";
  case MemoryStrategyKind::SvmFine: return "svm-fine";
  case MemoryStrategyKind::SvmCoarse: return "svm-coarse";
  case MemoryStrategyKind::Buffer: return "buffer";
  }
  return "unknown";
}

dpk_status_t getDevices(uint32_t *count, dpk_pl_device_t *devices) {
  DeviceList &list = deviceList();
  std::lock_guard<std::mutex> lock(list.mutex);
  if (!list.enumerated)
    enumerate(list);
  plugin::listDevices(list.devices, count, devices);
  return DPK_SUCCESS;
}

const char *noDeviceReason() {
  DeviceList &list = deviceList();
  std::lock_guard<std::mutex> lock(list.mutex);
  return list.noDeviceReason.c_str();
}

dpk_status_t deviceGetProps(dpk_device_props_t *out, dpk_pl_device_t device) {
  plugin::copyDeviceProps(device->props, out);
  return DPK_SUCCESS;
}

void releaseDevices() {
  DeviceList &list = deviceList();
  std::lock_guard<std::mutex> lock(list.mutex);
  list.devices.clear();
  list.noDeviceReason.clear();
  list.enumerated = false;
}

dpk_status_t init(const dpk_plugin_host_services_t *services) {
  uint32_t count = 0;
  DPK_RETURN_ON_FAILURE(getDevices(&count, nullptr));
  if (!services || services->struct_size < sizeof *services || !services->log)
    return DPK_SUCCESS;
  std::vector<dpk_pl_device_t> devices(count);
  DPK_RETURN_ON_FAILURE(getDevices(&count, devices.data()));
  for (dpk_pl_device_t device : devices) {
    std::string line =
        std::string(device->props.name) + ": memory strategy " + memoryStrategyName(device->memory);
    if (!device->memoryNote.empty())
      line += " (" + device->memoryNote + ")";
    services->log(2, "opencl.device", line.c_str());
  }
  if (count == 0)
    services->log(2, "opencl.device", noDeviceReason());
  return DPK_SUCCESS;
}

void shutdown() { releaseDevices(); }

} // namespace dpk::opencl

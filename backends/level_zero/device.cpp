// device.cpp - zeInit, driver and device discovery, device properties.
#include "device.hpp"

#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace dpk::level_zero {
namespace {

struct Platform {
  std::mutex lock;
  bool initialized = false;
  std::vector<std::unique_ptr<Device>> devices;
  std::string noDeviceReason;
  void (*log)(int, const char *, const char *) = nullptr;
};

Platform &platform() {
  static Platform instance;
  return instance;
}

/// Reads one device's properties; the error names the failed call.
dpk_status_t readDevice(ze_driver_handle_t driver, ze_device_handle_t native, Device &d) {
  d.driver = driver;
  d.native = native;
  d.props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES; // timerResolution in ns
  ZE_RETURN_ON_FAILURE(zeDeviceGetProperties(native, &d.props), "zeDeviceGetProperties");
  d.compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  ZE_RETURN_ON_FAILURE(zeDeviceGetComputeProperties(native, &d.compute),
                       "zeDeviceGetComputeProperties");
  d.module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  ZE_RETURN_ON_FAILURE(zeDeviceGetModuleProperties(native, &d.module),
                       "zeDeviceGetModuleProperties");
  uint32_t memCount = 0;
  ZE_RETURN_ON_FAILURE(zeDeviceGetMemoryProperties(native, &memCount, nullptr),
                       "zeDeviceGetMemoryProperties");
  std::vector<ze_device_memory_properties_t> mems(memCount);
  for (auto &m : mems)
    m.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  ZE_RETURN_ON_FAILURE(zeDeviceGetMemoryProperties(native, &memCount, mems.data()),
                       "zeDeviceGetMemoryProperties");
  for (const auto &m : mems)
    d.totalMemory += m.totalSize;
  uint32_t groupCount = 0;
  ZE_RETURN_ON_FAILURE(zeDeviceGetCommandQueueGroupProperties(native, &groupCount, nullptr),
                       "zeDeviceGetCommandQueueGroupProperties");
  std::vector<ze_command_queue_group_properties_t> groups(groupCount);
  for (auto &g : groups)
    g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  ZE_RETURN_ON_FAILURE(zeDeviceGetCommandQueueGroupProperties(native, &groupCount, groups.data()),
                       "zeDeviceGetCommandQueueGroupProperties");
  bool found = false;
  for (uint32_t i = 0; i < groupCount && !found; ++i) {
    if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
      d.computeOrdinal = i;
      d.maxFillPatternSize = groups[i].maxMemoryFillPatternSize;
      found = true;
    }
  }
  if (!found)
    return fail(DPK_ERROR_UNSUPPORTED, "device has no compute command queue group");
  ze_driver_properties_t driverProps{};
  driverProps.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  if (zeDriverGetProperties(driver, &driverProps) == ZE_RESULT_SUCCESS)
    d.driverVersion = driverProps.driverVersion;
  d.limits.maxTotal = d.compute.maxTotalGroupSize;
  d.limits.maxSize[0] = d.compute.maxGroupSizeX;
  d.limits.maxSize[1] = d.compute.maxGroupSizeY;
  d.limits.maxSize[2] = d.compute.maxGroupSizeZ;
  d.limits.maxCount[0] = d.compute.maxGroupCountX;
  d.limits.maxCount[1] = d.compute.maxGroupCountY;
  d.limits.maxCount[2] = d.compute.maxGroupCountZ;
  return DPK_SUCCESS;
}

/// Discovers every root device of every driver. Returns "" or why there are none.
std::string discover(Platform &p) {
  // zeInit with no flags: GPU and VPU drivers alike. It fails fast, without hanging, when the
  // loader finds no driver (ZE_RESULT_ERROR_UNINITIALIZED).
  ze_result_t rc = zeInit(0);
  if (rc != ZE_RESULT_SUCCESS)
    return "zeInit: " + describeZeResult(rc) + ": no Level Zero driver found";
  uint32_t driverCount = 0;
  rc = zeDriverGet(&driverCount, nullptr);
  if (rc != ZE_RESULT_SUCCESS)
    return "zeDriverGet: " + describeZeResult(rc);
  if (driverCount == 0)
    return "zeDriverGet: no Level Zero driver found";
  std::vector<ze_driver_handle_t> drivers(driverCount);
  rc = zeDriverGet(&driverCount, drivers.data());
  if (rc != ZE_RESULT_SUCCESS)
    return "zeDriverGet: " + describeZeResult(rc);
  for (ze_driver_handle_t driver : drivers) {
    uint32_t deviceCount = 0;
    if (zeDeviceGet(driver, &deviceCount, nullptr) != ZE_RESULT_SUCCESS || deviceCount == 0)
      continue;
    std::vector<ze_device_handle_t> natives(deviceCount);
    if (zeDeviceGet(driver, &deviceCount, natives.data()) != ZE_RESULT_SUCCESS)
      continue;
    for (ze_device_handle_t native : natives) {
      auto device = std::make_unique<Device>();
      if (readDevice(driver, native, *device) != DPK_SUCCESS) {
        logDiagnostic(2, "plugin.device_skipped", plugin::lastError(nullptr));
        continue;
      }
      device->index = static_cast<uint32_t>(p.devices.size());
      p.devices.push_back(std::move(device));
    }
  }
  if (p.devices.empty())
    return "no usable Level Zero device on " + std::to_string(driverCount) + " driver(s)";
  return {};
}

void copyString(char *dst, size_t capacity, const std::string &src) {
  std::snprintf(dst, capacity, "%s", src.c_str());
}

} // namespace

std::string Device::label() const {
  return "Level Zero device " + std::to_string(index) + " (" + props.name + ")";
}

void logDiagnostic(int level, const char *what, const std::string &message) {
  if (auto *log = platform().log)
    log(level, what, message.c_str());
}

dpk_status_t init(const dpk_plugin_host_services_t *services) {
  Platform &p = platform();
  std::lock_guard<std::mutex> guard(p.lock);
  if (services && services->struct_size >= sizeof(dpk_plugin_host_services_t))
    p.log = services->log;
  if (p.initialized)
    return DPK_SUCCESS;
  p.initialized = true;
  // No driver is not an error: the plugin stays loaded with zero devices and the reason.
  p.noDeviceReason = discover(p);
  logDiagnostic(2, "plugin.devices",
                "level_zero: " + std::to_string(p.devices.size()) + " device(s)" +
                    (p.noDeviceReason.empty() ? "" : ": " + p.noDeviceReason));
  return DPK_SUCCESS;
}

void shutdown() {
  Platform &p = platform();
  std::lock_guard<std::mutex> guard(p.lock);
  p.devices.clear();
  p.noDeviceReason.clear();
  p.initialized = false;
}

dpk_status_t getDevices(uint32_t *count, dpk_pl_device_t *devices) {
  if (!count)
    return fail(DPK_ERROR_INVALID_ARGUMENT, "get_devices: count is NULL");
  Platform &p = platform();
  std::lock_guard<std::mutex> guard(p.lock);
  if (!p.initialized)
    return fail(DPK_ERROR_GENERIC, "get_devices: the Level Zero plugin was not initialized");
  plugin::listDevices(p.devices, count, devices);
  return DPK_SUCCESS;
}

const char *noDeviceReason() {
  Platform &p = platform();
  std::lock_guard<std::mutex> guard(p.lock);
  if (!p.initialized)
    return "the Level Zero plugin was not initialized";
  return p.noDeviceReason.c_str();
}

dpk_status_t deviceGetProps(dpk_pl_device_t handle, dpk_device_props_t *out) {
  if (!handle)
    return fail(DPK_ERROR_INVALID_HANDLE, "device_get_props: device is NULL");
  if (!out || out->struct_size == 0)
    return fail(DPK_ERROR_INVALID_ARGUMENT, "device_get_props: out is NULL or has no struct_size");
  const Device &d = *toDevice(handle);
  dpk_device_props_t props;
  std::memset(&props, 0, sizeof(props));
  copyString(props.name, sizeof(props.name), d.props.name);
  char vendor[32];
  std::snprintf(vendor, sizeof(vendor), "vendor 0x%04x", d.props.vendorId);
  copyString(props.vendor, sizeof(props.vendor),
             d.props.vendorId == 0x8086 ? "Intel(R) Corporation" : vendor);
  copyString(props.driver_version, sizeof(props.driver_version),
             "Level Zero driver " + std::to_string(d.driverVersion));
  // SPIR-V is device independent; the identity still names the device for the cache.
  char target[128];
  std::snprintf(target, sizeof(target), "spirv:%s:0x%04x", d.props.name, d.props.deviceId);
  copyString(props.target_id, sizeof(props.target_id), target);
  switch (d.props.type) {
  case ZE_DEVICE_TYPE_CPU:
    props.type = DPK_DEVICE_TYPE_CPU;
    break;
  case ZE_DEVICE_TYPE_GPU:
    props.type = DPK_DEVICE_TYPE_GPU;
    break;
  default:
    props.type = DPK_DEVICE_TYPE_ACCELERATOR; // FPGA, MCA, VPU
    break;
  }
  props.compute_units =
      d.props.numSlices * d.props.numSubslicesPerSlice * d.props.numEUsPerSubslice;
  props.global_mem_size = d.totalMemory;
  props.local_mem_size = d.compute.maxSharedLocalMemory;
  props.max_alloc_size = d.props.maxMemAllocSize;
  props.max_work_group_size = d.compute.maxTotalGroupSize;
  // dpk order for a 3-D launch: dpk dimension d is Level Zero dimension 2-d.
  props.max_work_item_sizes[0] = d.compute.maxGroupSizeZ;
  props.max_work_item_sizes[1] = d.compute.maxGroupSizeY;
  props.max_work_item_sizes[2] = d.compute.maxGroupSizeX;
  props.formats = DPK_FORMAT_SPIRV;
  props.aspects = DPK_ASPECT_USM_DEVICE | DPK_ASPECT_USM_SHARED | DPK_ASPECT_USM_HOST;
  if (d.module.flags & ZE_DEVICE_MODULE_FLAG_FP16)
    props.aspects |= DPK_ASPECT_FP16;
  if (d.module.flags & ZE_DEVICE_MODULE_FLAG_FP64)
    props.aspects |= DPK_ASPECT_FP64;
  if (d.module.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS)
    props.aspects |= DPK_ASPECT_ATOMIC64;
  char extra[sizeof(props.extra)];
  std::snprintf(extra, sizeof(extra),
                "spirv_version=%u.%u\ndevice_id=0x%04x\nslices=%u\nsubslices_per_slice=%u\n"
                "eus_per_subslice=%u\nthreads_per_eu=%u\nsimd_width=%u\nsubgroup_sizes=%u\n"
                "max_fill_pattern=%zu\ntimer_resolution_ns=%llu",
                ZE_MAJOR_VERSION(d.module.spirvVersionSupported),
                ZE_MINOR_VERSION(d.module.spirvVersionSupported), d.props.deviceId,
                d.props.numSlices, d.props.numSubslicesPerSlice, d.props.numEUsPerSubslice,
                d.props.numThreadsPerEU, d.props.physicalEUSimdWidth, d.compute.numSubGroupSizes,
                d.maxFillPatternSize, static_cast<unsigned long long>(d.props.timerResolution));
  copyString(props.extra, sizeof(props.extra), extra);
  size_t size = out->struct_size < sizeof(props) ? out->struct_size : sizeof(props);
  props.struct_size = out->struct_size;
  std::memcpy(out, &props, size);
  return DPK_SUCCESS;
}

} // namespace dpk::level_zero

// device.cpp - zeInit, driver and device discovery, device properties.
#include "device.hpp"

#include "DeviceList.h"

#include <cstdio>
#include <memory>
#include <vector>

namespace dpk::level_zero {
namespace {

plugin::DeviceList<Device> &deviceList() {
  static plugin::DeviceList<Device> list("level_zero", "Level Zero");
  return list;
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

/// Discovers every root device of every driver. Returns "" or why there are none: no driver is
/// not an error.
std::string discover(plugin::DeviceList<Device>::Devices &devices) {
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
      device->index = static_cast<uint32_t>(devices.size());
      devices.push_back(std::move(device));
    }
  }
  if (devices.empty())
    return "no usable Level Zero device on " + std::to_string(driverCount) + " driver(s)";
  return {};
}

} // namespace

std::string Device::label() const {
  return "Level Zero device " + std::to_string(index) + " (" + props.name + ")";
}

void logDiagnostic(int level, const char *what, const std::string &message) {
  deviceList().log(level, what, message);
}

dpk_status_t init(const dpk_plugin_host_services_t *services) {
  return deviceList().init(services, discover);
}

void shutdown() { deviceList().shutdown(); }

dpk_status_t getDevices(uint32_t *count, dpk_pl_device_t *devices) {
  return deviceList().getDevices(count, devices);
}

const char *noDeviceReason() { return deviceList().noDeviceReason(); }

dpk_status_t deviceGetProps(dpk_device_props_t *out, dpk_pl_device_t handle) {
  const Device &d = *toDevice(handle);
  dpk_device_props_t props{};
  props.struct_size = sizeof(props);
  plugin::copyString(props.name, d.props.name);
  char vendor[32];
  std::snprintf(vendor, sizeof(vendor), "vendor 0x%04x", d.props.vendorId);
  plugin::copyString(props.vendor, d.props.vendorId == 0x8086 ? "Intel(R) Corporation" : vendor);
  plugin::copyString(props.driver_version, "Level Zero driver " + std::to_string(d.driverVersion));
  // SPIR-V is device independent; the identity still names the device for the cache.
  char target[128];
  std::snprintf(target, sizeof(target), "spirv:%s:0x%04x", d.props.name, d.props.deviceId);
  plugin::copyString(props.target_id, target);
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
  props.max_num_groups[0] = d.compute.maxGroupCountZ;
  props.max_num_groups[1] = d.compute.maxGroupCountY;
  props.max_num_groups[2] = d.compute.maxGroupCountX;
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
  plugin::copyString(props.extra, extra);
  plugin::copyDeviceProps(props, out);
  return DPK_SUCCESS;
}

} // namespace dpk::level_zero

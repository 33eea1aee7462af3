// device.cpp - driver loading, device discovery and device properties.
#include "device.hpp"

#include "DeviceList.h"

#include <cstdio>
#include <memory>

namespace dpk::cuda {
namespace {

plugin::DeviceList<Device> &deviceList() {
  static plugin::DeviceList<Device> list("cuda", "CUDA");
  return list;
}

int attribute(CUdevice device, int which) {
  int value = 0;
  if (cu.deviceGetAttribute(&value, which, device) != CUDA_SUCCESS)
    return 0;
  return value;
}

/// Reads everything dpk needs about one device; the error names the failed call.
dpk_status_t readDevice(int ordinal, Device &out) {
  out.ordinal = ordinal;
  CUDA_RETURN_ON_FAILURE(cu.deviceGet(&out.native, ordinal), "cuDeviceGet");
  char name[256] = {};
  CUDA_RETURN_ON_FAILURE(cu.deviceGetName(name, sizeof(name) - 1, out.native), "cuDeviceGetName");
  out.name = name;
  CUdevice d = out.native;
  out.ccMajor = attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  out.ccMinor = attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  out.smCount = attribute(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  out.maxThreadsPerBlock = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  out.maxBlock[0] = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  out.maxBlock[1] = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  out.maxBlock[2] = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  out.maxGrid[0] = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  out.maxGrid[1] = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  out.maxGrid[2] = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  out.sharedPerBlock = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  out.sharedPerBlockOptin = attribute(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  if (out.sharedPerBlockOptin < out.sharedPerBlock)
    out.sharedPerBlockOptin = out.sharedPerBlock;
  out.managedMemory = attribute(d, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) != 0;
  CUDA_RETURN_ON_FAILURE(cu.deviceTotalMem(&out.totalMemory, d), "cuDeviceTotalMem");
  return DPK_SUCCESS;
}

/// Loads the driver and reads every device. Returns "" or why there are none: a machine without
/// CUDA is not an error.
std::string discover(plugin::DeviceList<Device>::Devices &devices) {
  std::string why = loadDriver();
  if (!why.empty())
    return why;
  CUresult rc = cu.init(0);
  if (rc != CUDA_SUCCESS)
    return "cuInit: " + describeCudaResult(rc);
  int count = 0;
  rc = cu.deviceGetCount(&count);
  if (rc != CUDA_SUCCESS)
    return "cuDeviceGetCount: " + describeCudaResult(rc);
  for (int i = 0; i < count; ++i) {
    auto device = std::make_unique<Device>();
    if (readDevice(i, *device) != DPK_SUCCESS) {
      // Skip a device the driver cannot describe, but say so.
      logDiagnostic(2, "plugin.device_skipped", plugin::lastError(nullptr));
      continue;
    }
    devices.push_back(std::move(device));
  }
  if (devices.empty())
    return count == 0 ? "cuDeviceGetCount: the driver reports no CUDA device"
                      : "no CUDA device could be queried";
  return {};
}

} // namespace

std::string Device::label() const {
  return "CUDA device " + std::to_string(ordinal) + " (" + name + ")";
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
  plugin::copyString(props.name, d.name);
  plugin::copyString(props.vendor, "NVIDIA Corporation");
  int version = 0;
  cu.driverGetVersion(&version);
  plugin::copyString(props.driver_version, "CUDA " + std::to_string(version / 1000) + "." +
                                               std::to_string(version % 1000 / 10));
  plugin::copyString(props.target_id,
                     "sm_" + std::to_string(d.ccMajor) + std::to_string(d.ccMinor));
  props.type = DPK_DEVICE_TYPE_GPU;
  props.compute_units = static_cast<uint32_t>(d.smCount);
  props.global_mem_size = d.totalMemory;
  // The opt-in limit: the plugin raises a kernel's dynamic shared memory limit when asked for
  // more than the default 48 KiB.
  props.local_mem_size = static_cast<uint64_t>(d.sharedPerBlockOptin);
  props.max_alloc_size = d.totalMemory;
  props.max_work_group_size = static_cast<uint64_t>(d.maxThreadsPerBlock);
  // dpk order for a 3-D launch: dpk dimension d is CUDA dimension 2-d (z, y, x).
  for (int i = 0; i < 3; ++i)
    props.max_work_item_sizes[i] = static_cast<uint64_t>(d.maxBlock[2 - i]);
  // Grid limits (x: 2^31 - 1, y and z: 65535 on every GPU so far), in the same order: the core
  // refuses an NdRange with more blocks in a dimension before the plugin sees it.
  for (int i = 0; i < 3; ++i)
    props.max_num_groups[i] = static_cast<uint64_t>(d.maxGrid[2 - i]);
  props.formats = DPK_FORMAT_PTX;
  props.aspects =
      DPK_ASPECT_FP64 | DPK_ASPECT_ATOMIC64 | DPK_ASPECT_USM_DEVICE | DPK_ASPECT_USM_HOST;
  if (d.ccMajor * 10 + d.ccMinor >= 53)
    props.aspects |= DPK_ASPECT_FP16;
  if (d.managedMemory)
    props.aspects |= DPK_ASPECT_USM_SHARED;
  // Unified addressing: cuMemcpyAsync finds each pointer's device itself, and copies between
  // two GPUs directly (peer.hpp enables peer access where the GPUs allow it).
  if (attribute(d.native, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING))
    props.aspects |= DPK_ASPECT_PEER_COPY;
  props.cache_sizes[1] =
      static_cast<uint64_t>(attribute(d.native, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  char extra[sizeof(props.extra)];
  std::snprintf(extra, sizeof(extra),
                "compute_capability=%d.%d\nsm_count=%d\nwarp_size=%d\nclock_khz=%d\n"
                "pci_bus_id=%d\nmax_block_dims_xyz=%d,%d,%d\nmax_grid_dims_xyz=%d,%d,%d\n"
                "shared_mem_per_block=%d\nshared_mem_per_block_optin=%d\n"
                "unified_addressing=%d\nmanaged_memory=%d\nconcurrent_managed_access=%d\n"
                "driver_api_version=%d",
                d.ccMajor, d.ccMinor, d.smCount, attribute(d.native, CU_DEVICE_ATTRIBUTE_WARP_SIZE),
                attribute(d.native, CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
                attribute(d.native, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID), d.maxBlock[0], d.maxBlock[1],
                d.maxBlock[2], d.maxGrid[0], d.maxGrid[1], d.maxGrid[2], d.sharedPerBlock,
                d.sharedPerBlockOptin, attribute(d.native, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING),
                d.managedMemory ? 1 : 0,
                attribute(d.native, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS), version);
  plugin::copyString(props.extra, extra);
  plugin::copyDeviceProps(props, out);
  return DPK_SUCCESS;
}

} // namespace dpk::cuda

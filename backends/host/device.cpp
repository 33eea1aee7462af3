// device.cpp - the host device's properties (from hwloc) and context entry points.
#include "device.hpp"

#include "DeviceList.h"
#include "PluginSupport.h"
#include "topology.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace plugin = dpk::plugin;

namespace dpk::host {
namespace {

int arenaConcurrency(const Topology &topology) {
  if (const char *env = std::getenv("DPK_HOST_THREADS")) {
    int requested = std::atoi(env);
    if (requested > 0)
      return requested;
  }
  return static_cast<int>(topology.processingUnits);
}

std::string cpuFeatures() {
  std::string features;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    features += " avx512f";
  if (__builtin_cpu_supports("avx2"))
    features += " avx2";
  if (__builtin_cpu_supports("fma"))
    features += " fma";
  return features;
}

dpk_device_props_t describeHost(const Topology &topology, int concurrency) {
  dpk_device_props_t props;
  std::memset(&props, 0, sizeof props);
  props.struct_size = sizeof props;
  plugin::copyString(props.name, topology.cpuName);
  plugin::copyString(props.vendor, "dpk host (oneTBB)");
  plugin::copyString(props.driver_version, "oneTBB " + std::to_string(TBB_VERSION_MAJOR) + "." +
                                               std::to_string(TBB_VERSION_MINOR));
  // The compiler targets this very CPU, so its identity (name and vector features) keys the
  // kernel cache: a cache directory shared between machines never serves foreign code.
  plugin::copyString(props.target_id, "x86_64 " + topology.cpuName + cpuFeatures());
  props.type = DPK_DEVICE_TYPE_CPU;
  props.compute_units = static_cast<uint32_t>(concurrency);
  props.global_mem_size = topology.totalMemory;
  props.local_mem_size = 1u << 20; // local memory is heap memory per work-group
  props.max_alloc_size = topology.totalMemory;
  props.max_work_group_size = kMaxWorkGroupSize;
  std::fill(std::begin(props.max_work_item_sizes), std::end(props.max_work_item_sizes), kMaxWorkGroupSize);
  props.formats = DPK_FORMAT_HOST_NATIVE;
  props.aspects = DPK_ASPECT_FP64 | DPK_ASPECT_FP16 | DPK_ASPECT_ATOMIC64 | DPK_ASPECT_USM_DEVICE |
                  DPK_ASPECT_USM_SHARED | DPK_ASPECT_USM_HOST;
  props.numa_nodes = topology.numaNodes;
  std::copy(std::begin(topology.cacheSizes), std::end(topology.cacheSizes), props.cache_sizes);
  std::snprintf(props.extra, sizeof props.extra,
                "cores=%u\nhardware_threads=%u\nnuma_nodes=%u\narena_threads=%d\n"
                "l1d_bytes=%llu\nl2_bytes=%llu\nl3_bytes=%llu\n",
                topology.cores, topology.processingUnits, topology.numaNodes, concurrency,
                static_cast<unsigned long long>(topology.cacheSizes[0]),
                static_cast<unsigned long long>(topology.cacheSizes[1]),
                static_cast<unsigned long long>(topology.cacheSizes[2]));
  return props;
}

} // namespace

dpk_pl_device_t hostDevice() {
  static dpk_pl_device_s *device = [] {
    const Topology &topology = machineTopology();
    int concurrency = arenaConcurrency(topology);
    // One slot is reserved for the queue's dispatcher thread, which joins the arena to run a
    // launch; the others are oneTBB workers.
    auto *created = new dpk_pl_device_s{describeHost(topology, concurrency), tbb::task_arena(concurrency, 1)};
    return created;
  }();
  return device;
}

dpk_status_t getDevices(uint32_t *count, dpk_pl_device_t *devices) {
  if (devices && *count >= 1)
    devices[0] = hostDevice();
  *count = 1;
  return DPK_SUCCESS;
}

const char *noDeviceReason() { return ""; }

dpk_status_t deviceGetProps(dpk_device_props_t *out, dpk_pl_device_t device) {
  plugin::copyDeviceProps(device->props, out);
  return DPK_SUCCESS;
}

dpk_status_t contextCreate(dpk_pl_context_t *out, dpk_pl_device_t device) {
  *out = new dpk_pl_context_s{device};
  return DPK_SUCCESS;
}

dpk_status_t contextRelease(dpk_pl_context_t context) {
  delete context;
  return DPK_SUCCESS;
}

dpk_status_t init(const dpk_plugin_host_services_t *) { return DPK_SUCCESS; }
void shutdown() {}

} // namespace dpk::host

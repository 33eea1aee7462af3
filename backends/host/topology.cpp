// topology.cpp - reads the machine topology with hwloc (and the CPU's name from /proc/cpuinfo).
#include "topology.hpp"

#include <hwloc.h>

#include <fstream>
#include <thread>

namespace dpk::host {
namespace {

unsigned countObjects(hwloc_topology_t topology, hwloc_obj_type_t type) {
  int n = hwloc_get_nbobjs_by_type(topology, type);
  return n > 0 ? static_cast<unsigned>(n) : 0;
}

uint64_t firstCacheSize(hwloc_topology_t topology, hwloc_obj_type_t type) {
  hwloc_obj_t obj = hwloc_get_obj_by_type(topology, type, 0);
  return obj && obj->attr ? obj->attr->cache.size : 0;
}

std::string readCpuName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0)
      continue;
    auto colon = line.find(':');
    if (colon != std::string::npos)
      return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "host CPU";
}

Topology readTopology() {
  Topology result;
  result.cpuName = readCpuName();
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) {
    result.processingUnits = std::max(1u, std::thread::hardware_concurrency());
    result.cores = result.processingUnits;
    return result;
  }
  // hwloc 2 restricts the topology to the CPUs this process may use, so a container or a
  // taskset limit is honored without further work.
  if (hwloc_topology_load(topology) == 0) {
    result.processingUnits = std::max(1u, countObjects(topology, HWLOC_OBJ_PU));
    result.cores = std::max(1u, countObjects(topology, HWLOC_OBJ_CORE));
    result.numaNodes = std::max(1u, countObjects(topology, HWLOC_OBJ_NUMANODE));
    result.cacheSizes[0] = firstCacheSize(topology, HWLOC_OBJ_L1CACHE);
    result.cacheSizes[1] = firstCacheSize(topology, HWLOC_OBJ_L2CACHE);
    result.cacheSizes[2] = firstCacheSize(topology, HWLOC_OBJ_L3CACHE);
    hwloc_obj_t root = hwloc_get_root_obj(topology);
    result.totalMemory = root ? root->total_memory : 0;
  }
  hwloc_topology_destroy(topology);
  return result;
}

} // namespace

const Topology &machineTopology() {
  static const Topology topology = readTopology();
  return topology;
}

} // namespace dpk::host

// topology.hpp - what hwloc says about this machine: cores, NUMA nodes, caches.
#ifndef DPK_BACKENDS_HOST_TOPOLOGY_HPP
#define DPK_BACKENDS_HOST_TOPOLOGY_HPP

#include <cstdint>
#include <string>

namespace dpk::host {

struct Topology {
  unsigned processingUnits = 1; // hardware threads this process may run on
  unsigned cores = 1;
  unsigned numaNodes = 1;
  uint64_t cacheSizes[3] = {0, 0, 0}; // L1d, L2, L3 in bytes
  uint64_t totalMemory = 0;
  std::string cpuName;                // "model name" of /proc/cpuinfo
};

/// Reads the topology once; later calls return the same object.
const Topology &machineTopology();

} // namespace dpk::host

#endif

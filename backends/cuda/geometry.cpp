// geometry.cpp - grid and block selection for dpk launches on CUDA.
#include "geometry.hpp"

#include <cassert>
#include <cstdint>

namespace dpk::cuda {

uint64_t largestDivisorAtMost(uint64_t value, uint64_t limit) {
  if (limit >= value)
    return value;
  for (uint64_t d = limit; d > 1; --d)
    if (value % d == 0)
      return d;
  return 1;
}

std::string computeGeometry(const dpk_launch_config_t &config, const BlockLimits &limits,
                            Geometry &out) {
  assert(config.dims >= 1 && config.dims <= 3 && "the core checks the range's shape");
  const uint32_t dims = config.dims;
  uint64_t global[3] = {1, 1, 1};
  uint64_t local[3] = {1, 1, 1};
  bool range = true;
  for (uint32_t d = 0; d < dims; ++d) {
    global[dims - 1 - d] = config.global_size[d];
    local[dims - 1 - d] = config.local_size[d];
    range = range && config.local_size[d] == 0;
    assert(config.global_size[d] != 0 && "the core checks the range's shape");
  }
  if (range) {
    // Range launch: fill x, then y, then z, within the thread budget.
    uint64_t budget = limits.maxThreads < RangeBlockThreads ? limits.maxThreads : RangeBlockThreads;
    for (int i = 0; i < 3; ++i) {
      uint64_t cap = budget < limits.maxBlock[i] ? budget : limits.maxBlock[i];
      local[i] = largestDivisorAtMost(global[i], cap);
      budget /= local[i];
    }
  }
  uint64_t threads = 1;
  // The work-group in dpk order, for messages only: built when a check fails, not per launch.
  auto shape = [&] {
    std::string text;
    for (uint32_t d = 0; d < dims; ++d)
      text += (d ? "x" : "") + std::to_string(local[dims - 1 - d]);
    return text;
  };
  for (int i = 0; i < 3; ++i) {
    threads *= local[i];
    // A Range picks divisors; the core checks that an NdRange's local sizes divide.
    assert(local[i] != 0 && global[i] % local[i] == 0 && "the core checks the range's shape");
    if (local[i] > limits.maxBlock[i]) {
      uint32_t d = dims - 1 - i;
      return "local size " + std::to_string(local[i]) + " in dimension " + std::to_string(d) +
             " exceeds the device's limit of " + std::to_string(limits.maxBlock[i]) +
             " (CUDA block dimension " + "xyz"[i] + ")";
    }
  }
  if (threads > limits.maxThreads)
    return "work-group of " + std::to_string(threads) + " work-items (" + shape() +
           ") exceeds this kernel's limit of " + std::to_string(limits.maxThreads) +
           " work-items per work-group";
  for (int i = 0; i < 3; ++i) {
    uint64_t groups = global[i] / local[i];
    if (groups > limits.maxGrid[i]) {
      uint32_t d = dims - 1 - i;
      return std::to_string(groups) + " work-groups in dimension " + std::to_string(d) +
             " exceed the device's limit of " + std::to_string(limits.maxGrid[i]) +
             " (CUDA grid dimension " + "xyz"[i] + ")";
    }
    // dpk's PTX computes global ids and sizes of CUDA y and z in 32 bits (PtxTarget.cpp), exact
    // under every CUDA device's limits so far (65535 blocks of at most 1024 threads). A device
    // reporting larger limits must not silently wrap them.
    if (i > 0 && global[i] > UINT32_MAX) {
      uint32_t d = dims - 1 - i;
      return "global size " + std::to_string(global[i]) + " in dimension " + std::to_string(d) +
             " exceeds 2^32 - 1, the most dpk's PTX indexes in CUDA dimension " + "xyz"[i];
    }
    out.grid[i] = static_cast<uint32_t>(groups);
    out.block[i] = static_cast<uint32_t>(local[i]);
  }
  return {};
}

} // namespace dpk::cuda

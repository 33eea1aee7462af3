// program.hpp - host programs (a copied dpk_host_module_t) and their kernels.
#ifndef DPK_BACKENDS_HOST_PROGRAM_HPP
#define DPK_BACKENDS_HOST_PROGRAM_HPP

#include "dpk/plugin.h"
#include "entries.hpp"
#include "launch_cost.hpp"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

struct dpk_pl_program_s {
  struct Entry {
    std::string name;
    dpk_host_kernel_entry_t entry; // entry.name points into `name`
    // What the kernel's launches cost. Kernels and commands in flight point at it: both keep
    // the program alive, and the heap cell stays put while `entries` grows.
    std::unique_ptr<dpk::host::LaunchCost> cost = std::make_unique<dpk::host::LaunchCost>();
  };
  std::vector<Entry> entries;
  std::atomic<int> references{1}; // the core's handle plus one per kernel
  void release() {
    if (references.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }
};

struct dpk_pl_kernel_s {
  dpk_pl_program_t program; // retained
  dpk_host_kernel_entry_t entry;
  dpk::host::LaunchCost *cost; // the program entry's
};

namespace dpk::host {
} // namespace dpk::host

#endif

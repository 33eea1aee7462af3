// program.hpp - host programs (a copied dpk_host_module_t) and their kernels.
#ifndef DPK_BACKENDS_HOST_PROGRAM_HPP
#define DPK_BACKENDS_HOST_PROGRAM_HPP

#include "dpk/plugin.h"
#include "entries.hpp"

#include <atomic>
#include <string>
#include <vector>

struct dpk_pl_program_s {
  struct Entry {
    std::string name;
    dpk_host_kernel_entry_t entry; // entry.name points into `name`
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
};

namespace dpk::host {
} // namespace dpk::host

#endif

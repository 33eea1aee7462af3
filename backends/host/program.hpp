// program.hpp - host programs (a copied dpk_host_module_t) and their kernels.
#ifndef DPK_BACKENDS_HOST_PROGRAM_HPP
#define DPK_BACKENDS_HOST_PROGRAM_HPP

#include "dpk/plugin.h"

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
dpk_status_t programCreate(dpk_pl_context_t context, dpk_artifact_format_t format, const void *data,
                           size_t size, const char *options, dpk_pl_program_t *out);
dpk_status_t programRelease(dpk_pl_program_t program);
dpk_status_t kernelCreate(dpk_pl_program_t program, const char *name, dpk_pl_kernel_t *out);
dpk_status_t kernelRelease(dpk_pl_kernel_t kernel);
dpk_status_t kernelMaxWorkGroupSize(dpk_pl_kernel_t kernel, uint64_t *out);
} // namespace dpk::host

#endif

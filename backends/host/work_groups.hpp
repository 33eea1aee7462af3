// work_groups.hpp - runs one kernel launch over all its work-groups with oneTBB.
#ifndef DPK_BACKENDS_HOST_WORK_GROUPS_HPP
#define DPK_BACKENDS_HOST_WORK_GROUPS_HPP

#include "dpk/plugin.h"
#include "inline_array.hpp"
#include "launch_cost.hpp"

#include <cstdint>
#include <string>

namespace dpk::host {

/// Kernel arguments copied at enqueue time (the caller may reuse its storage at once). A launch
/// of up to kInlineArguments arguments of up to 16 bytes each allocates nothing.
struct ArgumentPack {
  static constexpr size_t kInlineArguments = 16; // a kernel of five 2-D views plus a scalar
  struct alignas(16) Slot {
    unsigned char bytes[16];
  };
  InlineArray<Slot, kInlineArguments + 1> slots;       // every argument value, 16-byte aligned
  InlineArray<uint32_t, kInlineArguments> offsets;     // the slot where argument i's value starts
  InlineArray<size_t, kInlineArguments> localSizes;    // bytes of local memory for DPK_ARG_LOCAL,
                                                       // else 0; empty when no argument is local

  /// Copies the launch's arguments (their values, and the sizes of local ones).
  void assign(uint32_t numArgs, const dpk_kernel_arg_t *args);
  /// Where argument i's value is (what a work-group function's argument array points to).
  void *value(size_t i) const { return const_cast<unsigned char *>(slots[offsets[i]].bytes); }
};

/// The work-group shape of a launch: an NdRange's own, or the one chosen for a Range.
struct GroupShape {
  uint32_t dims;
  uint64_t global[3];
  uint64_t local[3];
};

/// Picks the work-group shape of a well-formed launch (the core checks the range's shape): an
/// NdRange's own, or one chosen for a Range launch (local sizes all zero). A kernel specialized
/// on a local size (required_local_size) gets that one. Checks the host's work-group limit and
/// the kernel's compiled local size; errors name the dimension.
dpk_status_t chooseGroupShape(const dpk_launch_config_t &config, const dpk_host_kernel_entry_t &entry,
                              GroupShape &out, std::string &error);

/// Runs every work-group of the launch and returns when all finished: on the task arena, split
/// as the kernel's `cost` of earlier launches suggests (launch_cost.hpp; null: as oneTBB's
/// partitioner sees fit), and records this launch's cost there.
void runLaunch(const dpk_host_kernel_entry_t &entry, const GroupShape &shape, const ArgumentPack &args,
               LaunchCost *cost);

} // namespace dpk::host

#endif

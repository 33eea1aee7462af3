// HostKernels.h - small native host kernels for tests (dpk_program_create_from_host).
#ifndef DPK_TESTS_SUPPORT_HOSTKERNELS_H
#define DPK_TESTS_SUPPORT_HOSTKERNELS_H

#include "dpk/dpk.h"

#include <cstdint>

namespace dpk::test {

inline uint64_t linearId(const dpk_host_item_t *item) {
  uint64_t id = 0;
  for (uint32_t d = 0; d < item->dims; ++d)
    id = id * item->global_size[d] + item->global_id[d];
  return id;
}

/// x[i] = i
inline void iotaKernel(const dpk_host_item_t *item, void *const *args) {
  int32_t *x = *static_cast<int32_t *const *>(args[0]);
  uint64_t i = linearId(item);
  x[i] = static_cast<int32_t>(i);
}

/// x[i] = x[i] * 2
inline void doubleKernel(const dpk_host_item_t *item, void *const *args) {
  int32_t *x = *static_cast<int32_t *const *>(args[0]);
  x[linearId(item)] *= 2;
}

/// x[i] = x[i] + k (k: i32 scalar)
inline void addKernel(const dpk_host_item_t *item, void *const *args) {
  int32_t *x = *static_cast<int32_t *const *>(args[0]);
  int32_t k = *static_cast<const int32_t *>(args[1]);
  x[linearId(item)] += k;
}

/// A work-group kernel over 1-D NdRanges: out[g*L + l] = g * 1000 + l.
inline void groupIdsKernel(const dpk_host_work_group_t *group, void *const *args) {
  int32_t *out = *static_cast<int32_t *const *>(args[0]);
  uint64_t g = group->group_id[0];
  uint64_t local = group->local_size[0];
  for (uint64_t l = 0; l < local; ++l)
    out[g * local + l] = static_cast<int32_t>(g * 1000 + l);
}

inline const dpk_host_kernel_entry_t TestKernels[] = {
    {"iota", DPK_HOST_KERNEL_ITEM, reinterpret_cast<void (*)(void)>(&iotaKernel), {0, 0, 0}},
    {"double", DPK_HOST_KERNEL_ITEM, reinterpret_cast<void (*)(void)>(&doubleKernel), {0, 0, 0}},
    {"add", DPK_HOST_KERNEL_ITEM, reinterpret_cast<void (*)(void)>(&addKernel), {0, 0, 0}},
    {"group_ids", DPK_HOST_KERNEL_GROUP, reinterpret_cast<void (*)(void)>(&groupIdsKernel),
     {0, 0, 0}},
};
inline constexpr uint32_t NumTestKernels = 4;

inline dpk_arg_t pointerArg(void *address) { return {DPK_ARG_POINTER, sizeof(void *), address}; }
inline dpk_arg_t scalarArg(const int32_t *value) { return {DPK_ARG_SCALAR, sizeof(*value), value}; }

inline dpk_launch_config_t range1d(uint64_t n) { return {1, {n, 0, 0}, {0, 0, 0}}; }
inline dpk_launch_config_t ndRange1d(uint64_t n, uint64_t local) {
  return {1, {n, 0, 0}, {local, 0, 0}};
}

} // namespace dpk::test

#endif // DPK_TESTS_SUPPORT_HOSTKERNELS_H

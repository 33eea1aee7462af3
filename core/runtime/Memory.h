// Memory.h - USM-style allocations and the table that says which device owns an address.
//
// The table maps address ranges to {device, kind, size}. It answers "who owns this pointer" for
// dpk_mem_free, for placement checks at launch and copy time, and for fallback migration (device
// memory of a failed device is staged through the host).
#ifndef DPK_CORE_RUNTIME_MEMORY_H
#define DPK_CORE_RUNTIME_MEMORY_H

#include "dpk/dpk_types.h"
#include "support/Error.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>
#include <utility>

namespace dpk::runtime {

class Device;

struct Allocation {
  void *base = nullptr;
  size_t size = 0;
  Device *device = nullptr;
  dpk_mem_kind_t kind = DPK_MEM_DEVICE;
};

class AllocationTable {
public:
  void insert(const Allocation &allocation);
  /// Removes the allocation starting exactly at `base`; nullopt when there is none.
  std::optional<Allocation> eraseAt(void *base);
  /// The allocation containing `address` (base <= address < base + size).
  std::optional<Allocation> find(const void *address) const;
  /// Whether no device but `device` holds device memory, read from two atomics without a lock:
  /// then no address a caller already has can be another device's memory. (An allocation another
  /// thread makes meanwhile cannot be among them.) The launch path's placement check asks this
  /// before it gathers any address.
  bool noOtherDeviceHoldsMemory(const Device *device) const {
    size_t owners = deviceOwners_.load();
    return owners == 0 || (owners == 1 && soleOwner_.load() == device);
  }
  /// The first of `count` addresses that lies in device memory of another device than
  /// `device`, with its index, looked up under one lock (the launch path's placement check).
  std::optional<std::pair<size_t, Allocation>>
  firstInOtherDevicesMemory(const void *const *addresses, size_t count, const Device *device) const;
  size_t size() const;

private:
  const Allocation *findLocked(uintptr_t key) const;
  /// Keeps deviceOwners_ / soleOwner_ in step with a device allocation coming or going (under
  /// the unique lock).
  void countDeviceAllocation(const Allocation &allocation, bool added);

  mutable std::shared_mutex mutex_;
  std::map<uintptr_t, Allocation> byBase_;
  // Devices that hold device memory, with how many allocations each. When at most one device
  // does, the launch path's placement check needs no lookup (firstInOtherDevicesMemory reads
  // the two atomics below): a launch on that device cannot be given another device's memory.
  std::map<const Device *, size_t> deviceAllocationCounts_;
  std::atomic<size_t> deviceOwners_{0};
  std::atomic<const Device *> soleOwner_{nullptr};
};

/// "device", "shared", "host".
const char *memKindName(const dpk_mem_kind_t &kind);

/// Allocates through the device's plugin and records the allocation.
Expected<void *> allocateMemory(Device &device, const dpk_mem_kind_t &kind, size_t size);
/// Frees an allocation made by allocateMemory (ptr must be its start).
Error freeMemory(void *ptr);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_MEMORY_H

// Memory.cpp - allocation, free and the address-range table.
#include "runtime/Memory.h"

#include "runtime/Device.h"
#include "runtime/LastError.h"
#include "runtime/Registry.h"

#include <mutex>

namespace dpk::runtime {
namespace {

// Enough for any vector type a kernel may load (16 x f64) and for cache-line alignment.
constexpr size_t AllocationAlignment = 128;

} // namespace

const char *memKindName(const dpk_mem_kind_t &kindArgument) {
  int kind = enumValue(kindArgument);
  if (kind == DPK_MEM_DEVICE)
    return "device";
  if (kind == DPK_MEM_SHARED)
    return "shared";
  if (kind == DPK_MEM_HOST)
    return "host";
  return "unknown";
}

void AllocationTable::countDeviceAllocation(const Allocation &allocation, bool added) {
  if (allocation.kind != DPK_MEM_DEVICE)
    return;
  size_t &count = deviceAllocationCounts_[allocation.device];
  count = added ? count + 1 : count - 1;
  if (count == 0)
    deviceAllocationCounts_.erase(allocation.device);
  soleOwner_.store(deviceAllocationCounts_.size() == 1 ? deviceAllocationCounts_.begin()->first
                                                       : nullptr);
  deviceOwners_.store(deviceAllocationCounts_.size());
}

void AllocationTable::insert(const Allocation &allocation) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto [it, added] = byBase_.emplace(reinterpret_cast<uintptr_t>(allocation.base), allocation);
  if (!added) { // a base recorded again replaces what was there
    countDeviceAllocation(it->second, false);
    it->second = allocation;
  }
  countDeviceAllocation(allocation, true);
}

std::optional<Allocation> AllocationTable::eraseAt(void *base) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = byBase_.find(reinterpret_cast<uintptr_t>(base));
  if (it == byBase_.end())
    return std::nullopt;
  Allocation allocation = it->second;
  byBase_.erase(it);
  countDeviceAllocation(allocation, false);
  return allocation;
}

const Allocation *AllocationTable::findLocked(uintptr_t key) const {
  auto it = byBase_.upper_bound(key);
  if (it == byBase_.begin())
    return nullptr;
  --it;
  const Allocation &allocation = it->second;
  // A zero-size allocation still owns its base address.
  if (key >= it->first + std::max<size_t>(allocation.size, 1))
    return nullptr;
  return &allocation;
}

std::optional<Allocation> AllocationTable::find(const void *address) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  const Allocation *allocation = findLocked(reinterpret_cast<uintptr_t>(address));
  if (!allocation)
    return std::nullopt;
  return *allocation;
}

std::optional<std::pair<size_t, Allocation>>
AllocationTable::firstInOtherDevicesMemory(const void *const *addresses, size_t count,
                                           const Device *device) const {
  if (noOtherDeviceHoldsMemory(device))
    return std::nullopt;
  std::shared_lock<std::shared_mutex> lock(mutex_);
  for (size_t i = 0; i < count; ++i) {
    const Allocation *allocation = findLocked(reinterpret_cast<uintptr_t>(addresses[i]));
    if (allocation && allocation->kind == DPK_MEM_DEVICE && allocation->device != device)
      return std::make_pair(i, *allocation);
  }
  return std::nullopt;
}

size_t AllocationTable::size() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return byBase_.size();
}

Expected<void *> allocateMemory(Device &device, const dpk_mem_kind_t &kindArgument, size_t size) {
  int rawKind = enumValue(kindArgument);
  if (rawKind != DPK_MEM_DEVICE && rawKind != DPK_MEM_SHARED && rawKind != DPK_MEM_HOST)
    return Error(DPK_ERROR_INVALID_ARGUMENT, "unknown memory kind " + std::to_string(rawKind));
  dpk_mem_kind_t kind = kindArgument;
  Expected<dpk_pl_context_t> context = device.context();
  if (!context)
    return context.takeError();
  // More than the device can allocate at once is out of memory before any plugin is asked: a
  // plugin's own arithmetic on such sizes may wrap (issue 15, I).
  uint64_t limit = device.props().max_alloc_size;
  if (limit != 0 && size > limit)
    return Error(DPK_ERROR_OUT_OF_DEVICE_MEMORY,
                 "allocating " + std::to_string(size) + " bytes of " + memKindName(kind) +
                     " memory on " + device.describe() + ": the device allocates at most " +
                     std::to_string(limit) + " bytes at once");
  void *ptr = nullptr;
  // A zero-byte request still returns a unique, freeable address.
  size_t bytes = size == 0 ? 1 : size;
  if (Error error = device.plugin().check(
          device.plugin().table.mem_alloc(&ptr, *context, kind, bytes, AllocationAlignment),
          "allocating " + std::to_string(size) + " bytes of " + memKindName(kind) +
              " memory on " + device.describe()))
    return error;
  Registry::get().allocations().insert({ptr, size, &device, kind});
  return ptr;
}

Error freeMemory(void *ptr) {
  std::optional<Allocation> allocation = Registry::get().allocations().eraseAt(ptr);
  if (!allocation) {
    if (Registry::get().allocations().find(ptr))
      return Error(DPK_ERROR_INVALID_ARGUMENT,
                   "dpk_mem_free: pointer is inside an allocation, not at its start");
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "dpk_mem_free: pointer was not allocated by dpk_mem_alloc (or already freed)");
  }
  Device &device = *allocation->device;
  Expected<dpk_pl_context_t> context = device.context();
  if (!context)
    return context.takeError();
  return device.plugin().check(device.plugin().table.mem_free(*context, ptr),
                               "freeing memory on " + device.describe());
}

} // namespace dpk::runtime

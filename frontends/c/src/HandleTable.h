// HandleTable.h - the C API's queue, event, program and kernel handles: generation-checked
// slots, so a released, double-released or forged handle is DPK_ERROR_INVALID_HANDLE rather
// than a use of freed memory.
//
// A handle is not a pointer to its object: it is (generation << 32) | (slot + 1). The slot holds
// the object (one runtime reference, owned by the handle), its kind and the number of user
// references (dpk_*_retain adds one, dpk_*_release drops one). When the last user reference goes,
// the slot's generation moves on and the object's reference is dropped; the old handle value
// then matches no live slot, however often it is released again. Slots are reused, never freed,
// and live in chunks that never move, so a lookup (every entry point, the launch path included)
// takes no lock: two atomic loads and a compare.
#ifndef DPK_FRONTENDS_C_SRC_HANDLETABLE_H
#define DPK_FRONTENDS_C_SRC_HANDLETABLE_H

#include "runtime/RefCounted.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace dpk::capi {

class HandleTable {
public:
  static HandleTable &get();

  /// A new handle owning one reference of `object` (which the caller gives up).
  uint64_t add(runtime::RefCounted *object, runtime::HandleKind kind);
  /// The object of a live handle of `kind`, or nullptr for a stale, foreign or mistyped one.
  /// Inline, as the lookups it makes: every entry point takes this path, a launch twice.
  runtime::RefCounted *find(uint64_t handle, runtime::HandleKind kind) const {
    Slot *slot = liveSlot(handle, kind);
    return slot ? slot->object.load(std::memory_order_acquire) : nullptr;
  }
  /// One more user reference; false when the handle is not live.
  bool retain(uint64_t handle, runtime::HandleKind kind);
  /// One user reference less; the last retires the handle and drops the object's reference.
  /// False when the handle is not live (a double release lands here).
  bool release(uint64_t handle, runtime::HandleKind kind);

private:
  static constexpr uint32_t ChunkBits = 12;
  static constexpr uint32_t ChunkSize = 1u << ChunkBits;
  static constexpr uint32_t MaxChunks = 1u << 14; // 64 Mi live handles

  struct Slot {
    std::atomic<uint32_t> generation{1};
    std::atomic<uint32_t> kind{0};
    std::atomic<runtime::RefCounted *> object{nullptr};
    uint32_t userRefs = 0; // guarded by mutex_
  };
  using Chunk = std::array<Slot, ChunkSize>;

  Slot *slotAt(uint32_t index) const {
    uint32_t chunk = index >> ChunkBits;
    if (chunk >= MaxChunks)
      return nullptr;
    Chunk *slots = chunks_[chunk].load(std::memory_order_acquire);
    return slots ? &(*slots)[index & (ChunkSize - 1)] : nullptr;
  }
  /// The live slot a handle names, or nullptr (mutex_ held or not: reads are atomic).
  Slot *liveSlot(uint64_t handle, runtime::HandleKind kind) const {
    uint32_t low = static_cast<uint32_t>(handle);
    if (low == 0)
      return nullptr;
    Slot *slot = slotAt(low - 1);
    if (!slot)
      return nullptr;
    uint32_t generation = static_cast<uint32_t>(handle >> 32);
    if (slot->generation.load(std::memory_order_acquire) != generation ||
        slot->kind.load(std::memory_order_acquire) != static_cast<uint32_t>(kind))
      return nullptr;
    return slot;
  }

  std::array<std::atomic<Chunk *>, MaxChunks> chunks_{};
  std::mutex mutex_; // slot allocation, user reference counts, retirement
  std::vector<uint32_t> freeSlots_;
  uint32_t usedSlots_ = 0;
  std::vector<std::unique_ptr<Chunk>> owned_;
};

/// A new handle of type Handle for `object`, owning the reference the Ref held.
template <typename Handle, typename Object> Handle newHandle(runtime::Ref<Object> &object) {
  runtime::RefCounted *raw = object.leak();
  uint64_t value = HandleTable::get().add(raw, raw->handleKind());
  return reinterpret_cast<Handle>(static_cast<uintptr_t>(value));
}

/// The numeric value of an opaque handle.
template <typename Handle> uint64_t handleValue(Handle handle) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
}

} // namespace dpk::capi

#endif // DPK_FRONTENDS_C_SRC_HANDLETABLE_H

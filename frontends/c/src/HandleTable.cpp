// HandleTable.cpp - generation-checked handle slots of the C API.
#include "HandleTable.h"

#include <new>

namespace dpk::capi {

HandleTable &HandleTable::get() {
  // Never destroyed: handles may be used from static destructors of the application.
  static HandleTable *table = new HandleTable();
  return *table;
}

uint64_t HandleTable::add(runtime::RefCounted *object, runtime::HandleKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t index;
  if (!freeSlots_.empty()) {
    index = freeSlots_.back();
    freeSlots_.pop_back();
  } else {
    index = usedSlots_++;
    uint32_t chunk = index >> ChunkBits;
    if (chunk >= MaxChunks)
      throw std::bad_alloc(); // apiEntry turns it into DPK_ERROR_OUT_OF_HOST_MEMORY
    if (!chunks_[chunk].load(std::memory_order_relaxed)) {
      owned_.push_back(std::make_unique<Chunk>());
      chunks_[chunk].store(owned_.back().get(), std::memory_order_release);
    }
  }
  Slot *slot = slotAt(index);
  slot->userRefs = 1;
  slot->object.store(object, std::memory_order_relaxed);
  slot->kind.store(static_cast<uint32_t>(kind), std::memory_order_relaxed);
  uint32_t generation = slot->generation.load(std::memory_order_relaxed);
  // Published last: a lookup that sees this generation sees the object and kind above.
  slot->generation.store(generation, std::memory_order_release);
  return (static_cast<uint64_t>(generation) << 32) | (index + 1);
}

bool HandleTable::retain(uint64_t handle, runtime::HandleKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  Slot *slot = liveSlot(handle, kind);
  if (!slot)
    return false;
  ++slot->userRefs;
  return true;
}

bool HandleTable::release(uint64_t handle, runtime::HandleKind kind) {
  runtime::RefCounted *object = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Slot *slot = liveSlot(handle, kind);
    if (!slot)
      return false;
    if (--slot->userRefs != 0)
      return true;
    object = slot->object.exchange(nullptr, std::memory_order_acq_rel);
    slot->kind.store(0, std::memory_order_relaxed);
    // Generation 0 is never handed out, so a retired slot matches no handle until reused.
    uint32_t next = slot->generation.load(std::memory_order_relaxed) + 1;
    slot->generation.store(next == 0 ? 1 : next, std::memory_order_release);
    freeSlots_.push_back(static_cast<uint32_t>(handle) - 1);
  }
  object->release(); // outside the lock: destroying an object may wait on a queue
  return true;
}

} // namespace dpk::capi

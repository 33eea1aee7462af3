// RefCounted.h - the thread-safe reference count behind every C API handle.
//
// A handle starts with one reference (the creator's). release() destroys the object when the
// last reference goes. The kind tag lets the C API reject a handle of the wrong type or one
// already destroyed (best effort: the tag is cleared in the destructor).
#ifndef DPK_CORE_RUNTIME_REFCOUNTED_H
#define DPK_CORE_RUNTIME_REFCOUNTED_H

#include <atomic>
#include <cstdint>

namespace dpk::runtime {

enum class HandleKind : uint32_t {
  Dead = 0,
  Queue = 0x51554555,   // "QUEU"
  Event = 0x45564E54,   // "EVNT"
  Program = 0x50524F47, // "PROG"
  Kernel = 0x4B45524E   // "KERN"
};

class RefCounted {
public:
  explicit RefCounted(HandleKind kind) : kind_(kind) {}
  RefCounted(const RefCounted &) = delete;
  RefCounted &operator=(const RefCounted &) = delete;
  virtual ~RefCounted() { kind_ = HandleKind::Dead; }

  HandleKind handleKind() const { return kind_; }
  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  /// Drops one reference; deletes the object when it was the last.
  void release() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }

private:
  std::atomic<uint32_t> refs_{1};
  HandleKind kind_;
};

/// A retained pointer: retains on copy, releases on destruction.
template <typename T> class Ref {
public:
  Ref() = default;
  /// Adopts one existing reference (no retain).
  static Ref adopt(T *object) {
    Ref ref;
    ref.object_ = object;
    return ref;
  }
  /// Takes a new reference.
  static Ref share(T *object) {
    if (object)
      object->retain();
    return adopt(object);
  }
  Ref(const Ref &other) : object_(other.object_) {
    if (object_)
      object_->retain();
  }
  Ref(Ref &&other) noexcept : object_(other.object_) { other.object_ = nullptr; }
  Ref &operator=(Ref other) {
    std::swap(object_, other.object_);
    return *this;
  }
  ~Ref() {
    if (object_)
      object_->release();
  }
  T *get() const { return object_; }
  T *operator->() const { return object_; }
  T &operator*() const { return *object_; }
  explicit operator bool() const { return object_ != nullptr; }
  /// Gives the reference to the caller.
  T *leak() {
    T *object = object_;
    object_ = nullptr;
    return object;
  }

private:
  T *object_ = nullptr;
};

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_REFCOUNTED_H

// InlineVector.h - a vector of trivially copyable values that keeps its first N elements inside
// the object and moves to the heap only beyond them.
//
// Why: the per-launch path marshals a handful of arguments per launch. With std::vector each of
// its five lists cost an allocation and a free per launch, about a fifth of the core's
// instructions on an empty launch (docs/benchmarks.md, "C API launch overhead"). Only what that
// path uses is here: push_back, reserve, resize, indexing, iteration, data(); no erase or insert.
#ifndef DPK_CORE_SUPPORT_INLINEVECTOR_H
#define DPK_CORE_SUPPORT_INLINEVECTOR_H

#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

namespace dpk {

template <typename T, size_t N> class InlineVector {
  static_assert(std::is_trivially_copyable_v<T>, "InlineVector copies its elements bytewise");

public:
  InlineVector() = default;
  InlineVector(const InlineVector &) = delete;
  InlineVector &operator=(const InlineVector &) = delete;

  /// Room for `count` elements. Pointers to elements stay valid until the size passes the
  /// capacity, so callers that hand out element addresses reserve first.
  void reserve(size_t count) {
    if (count <= capacity_)
      return;
    auto grown = std::make_unique<T[]>(count);
    if (size_)
      std::memcpy(grown.get(), data(), size_ * sizeof(T));
    heap_ = std::move(grown);
    capacity_ = count;
  }
  /// `count` elements; new ones are left uninitialized for the caller to write. The launch path
  /// sizes its lists once and fills them through data(), with no size check per element.
  void resize(size_t count) {
    reserve(count);
    size_ = count;
  }
  void push_back(const T &value) {
    if (size_ == capacity_)
      reserve(capacity_ * 2);
    data()[size_++] = value;
  }

  T *data() { return heap_ ? heap_.get() : reinterpret_cast<T *>(inline_); }
  const T *data() const { return heap_ ? heap_.get() : reinterpret_cast<const T *>(inline_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T &operator[](size_t i) { return data()[i]; }
  const T &operator[](size_t i) const { return data()[i]; }
  T &back() { return data()[size_ - 1]; }
  T *begin() { return data(); }
  T *end() { return data() + size_; }
  const T *begin() const { return data(); }
  const T *end() const { return data() + size_; }

private:
  alignas(T) unsigned char inline_[N * sizeof(T)];
  std::unique_ptr<T[]> heap_;
  size_t size_ = 0;
  size_t capacity_ = N;
};

} // namespace dpk

#endif // DPK_CORE_SUPPORT_INLINEVECTOR_H

// inline_array.hpp - a growable array of trivially copyable values that keeps its first N in
// place. A launch's arguments, their pointers and its dependencies are a handful; a heap
// allocation for each of them was a measurable part of what a host launch cost (queue.hpp).
#ifndef DPK_BACKENDS_HOST_INLINE_ARRAY_HPP
#define DPK_BACKENDS_HOST_INLINE_ARRAY_HPP

#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

namespace dpk::host {

template <typename T, size_t N> class InlineArray {
  static_assert(std::is_trivially_copyable_v<T>, "elements are moved with memcpy");

public:
  InlineArray() = default;
  InlineArray(const InlineArray &) = delete;
  InlineArray &operator=(const InlineArray &) = delete;
  InlineArray(InlineArray &&other) noexcept { take(other); }
  InlineArray &operator=(InlineArray &&other) noexcept {
    if (this != &other)
      take(other);
    return *this;
  }

  T *data() { return heap ? heap.get() : inlineElements; }
  const T *data() const { return heap ? heap.get() : inlineElements; }
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  T &operator[](size_t i) { return data()[i]; }
  const T &operator[](size_t i) const { return data()[i]; }
  T *begin() { return data(); }
  T *end() { return data() + count; }
  const T *begin() const { return data(); }
  const T *end() const { return data() + count; }

  /// Resizes to `n` elements; new ones are value-initialized (zero for scalars).
  void resize(size_t n) {
    reserve(n);
    T *elements = data();
    for (size_t i = count; i < n; ++i)
      elements[i] = T{};
    count = n;
  }
  void push_back(const T &value) {
    if (count == capacity)
      reserve(capacity * 2);
    data()[count++] = value;
  }

private:
  void reserve(size_t n) {
    if (n <= capacity)
      return;
    std::unique_ptr<T[]> grown(new T[n]);
    std::memcpy(static_cast<void *>(grown.get()), data(), count * sizeof(T));
    heap = std::move(grown);
    capacity = n;
  }
  void take(InlineArray &other) {
    heap = std::move(other.heap);
    capacity = heap ? other.capacity : N;
    count = other.count;
    if (!heap)
      std::memcpy(static_cast<void *>(inlineElements), other.inlineElements, count * sizeof(T));
    other.count = 0;
    other.capacity = N;
  }

  std::unique_ptr<T[]> heap; // null while the elements fit in place
  size_t count = 0;
  size_t capacity = N;
  T inlineElements[N];
};

} // namespace dpk::host

#endif

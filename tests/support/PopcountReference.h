// PopcountReference.h - inputs and the C++ reference for tests/ir/corpus/popcount.dpkir, shared
// by every test that runs its kernels (@popcount_<T> for the eight integer types).
#ifndef DPK_TESTS_SUPPORT_POPCOUNTREFERENCE_H
#define DPK_TESTS_SUPPORT_POPCOUNTREFERENCE_H

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace dpk::test {

/// The number of set bits of x's two's complement representation, counted one bit at a time
/// (deliberately not a compiler builtin, which the code under test may lower to).
template <typename T> T popcountReference(T x) {
  using U = std::make_unsigned_t<T>;
  U bits = static_cast<U>(x);
  unsigned count = 0;
  for (; bits != 0; bits = static_cast<U>(bits >> 1)) count += bits & 1u;
  return static_cast<T>(count);
}

/// n inputs (n >= 16): 0, 1, -1 (all bits set), the minimum and maximum, alternating and single
/// bit patterns, then pseudo-random bit patterns.
template <typename T> std::vector<T> popcountInputs(size_t n) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned width = sizeof(T) * 8;
  std::vector<T> v = {T(0),
                      T(1),
                      static_cast<T>(~U(0)),
                      std::numeric_limits<T>::min(),
                      std::numeric_limits<T>::max(),
                      static_cast<T>(static_cast<U>(~U(0)) / 3),     // 0x55...
                      static_cast<T>(static_cast<U>(~U(0)) / 3 * 2), // 0xaa...
                      static_cast<T>(U(1) << (width - 1)),
                      static_cast<T>(U(1) << (width / 2)),
                      static_cast<T>(~(U(1) << (width / 2))),
                      T(-2),
                      T(-3),
                      T(100),
                      T(-100),
                      T(7),
                      T(-8)};
  uint64_t state = 0x9e3779b97f4a7c15ull;
  while (v.size() < n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(static_cast<T>(static_cast<U>(state >> (64 - width))));
  }
  v.resize(n);
  return v;
}

/// Calls f(T{}, "<ir type name>") for each integer type popcount.dpkir has a kernel for.
template <typename F> void forEachPopcountType(F &&f) {
  f(int8_t{}, "i8");
  f(int16_t{}, "i16");
  f(int32_t{}, "i32");
  f(int64_t{}, "i64");
  f(uint8_t{}, "u8");
  f(uint16_t{}, "u16");
  f(uint32_t{}, "u32");
  f(uint64_t{}, "u64");
}

} // namespace dpk::test

#endif // DPK_TESTS_SUPPORT_POPCOUNTREFERENCE_H

// Sha256.h - SHA-256 (FIPS 180-4), written for dpk's kernel cache keys and entry checksums.
#ifndef DPK_CORE_CACHE_SHA256_H
#define DPK_CORE_CACHE_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dpk::cache {

using Sha256Digest = std::array<uint8_t, 32>;

/// Incremental SHA-256: update() any number of times, then finish() once.
class Sha256 {
public:
  Sha256();
  void update(const void *data, size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  /// Pads, returns the digest and leaves the object unusable until reset().
  Sha256Digest finish();
  void reset();

private:
  void compressBlock(const uint8_t *block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t bufferSize_ = 0;
  uint64_t totalBytes_ = 0;
};

Sha256Digest sha256(const void *data, size_t size);
/// Lower-case hex of a digest (64 characters).
std::string toHex(const Sha256Digest &digest);
/// Lower-case hex SHA-256 of `text`.
std::string sha256Hex(std::string_view text);

} // namespace dpk::cache

#endif // DPK_CORE_CACHE_SHA256_H

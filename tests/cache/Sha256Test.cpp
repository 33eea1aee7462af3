// Sha256Test.cpp - SHA-256 against the FIPS 180-2 example vectors, incremental updates.
#include "cache/Sha256.h"

#include <gtest/gtest.h>

#include <vector>

namespace dpk::cache {
namespace {

TEST(Sha256, Abc) {
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, Empty) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, TwoBlockMessage448Bits) {
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, Message896Bits) {
  EXPECT_EQ(sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnop"
                      "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionA) {
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalUpdatesMatchOneShot) {
  std::string message;
  for (int i = 0; i < 300; ++i)
    message.push_back(char('a' + (i * 7) % 26));
  std::string expected = sha256Hex(message);
  // Every split point, including ones on and around the 55/56/64-byte padding boundaries.
  for (size_t split = 0; split <= message.size(); ++split) {
    Sha256 hasher;
    hasher.update(message.data(), split);
    hasher.update(message.data() + split, message.size() - split);
    ASSERT_EQ(toHex(hasher.finish()), expected) << "split at " << split;
  }
  // Lengths around the padding boundary hash differently from each other.
  for (size_t length = 54; length <= 66; ++length)
    EXPECT_NE(sha256Hex(message.substr(0, length)), sha256Hex(message.substr(0, length + 1)));
}

// An empty vector's data() is null: hashing it (an empty artifact's payload) must not hand the
// null pointer to memcpy (UBSan's nonnull-argument check, found by the cache entry fuzzer).
TEST(Sha256, NullPointerWithZeroBytesIsTheEmptyMessage) {
  std::vector<uint8_t> empty;
  EXPECT_EQ(toHex(sha256(empty.data(), empty.size())), toHex(sha256("", 0)));
  Sha256 hasher;
  hasher.update("ab", 2);
  hasher.update(nullptr, 0);
  hasher.update("c", 1);
  EXPECT_EQ(toHex(hasher.finish()), toHex(sha256("abc", 3)));
}

TEST(Sha256, ResetStartsOver) {
  Sha256 hasher;
  hasher.update("garbage");
  hasher.finish();
  hasher.reset();
  hasher.update("abc");
  EXPECT_EQ(toHex(hasher.finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

} // namespace
} // namespace dpk::cache

// CacheKeyTest.cpp - every cache key component changes the digest; the encoding is unambiguous.
#include "cache/KernelCache.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

namespace dpk::cache {
namespace {

compiler::CompileOptions baseOptions() {
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::OpenCLC;
  options.targetId = "";
  options.dims = 2;
  options.localSize = {16, 16, 0};
  return options;
}

CacheKey baseKey() { return CacheKey::make("kernel @k() {\n  return\n}\n", baseOptions(), "PoCL"); }

TEST(CacheKey, DigestIsSixtyFourLowerCaseHexDigits) {
  std::string digest = baseKey().digest();
  ASSERT_EQ(digest.size(), 64u);
  for (char c : digest)
    EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << digest;
  EXPECT_EQ(digest, baseKey().digest()) << "digest must be deterministic";
}

TEST(CacheKey, MakeFillsEveryComponent) {
  CacheKey key = baseKey();
  EXPECT_EQ(key.buildIdentity, buildIdentity());
  EXPECT_EQ(key.llvmVersion, llvmVersion());
  EXPECT_EQ(key.target, "opencl-c");
  EXPECT_NE(key.deviceIdentity.find("PoCL"), std::string::npos);
  EXPECT_FALSE(key.options.empty());
  EXPECT_FALSE(key.specialization.empty());
  EXPECT_EQ(buildIdentity().rfind("dpk ", 0), 0u) << buildIdentity();
}

TEST(CacheKey, EachComponentChangesTheDigest) {
  const std::vector<std::pair<const char *, std::function<void(CacheKey &)>>> changes = {
      {"ir", [](CacheKey &k) { k.irText += " "; }},
      {"build", [](CacheKey &k) { k.buildIdentity += "x"; }},
      {"llvm", [](CacheKey &k) { k.llvmVersion = "16.0.0"; }},
      {"target", [](CacheKey &k) { k.target = "spirv"; }},
      {"device", [](CacheKey &k) { k.deviceIdentity += "2"; }},
      {"options", [](CacheKey &k) { k.options += "x"; }},
      {"specialization", [](CacheKey &k) { k.specialization += "x"; }},
  };
  std::set<std::string> digests = {baseKey().digest()};
  for (const auto &change : changes) {
    CacheKey key = baseKey();
    change.second(key);
    EXPECT_TRUE(digests.insert(key.digest()).second) << change.first << " did not change the digest";
  }
}

TEST(CacheKey, EachOptionChangesTheDigest) {
  const std::vector<std::pair<const char *, std::function<void(compiler::CompileOptions &)>>>
      changes = {
          {"target", [](compiler::CompileOptions &o) { o.target = compiler::TargetKind::Ptx; }},
          {"targetId", [](compiler::CompileOptions &o) { o.targetId = "sm_90"; }},
          {"localSize", [](compiler::CompileOptions &o) { o.localSize = {8, 16, 0}; }},
          {"dims", [](compiler::CompileOptions &o) { o.dims = 3; }},
          {"optLevel", [](compiler::CompileOptions &o) { o.optLevel = 0; }},
      };
  std::set<std::string> digests = {baseKey().digest()};
  for (const auto &change : changes) {
    compiler::CompileOptions options = baseOptions();
    change.second(options);
    CacheKey key = CacheKey::make(baseKey().irText, options, "PoCL");
    EXPECT_TRUE(digests.insert(key.digest()).second) << change.first << " did not change the digest";
  }
  CacheKey otherDevice = CacheKey::make(baseKey().irText, baseOptions(), "NVIDIA H100");
  EXPECT_TRUE(digests.insert(otherDevice.digest()).second) << "device identity ignored";
}

TEST(CacheKey, LinkedFilesChangeTheDigestByPathAndContents) {
  // docs/linking.md: every linked file's path and contents; none keeps the old key.
  compiler::CompileOptions options = baseOptions();
  EXPECT_EQ(CacheKey::make(baseKey().irText, options, "PoCL").digest(), baseKey().digest());
  std::set<std::string> digests = {baseKey().digest()};
  for (const compiler::LinkInput &input :
       {compiler::LinkInput{"a.cl", "int f(int x) { return x; }"},
        compiler::LinkInput{"a.cl", "int f(int x) { return x + 1; }"},
        compiler::LinkInput{"b.cl", "int f(int x) { return x + 1; }"}}) {
    options.linkInputs = {input};
    EXPECT_TRUE(digests.insert(CacheKey::make(baseKey().irText, options, "PoCL").digest()).second)
        << input.path << ": " << input.contents;
  }
  // Two files are not the same key as one file holding both.
  options.linkInputs = {{"a.cl", "x"}, {"b.cl", "y"}};
  EXPECT_TRUE(digests.insert(CacheKey::make(baseKey().irText, options, "PoCL").digest()).second);
}

TEST(CacheKey, DumpDirectoryDoesNotChangeTheDigest) {
  compiler::CompileOptions options = baseOptions();
  options.dumpDirectory = "/tmp/somewhere";
  EXPECT_EQ(CacheKey::make(baseKey().irText, options, "PoCL").digest(), baseKey().digest());
}

TEST(CacheKey, ComponentBoundariesAreUnambiguous) {
  CacheKey a = baseKey(), b = baseKey();
  a.irText = "ab";
  a.buildIdentity = "c";
  b.irText = "a";
  b.buildIdentity = "bc";
  EXPECT_NE(a.digest(), b.digest());
}

} // namespace
} // namespace dpk::cache

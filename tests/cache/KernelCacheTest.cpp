// KernelCacheTest.cpp - the memory and disk layers: hits, corrupt entries, modes, concurrency.
#include "ChildDeadline.h"
#include "cache/KernelCache.h"

#include "cache/EntryFile.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <csignal>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace dpk::cache {
namespace {

namespace fs = std::filesystem;

/// A fresh directory under the temp folder, removed at the end of the test.
class TempDirectory {
public:
  TempDirectory() {
    std::string pattern = (fs::temp_directory_path() / "dpk-cache-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

CacheKey testKey(const std::string &ir = "kernel @k() {}") {
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::OpenCLC;
  return CacheKey::make(ir, options, "test-device");
}

compiler::Artifact testArtifact(size_t size = 1000, uint8_t seed = 7) {
  compiler::Artifact artifact;
  artifact.format = DPK_FORMAT_OPENCL_C;
  artifact.bytes.resize(size);
  for (size_t i = 0; i < size; ++i)
    artifact.bytes[i] = uint8_t(seed + i * 31 + (i >> 8));
  return artifact;
}

/// A compile callback that counts its calls.
struct CountingCompiler {
  int calls = 0;
  compiler::Artifact result = testArtifact();
  KernelCache::CompileFn fn() {
    return [this]() -> Expected<compiler::Artifact> {
      ++calls;
      return result;
    };
  }
};

std::vector<std::string> filesUnder(const std::string &directory) {
  std::vector<std::string> files;
  std::error_code error;
  if (!fs::exists(directory, error))
    return files;
  for (const auto &entry : fs::recursive_directory_iterator(directory, error))
    if (entry.is_regular_file())
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

TEST(KernelCache, MissThenMemoryHit) {
  TempDirectory dir;
  KernelCache cache(dir.path());
  CountingCompiler compiler;
  CacheOutcome outcome;
  auto first = cache.getOrCompile(testKey(), compiler.fn(), &outcome);
  ASSERT_TRUE(first);
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::Miss);
  EXPECT_TRUE(outcome.stored) << outcome.note;
  EXPECT_EQ(outcome.digest, testKey().digest());
  EXPECT_GE(outcome.compileMs, 0.0);
  auto second = cache.getOrCompile(testKey(), compiler.fn(), &outcome);
  ASSERT_TRUE(second);
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::HitMemory);
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_EQ(second->bytes, compiler.result.bytes);
  EXPECT_EQ(second->format, DPK_FORMAT_OPENCL_C);
  EXPECT_STREQ(cacheOutcomeName(CacheOutcomeKind::HitMemory), "hit-memory");
}

TEST(KernelCache, EntryLayoutIsShardedByPrefix) {
  TempDirectory dir;
  KernelCache cache(dir.path());
  CountingCompiler compiler;
  ASSERT_TRUE(cache.getOrCompile(testKey(), compiler.fn()));
  std::string digest = testKey().digest();
  std::string expected = dir.path() + "/" + digest.substr(0, 2) + "/" + digest + ".bin";
  EXPECT_EQ(cache.entryPath(testKey()), expected);
  EXPECT_EQ(filesUnder(dir.path()), std::vector<std::string>{expected});
  std::vector<uint8_t> file = readBytes(expected);
  ASSERT_EQ(file.size(), kEntryHeaderSize + compiler.result.bytes.size());
  EXPECT_EQ(std::string(file.begin(), file.begin() + 8), "DPKCACHE");
}

TEST(KernelCache, DiskHitInAFreshCache) {
  TempDirectory dir;
  CountingCompiler compiler;
  {
    KernelCache writer(dir.path());
    ASSERT_TRUE(writer.getOrCompile(testKey(), compiler.fn()));
  }
  KernelCache reader(dir.path());
  CacheOutcome outcome;
  auto artifact = reader.getOrCompile(testKey(), compiler.fn(), &outcome);
  ASSERT_TRUE(artifact);
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::HitDisk);
  EXPECT_GE(outcome.loadMs, 0.0);
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_EQ(artifact->bytes, compiler.result.bytes);
  EXPECT_EQ(artifact->format, compiler.result.format);
  // The disk hit is now in memory.
  ASSERT_TRUE(reader.getOrCompile(testKey(), compiler.fn(), &outcome));
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::HitMemory);
}

TEST(KernelCache, DifferentKeysDoNotCollide) {
  TempDirectory dir;
  KernelCache cache(dir.path());
  CountingCompiler a, b;
  b.result = testArtifact(500, 99);
  ASSERT_TRUE(cache.getOrCompile(testKey("a"), a.fn()));
  auto got = cache.getOrCompile(testKey("b"), b.fn());
  ASSERT_TRUE(got);
  EXPECT_EQ(got->bytes, b.result.bytes);
  EXPECT_EQ(filesUnder(dir.path()).size(), 2u);
}

// Damages the entry written for testKey(), then checks a fresh cache discards it (deleting the
// file), rebuilds, and leaves a valid entry behind.
void expectCorruptEntryRebuilt(const std::function<void(std::vector<uint8_t> &)> &damage,
                               const std::string &expectedReason) {
  TempDirectory dir;
  CountingCompiler compiler;
  std::string path;
  {
    KernelCache writer(dir.path());
    ASSERT_TRUE(writer.getOrCompile(testKey(), compiler.fn()));
    path = writer.entryPath(testKey());
  }
  std::vector<uint8_t> file = readBytes(path);
  damage(file);
  writeBytes(path, file);

  KernelCache reader(dir.path());
  CacheOutcome outcome;
  auto artifact = reader.getOrCompile(testKey(), compiler.fn(), &outcome);
  ASSERT_TRUE(artifact);
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::Miss);
  EXPECT_EQ(compiler.calls, 2) << "a corrupt entry must be rebuilt";
  EXPECT_EQ(artifact->bytes, compiler.result.bytes) << "never load a corrupt entry";
  EXPECT_NE(outcome.note.find("discarded corrupt entry"), std::string::npos) << outcome.note;
  EXPECT_NE(outcome.note.find(expectedReason), std::string::npos) << outcome.note;
  EXPECT_TRUE(outcome.stored);

  KernelCache again(dir.path());
  ASSERT_TRUE(again.getOrCompile(testKey(), compiler.fn(), &outcome));
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::HitDisk) << "the rebuilt entry must be valid";
}

TEST(KernelCache, FlippedPayloadByteIsDetectedAndRebuilt) {
  expectCorruptEntryRebuilt([](std::vector<uint8_t> &f) { f[kEntryHeaderSize + 10] ^= 0x40; },
                            "bad checksum");
}

TEST(KernelCache, FlippedChecksumByteIsDetectedAndRebuilt) {
  expectCorruptEntryRebuilt([](std::vector<uint8_t> &f) { f[30] ^= 1; }, "bad checksum");
}

TEST(KernelCache, TruncatedPayloadIsDetectedAndRebuilt) {
  expectCorruptEntryRebuilt([](std::vector<uint8_t> &f) { f.resize(f.size() - 1); },
                            "payload size mismatch");
}

TEST(KernelCache, TruncatedHeaderIsDetectedAndRebuilt) {
  expectCorruptEntryRebuilt([](std::vector<uint8_t> &f) { f.resize(20); }, "truncated header");
}

TEST(KernelCache, EmptyFileIsDetectedAndRebuilt) {
  expectCorruptEntryRebuilt([](std::vector<uint8_t> &f) { f.clear(); }, "truncated header");
}

TEST(KernelCache, BadMagicIsDetectedAndRebuilt) {
  expectCorruptEntryRebuilt([](std::vector<uint8_t> &f) { f[0] = 'X'; }, "bad magic");
}

TEST(KernelCache, OtherFormatVersionIsDetectedAndRebuilt) {
  expectCorruptEntryRebuilt([](std::vector<uint8_t> &f) { f[8] = 99; }, "format version");
}

TEST(KernelCache, EntryOfAnotherKeyIsNotLoaded) {
  TempDirectory dir;
  CountingCompiler compiler;
  KernelCache writer(dir.path());
  ASSERT_TRUE(writer.getOrCompile(testKey("other"), compiler.fn()));
  // Plant the other key's (valid) entry at this key's path.
  std::string path = writer.entryPath(testKey());
  fs::create_directories(fs::path(path).parent_path());
  fs::copy_file(writer.entryPath(testKey("other")), path);
  CountingCompiler mine;
  mine.result = testArtifact(64, 1);
  KernelCache reader(dir.path());
  CacheOutcome outcome;
  auto artifact = reader.getOrCompile(testKey(), mine.fn(), &outcome);
  ASSERT_TRUE(artifact);
  EXPECT_EQ(artifact->bytes, mine.result.bytes);
  EXPECT_NE(outcome.note.find("another key"), std::string::npos) << outcome.note;
}

// ---- entries that are not regular files, and huge ones (issue 15, item L) -----------------
// Each case plants something at the entry's path and checks, in a child process with a
// deadline (so that a reader that blocks or reads forever fails the test instead of hanging
// it), that the cache refuses it, rebuilds, and leaves a valid entry behind.

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DPK_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DPK_TEST_SANITIZED 1
#endif

/// A reader that reads without bound (a link to /dev/zero) must fail fast in the child, not eat
/// the machine's memory: 2 GiB of address space (sanitizers reserve far more: no limit there).
void limitChildMemory() {
#ifndef DPK_TEST_SANITIZED
  struct rlimit limit {};
  limit.rlim_cur = limit.rlim_max = rlim_t(2) << 30;
  setrlimit(RLIMIT_AS, &limit);
#endif
}

/// expectInChildWithin (ChildDeadline.h) for a cache lookup, with the child's memory capped.
void expectInChildWithin(int seconds, const std::function<bool()> &body) {
  dpk::test::expectInChildWithin(seconds, body, "the cache lookup", limitChildMemory);
}

/// In the child: a fresh cache must refuse what `plant` put at the entry's path, with a note
/// containing `expectedReason`, rebuild, and store a valid entry in its place.
void expectSpecialEntryRebuilt(const std::function<void(const std::string &)> &plant,
                               const std::string &expectedReason, int seconds = 20) {
  TempDirectory dir;
  std::string path = KernelCache(dir.path()).entryPath(testKey());
  fs::create_directories(fs::path(path).parent_path());
  plant(path);
  expectInChildWithin(seconds, [&] {
    CountingCompiler compiler;
    KernelCache reader(dir.path());
    CacheOutcome outcome;
    auto artifact = reader.getOrCompile(testKey(), compiler.fn(), &outcome);
    bool ok = artifact && artifact->bytes == compiler.result.bytes && compiler.calls == 1 &&
              outcome.kind == CacheOutcomeKind::Miss &&
              outcome.note.find("discarded corrupt entry") != std::string::npos &&
              outcome.note.find(expectedReason) != std::string::npos && outcome.stored;
    if (!ok)
      std::fprintf(stderr, "outcome: kind %s, stored %d, note '%s'\n",
                   cacheOutcomeName(outcome.kind), outcome.stored, outcome.note.c_str());
    KernelCache again(dir.path());
    ok = ok && again.getOrCompile(testKey(), compiler.fn(), &outcome) &&
         outcome.kind == CacheOutcomeKind::HitDisk && fs::is_regular_file(fs::symlink_status(path));
    return ok;
  });
}

TEST(KernelCache, FifoEntryIsRefusedWithoutBlocking) {
  expectSpecialEntryRebuilt([](const std::string &path) { ASSERT_EQ(mkfifo(path.c_str(), 0644), 0); },
                            "a FIFO");
}

TEST(KernelCache, SymlinkToDevZeroIsNotFollowed) {
  expectSpecialEntryRebuilt(
      [](const std::string &path) { fs::create_symlink("/dev/zero", path); }, "symbolic link");
}

TEST(KernelCache, SymlinkToAValidEntryIsNotFollowed) {
  // Even a link to a valid entry of this very key is refused: entries are files the cache wrote.
  TempDirectory elsewhere;
  std::string target;
  {
    KernelCache writer(elsewhere.path());
    CountingCompiler compiler;
    ASSERT_TRUE(writer.getOrCompile(testKey(), compiler.fn()));
    target = writer.entryPath(testKey());
  }
  expectSpecialEntryRebuilt(
      [&](const std::string &path) { fs::create_symlink(target, path); }, "symbolic link");
  EXPECT_TRUE(fs::is_regular_file(target)) << "the link's target must be left alone";
}

TEST(KernelCache, HugeSparseEntryIsRefusedBeforeReading) {
  // One byte over the limit, sparse (no disk space, no memory): refused from its size alone.
  expectSpecialEntryRebuilt(
      [](const std::string &path) {
        int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(ftruncate(fd, static_cast<off_t>(kMaxEntryFileSize + 1)), 0);
        close(fd);
      },
      "exceeds the entry limit", 10);
}

TEST(KernelCache, HeaderDisagreeingWithTheFileSizeIsRefused) {
  // A valid header whose payload size says 8 GiB on a short file.
  expectCorruptEntryRebuilt(
      [](std::vector<uint8_t> &f) {
        uint64_t huge = uint64_t(8) << 30;
        for (unsigned i = 0; i < 8; ++i)
          f[16 + i] = uint8_t(huge >> (8 * i));
      },
      "payload size mismatch");
}

TEST(KernelCache, DirectoryAtTheEntryPathStillReturnsTheArtifact) {
  TempDirectory dir;
  std::string path = KernelCache(dir.path()).entryPath(testKey());
  fs::create_directories(path);
  CountingCompiler compiler;
  KernelCache cache(dir.path());
  CacheOutcome outcome;
  auto artifact = cache.getOrCompile(testKey(), compiler.fn(), &outcome);
  ASSERT_TRUE(artifact);
  EXPECT_EQ(artifact->bytes, compiler.result.bytes);
  EXPECT_NE(outcome.note.find("a directory"), std::string::npos) << outcome.note;
}

TEST(KernelCache, ReadOnlyLeavesSpecialEntriesInPlace) {
  TempDirectory dir;
  std::string path = KernelCache(dir.path()).entryPath(testKey());
  fs::create_directories(fs::path(path).parent_path());
  ASSERT_EQ(mkfifo(path.c_str(), 0644), 0);
  expectInChildWithin(20, [&] {
    CountingCompiler compiler;
    KernelCache readOnly(dir.path(), CacheMode::ReadOnly);
    CacheOutcome outcome;
    return readOnly.getOrCompile(testKey(), compiler.fn(), &outcome) &&
           outcome.note.find("a FIFO") != std::string::npos;
  });
  EXPECT_TRUE(fs::is_fifo(path)) << "read-only mode removed the FIFO";
}

TEST(KernelCache, ReadOnlyNeverWrites) {
  TempDirectory dir;
  std::string cacheDir = dir.path() + "/cache";
  CountingCompiler compiler;
  KernelCache readOnly(cacheDir, CacheMode::ReadOnly);
  CacheOutcome outcome;
  ASSERT_TRUE(readOnly.getOrCompile(testKey(), compiler.fn(), &outcome));
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::Miss);
  EXPECT_FALSE(outcome.stored);
  EXPECT_FALSE(fs::exists(cacheDir)) << "read-only mode created the cache directory";
  // Memory still works.
  ASSERT_TRUE(readOnly.getOrCompile(testKey(), compiler.fn(), &outcome));
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::HitMemory);
}

TEST(KernelCache, ReadOnlyReadsExistingEntries) {
  TempDirectory dir;
  CountingCompiler compiler;
  {
    KernelCache writer(dir.path());
    ASSERT_TRUE(writer.getOrCompile(testKey(), compiler.fn()));
  }
  KernelCache readOnly(dir.path(), CacheMode::ReadOnly);
  CacheOutcome outcome;
  ASSERT_TRUE(readOnly.getOrCompile(testKey(), compiler.fn(), &outcome));
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::HitDisk);
  EXPECT_EQ(compiler.calls, 1);
}

TEST(KernelCache, ReadOnlyLeavesCorruptEntriesInPlace) {
  TempDirectory dir;
  CountingCompiler compiler;
  std::string path;
  {
    KernelCache writer(dir.path());
    ASSERT_TRUE(writer.getOrCompile(testKey(), compiler.fn()));
    path = writer.entryPath(testKey());
  }
  std::vector<uint8_t> file = readBytes(path);
  file.back() ^= 1;
  writeBytes(path, file);
  KernelCache readOnly(dir.path(), CacheMode::ReadOnly);
  CacheOutcome outcome;
  auto artifact = readOnly.getOrCompile(testKey(), compiler.fn(), &outcome);
  ASSERT_TRUE(artifact);
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::Miss);
  EXPECT_EQ(artifact->bytes, compiler.result.bytes);
  EXPECT_EQ(readBytes(path), file) << "read-only mode modified the disk";
}

TEST(KernelCache, OffModeNeverTouchesTheDisk) {
  TempDirectory dir;
  CountingCompiler compiler;
  {
    KernelCache writer(dir.path());
    ASSERT_TRUE(writer.getOrCompile(testKey(), compiler.fn()));
  }
  std::vector<std::string> before = filesUnder(dir.path());
  KernelCache off(dir.path(), CacheMode::Off);
  CacheOutcome outcome;
  ASSERT_TRUE(off.getOrCompile(testKey(), compiler.fn(), &outcome));
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::Miss) << "off mode read the disk";
  EXPECT_EQ(outcome.path, "");
  ASSERT_TRUE(off.getOrCompile(testKey("new"), compiler.fn(), &outcome));
  EXPECT_EQ(filesUnder(dir.path()), before) << "off mode wrote to the disk";
  EXPECT_EQ(off.entryPath(testKey()), "");
}

TEST(KernelCache, FailedCompileIsReturnedAndNotCached) {
  TempDirectory dir;
  KernelCache cache(dir.path());
  int calls = 0;
  auto failing = [&]() -> Expected<compiler::Artifact> {
    ++calls;
    return Error(DPK_ERROR_COMPILE, "boom");
  };
  auto first = cache.getOrCompile(testKey(), failing);
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().status(), DPK_ERROR_COMPILE);
  EXPECT_EQ(first.error().message(), "boom");
  EXPECT_FALSE(cache.getOrCompile(testKey(), failing));
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(filesUnder(dir.path()).empty());
}

TEST(KernelCache, UnwritableDirectoryStillReturnsTheArtifact) {
  TempDirectory dir;
  std::string blocker = dir.path() + "/file";
  writeBytes(blocker, {1, 2, 3}); // a file where the cache wants a directory
  KernelCache cache(blocker + "/cache");
  CountingCompiler compiler;
  CacheOutcome outcome;
  auto artifact = cache.getOrCompile(testKey(), compiler.fn(), &outcome);
  ASSERT_TRUE(artifact);
  EXPECT_FALSE(outcome.stored);
  EXPECT_NE(outcome.note.find("could not write entry"), std::string::npos) << outcome.note;
}

TEST(KernelCache, ConfigureSwitchesDirectoryAndMode) {
  TempDirectory dir;
  const char *saved = std::getenv("DPK_CACHE_DIR");
  std::string savedValue = saved ? saved : "";
  unsetenv("DPK_CACHE_DIR");
  KernelCache cache("");
  cache.configure(dir.path(), CacheMode::ReadOnly);
  EXPECT_EQ(cache.directory(), dir.path());
  EXPECT_EQ(cache.mode(), CacheMode::ReadOnly);
  setenv("DPK_CACHE_DIR", "/env/wins", 1);
  cache.configure(dir.path(), CacheMode::ReadWrite);
  EXPECT_EQ(cache.directory(), "/env/wins") << "DPK_CACHE_DIR overrides the policy";
  if (saved)
    setenv("DPK_CACHE_DIR", savedValue.c_str(), 1);
  else
    unsetenv("DPK_CACHE_DIR");
}

TEST(KernelCache, ResolveDirectoryPrecedence) {
  struct Saved {
    const char *name;
    bool set;
    std::string value;
  };
  std::vector<Saved> saved;
  for (const char *name : {"DPK_CACHE_DIR", "XDG_CACHE_HOME", "HOME"}) {
    const char *value = std::getenv(name);
    saved.push_back({name, value != nullptr, value ? value : ""});
  }
  setenv("DPK_CACHE_DIR", "/a", 1);
  setenv("XDG_CACHE_HOME", "/x", 1);
  setenv("HOME", "/h", 1);
  EXPECT_EQ(KernelCache::resolveDirectory("/policy"), "/a");
  unsetenv("DPK_CACHE_DIR");
  EXPECT_EQ(KernelCache::resolveDirectory("/policy"), "/policy");
  EXPECT_EQ(KernelCache::resolveDirectory(""), "/x/dpk");
  setenv("XDG_CACHE_HOME", "", 1);
  EXPECT_EQ(KernelCache::resolveDirectory(""), "/h/.cache/dpk");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  EXPECT_EQ(KernelCache::resolveDirectory(""), "");
  for (const Saved &s : saved) {
    if (s.set)
      setenv(s.name, s.value.c_str(), 1);
    else
      unsetenv(s.name);
  }
}

TEST(KernelCache, GlobalIsOneInstance) {
  EXPECT_EQ(&KernelCache::global(), &KernelCache::global());
}

// Several processes compile the same key into one directory at once: each gets the right
// bytes, exactly one valid entry remains and no temporary file is left behind.
TEST(KernelCache, ConcurrentProcessesWriteOneValidEntry) {
  TempDirectory dir;
  const int processes = 8;
  const compiler::Artifact expected = testArtifact(1 << 20, 3); // large: widens the race
  std::vector<pid_t> children;
  for (int p = 0; p < processes; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      KernelCache cache(dir.path());
      bool ok = true;
      for (int round = 0; round < 5 && ok; ++round) {
        cache.clearMemory();
        auto artifact = cache.getOrCompile(testKey(), [&]() -> Expected<compiler::Artifact> {
          usleep(1000);
          return expected;
        });
        ok = artifact && artifact->bytes == expected.bytes && artifact->format == expected.format;
      }
      _exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a child saw bad bytes";
  }
  std::vector<std::string> files = filesUnder(dir.path());
  ASSERT_EQ(files.size(), 1u) << "temporary files left behind or duplicate entries";
  KernelCache reader(dir.path());
  CacheOutcome outcome;
  auto artifact = reader.getOrCompile(
      testKey(), []() -> Expected<compiler::Artifact> { return Error(DPK_ERROR_COMPILE, "x"); },
      &outcome);
  ASSERT_TRUE(artifact);
  EXPECT_EQ(outcome.kind, CacheOutcomeKind::HitDisk);
  EXPECT_EQ(artifact->bytes, expected.bytes);
}

// Threads of one cache asking for the same key at once share one compile.
TEST(KernelCache, ConcurrentAskersOfOneCacheShareOneCompile) {
  TempDirectory dir;
  KernelCache cache(dir.path());
  std::atomic<int> compiles{0}, waited{0}, bad{0};
  const compiler::Artifact expected = testArtifact(4096, 9);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      CacheOutcome outcome;
      auto artifact = cache.getOrCompile(
          testKey(),
          [&]() -> Expected<compiler::Artifact> {
            ++compiles;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            return expected;
          },
          &outcome);
      if (!artifact || artifact->bytes != expected.bytes)
        ++bad;
      if (outcome.note.find("waited for a concurrent compile") != std::string::npos)
        ++waited;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(compiles.load(), 1);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_LE(waited.load(), 7);
}

TEST(KernelCache, ConcurrentAskersShareAFailure) {
  KernelCache cache("");
  std::atomic<int> compiles{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      auto artifact = cache.getOrCompile(testKey(), [&]() -> Expected<compiler::Artifact> {
        ++compiles;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return Error(DPK_ERROR_COMPILE, "no");
      });
      if (!artifact && artifact.error().status() == DPK_ERROR_COMPILE)
        ++failures;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 4);
  EXPECT_GE(compiles.load(), 1);
  // A later call compiles again: failures are not cached.
  int before = compiles.load();
  EXPECT_FALSE(cache.getOrCompile(testKey(), [&]() -> Expected<compiler::Artifact> {
    ++compiles;
    return Error(DPK_ERROR_COMPILE, "no");
  }));
  EXPECT_EQ(compiles.load(), before + 1);
}

// Threads with one cache instance each (as separate processes would have) and threads sharing
// one instance.
TEST(KernelCache, ConcurrentThreadsAreConsistent) {
  TempDirectory dir;
  const compiler::Artifact expected = testArtifact(256 * 1024, 5);
  std::atomic<int> bad{0};
  KernelCache shared(dir.path());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      KernelCache own(dir.path());
      KernelCache &cache = t % 2 ? own : shared;
      for (int round = 0; round < 20; ++round) {
        auto artifact = cache.getOrCompile(testKey("k" + std::to_string(round % 4)),
                                           [&]() -> Expected<compiler::Artifact> {
                                             return expected;
                                           });
        if (!artifact || artifact->bytes != expected.bytes)
          ++bad;
        if (&cache == &own && round % 5 == 0)
          own.clearMemory();
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(filesUnder(dir.path()).size(), 4u);
}

} // namespace
} // namespace dpk::cache

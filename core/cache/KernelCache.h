// KernelCache.h - content-addressed cache of compiled kernel artifacts, in memory and on disk.
//
// A CacheKey names everything a compiled artifact depends on (IR text, dpk's build identity,
// LLVM version, target, device identity, options and specializations); its SHA-256 digest is
// the entry's name. getOrCompile() looks the digest up in memory, then on disk, and only then
// calls the compile callback, storing what it returns in both layers.
//
// Disk layout: <dir>/<first two hex digits>/<64 hex digits>.bin, each file a header (magic,
// format version, artifact format, payload size, SHA-256 of the payload, key digest) followed
// by the artifact bytes. An entry that fails any check is never loaded: it is deleted (except
// in ReadOnly mode) and the artifact is rebuilt. Writes go to a uniquely named temporary file
// in the same folder and are renamed into place, so readers never see a partial entry and
// several processes compiling the same kernel at once each leave a complete, identical file.
// docs/cache.md has the details and the guarantees.
#ifndef DPK_CORE_CACHE_KERNELCACHE_H
#define DPK_CORE_CACHE_KERNELCACHE_H

#include "compiler/Compiler.h"
#include "support/Error.h"

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dpk::cache {

/// dpk's build identity: "dpk <version> <git hash or 'nogit'>[-dirty] <build type>", fixed at
/// configure time, followed by the size and modification time of the binary holding this code
/// (so a rebuilt library never reuses artifacts of an older compiler with the same version).
const std::string &buildIdentity();
/// The LLVM version dpk was built against ("15.0.7"), fixed at configure time.
const char *llvmVersion();

/// Everything an artifact depends on. Each component is hashed with its name and length, so no
/// two different keys can produce the same byte stream.
struct CacheKey {
  std::string irText;          // the module's IR text (printer output)
  std::string buildIdentity;   // buildIdentity()
  std::string llvmVersion;     // llvmVersion()
  std::string target;          // "host", "spirv", "opencl-c", "ptx"
  std::string deviceIdentity;  // CompileOptions::targetId plus whatever identifies the device
  std::string options;         // canonical text of the options that change code (optLevel)
  std::string specialization;  // local size, dims, unit-inner-stride view mask (when non-zero)

  /// Fills every component from the IR text, the compile options and the device identity
  /// (e.g. "PoCL 3.1 / cpu / x86-64"; may be empty for the host), using this build's identity.
  static CacheKey make(std::string irText, const compiler::CompileOptions &options,
                       std::string deviceIdentity);

  /// SHA-256 over all components, as 64 lower-case hex digits.
  std::string digest() const;
};

enum class CacheMode {
  ReadWrite, // memory and disk, entries written
  ReadOnly,  // memory and disk, nothing written or deleted on disk
  Off        // memory only: the disk is never touched
};
const char *cacheModeName(CacheMode mode); // "read-write", "read-only", "off"

enum class CacheOutcomeKind { HitMemory, HitDisk, Miss };
const char *cacheOutcomeName(CacheOutcomeKind kind); // "hit-memory", "hit-disk", "miss"

/// What getOrCompile() did, for diagnostics (level 2: compile and cache events with times).
struct CacheOutcome {
  CacheOutcomeKind kind = CacheOutcomeKind::Miss;
  std::string digest;      // the key's digest
  std::string path;        // the disk entry's path ("" in Off mode or without a directory)
  double compileMs = 0.0;  // time in the compile callback (Miss only)
  double loadMs = 0.0;     // time to read and check the disk entry (HitDisk; also failed reads)
  bool stored = false;     // a Miss whose artifact was written to disk
  /// Anything noteworthy that did not fail the call: "discarded corrupt entry (bad checksum)",
  /// "could not write entry: <reason>". Empty when nothing happened.
  std::string note;
};

class KernelCache {
public:
  using CompileFn = std::function<Expected<compiler::Artifact>()>;

  /// A cache using exactly `directory` (no environment lookup; "" = no disk layer).
  explicit KernelCache(std::string directory, CacheMode mode = CacheMode::ReadWrite);
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// The process-wide cache, created on first use in ReadWrite mode in resolveDirectory("").
  static KernelCache &global();

  /// The one place the environment is read: DPK_CACHE_DIR when set and non-empty, else
  /// `configured` (the policy's setting) when non-empty, else $XDG_CACHE_HOME/dpk when
  /// XDG_CACHE_HOME is set and non-empty, else $HOME/.cache/dpk, else "" (no disk layer).
  static std::string resolveDirectory(const std::string &configured);

  /// Sets the policy's choice: the directory goes through resolveDirectory() (so DPK_CACHE_DIR
  /// overrides the policy, as every DPK_* variable does). Keeps the memory layer.
  void configure(const std::string &configuredDirectory, CacheMode mode);

  /// Returns the cached artifact for `key`, or compiles, stores and returns it. A failed
  /// compile is returned as is and nothing is cached. Disk problems never fail the call; they
  /// are reported in outcome->note. Thread-safe; `compile` runs without the cache's lock held.
  /// A thread asking for a key that another thread of this cache is loading or compiling waits
  /// for that result instead of compiling again (outcome: HitMemory, loadMs = the wait, note
  /// "waited for a concurrent compile"), so `compile` must not ask this cache for its own key.
  Expected<compiler::Artifact> getOrCompile(const CacheKey &key, const CompileFn &compile,
                                            CacheOutcome *outcome = nullptr);

  /// The disk path for `key` ("" without a disk layer), whether or not it exists.
  std::string entryPath(const CacheKey &key) const;
  std::string directory() const;
  CacheMode mode() const;
  /// Forgets the memory layer (the disk is untouched).
  void clearMemory();

private:
  Expected<compiler::Artifact> loadOrCompile(const std::string &directory, CacheMode mode,
                                             const CompileFn &compile, CacheOutcome &outcome);

  mutable std::mutex mutex_;
  std::string directory_;
  CacheMode mode_;
  std::unordered_map<std::string, std::shared_ptr<const compiler::Artifact>> memory_;
  // Keys being loaded or compiled right now, by digest: later askers wait on the future.
  std::unordered_map<std::string, std::shared_future<Expected<compiler::Artifact>>> inFlight_;
};

} // namespace dpk::cache

#endif // DPK_CORE_CACHE_KERNELCACHE_H

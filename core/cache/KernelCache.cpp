// KernelCache.cpp - the memory and disk layers of the kernel cache.
#include "cache/KernelCache.h"

#include "cache/EntryFile.h"

#include <chrono>
#include <cstdlib>
#include <unistd.h>

namespace dpk::cache {
namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

void appendNote(CacheOutcome &outcome, const std::string &note) {
  if (!outcome.note.empty())
    outcome.note += "; ";
  outcome.note += note;
}

} // namespace

const char *cacheModeName(CacheMode mode) {
  switch (mode) {
  case CacheMode::ReadWrite: return "read-write";
  case CacheMode::ReadOnly: return "read-only";
  case CacheMode::Off: return "off";
  }
  return "unknown";
}

const char *cacheOutcomeName(CacheOutcomeKind kind) {
  switch (kind) {
  case CacheOutcomeKind::HitMemory: return "hit-memory";
  case CacheOutcomeKind::HitDisk: return "hit-disk";
  case CacheOutcomeKind::Miss: return "miss";
  }
  return "unknown";
}

KernelCache::KernelCache(std::string directory, CacheMode mode)
    : directory_(std::move(directory)), mode_(mode) {}

KernelCache &KernelCache::global() {
  // Created on first use (no static constructor); never destroyed, so kernels compiled from
  // other static destructors still find it.
  static KernelCache *cache = new KernelCache(resolveDirectory(""), CacheMode::ReadWrite);
  return *cache;
}

std::string KernelCache::resolveDirectory(const std::string &configured) {
  std::string fromEnvironment = environment("DPK_CACHE_DIR");
  if (!fromEnvironment.empty())
    return fromEnvironment;
  if (!configured.empty())
    return configured;
  std::string xdg = environment("XDG_CACHE_HOME");
  if (!xdg.empty())
    return xdg + "/dpk";
  std::string home = environment("HOME");
  if (!home.empty())
    return home + "/.cache/dpk";
  return {};
}

void KernelCache::configure(const std::string &configuredDirectory, CacheMode mode) {
  std::string directory = resolveDirectory(configuredDirectory);
  std::lock_guard<std::mutex> lock(mutex_);
  directory_ = std::move(directory);
  mode_ = mode;
}

std::string KernelCache::directory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return directory_;
}

CacheMode KernelCache::mode() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return mode_;
}

void KernelCache::clearMemory() {
  std::lock_guard<std::mutex> lock(mutex_);
  memory_.clear();
}

static std::string pathFor(const std::string &directory, const std::string &digest) {
  return directory + "/" + digest.substr(0, 2) + "/" + digest + ".bin";
}

std::string KernelCache::entryPath(const CacheKey &key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (mode_ == CacheMode::Off || directory_.empty())
    return {};
  return pathFor(directory_, key.digest());
}

Expected<compiler::Artifact> KernelCache::getOrCompile(const CacheKey &key,
                                                       const CompileFn &compile,
                                                       CacheOutcome *outcomeOut) {
  CacheOutcome localOutcome;
  CacheOutcome &outcome = outcomeOut ? *outcomeOut : localOutcome;
  outcome = CacheOutcome{};
  outcome.digest = key.digest();

  std::string directory;
  CacheMode mode;
  std::promise<Expected<compiler::Artifact>> promise;
  std::shared_future<Expected<compiler::Artifact>> pending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    directory = directory_;
    mode = mode_;
    auto found = memory_.find(outcome.digest);
    if (found != memory_.end()) {
      outcome.kind = CacheOutcomeKind::HitMemory;
      return *found->second;
    }
    auto running = inFlight_.find(outcome.digest);
    if (running != inFlight_.end())
      pending = running->second;
    else
      inFlight_.emplace(outcome.digest, promise.get_future().share());
  }

  if (pending.valid()) {
    Clock::time_point start = Clock::now();
    Expected<compiler::Artifact> result = pending.get();
    outcome.kind = CacheOutcomeKind::HitMemory;
    outcome.loadMs = millisecondsSince(start);
    appendNote(outcome, "waited for a concurrent compile");
    return result;
  }

  // This thread owns the key until the result is published, even if compile() throws.
  struct Publish {
    KernelCache &cache;
    const std::string &digest;
    ~Publish() {
      std::lock_guard<std::mutex> lock(cache.mutex_);
      cache.inFlight_.erase(digest);
    }
  };
  Expected<compiler::Artifact> result = [&] {
    Publish publish{*this, outcome.digest};
    return loadOrCompile(directory, mode, compile, outcome);
  }();
  promise.set_value(result);
  return result;
}

Expected<compiler::Artifact> KernelCache::loadOrCompile(const std::string &directory,
                                                        CacheMode mode,
                                                        const CompileFn &compile,
                                                        CacheOutcome &outcome) {
  bool useDisk = mode != CacheMode::Off && !directory.empty();
  if (useDisk) {
    outcome.path = pathFor(directory, outcome.digest);
    Clock::time_point start = Clock::now();
    EntryRead entry = readEntry(outcome.path, outcome.digest);
    switch (entry.kind) {
    case EntryReadKind::Loaded: {
      outcome.loadMs = millisecondsSince(start);
      outcome.kind = CacheOutcomeKind::HitDisk;
      auto artifact = std::make_shared<compiler::Artifact>(std::move(entry.artifact));
      std::lock_guard<std::mutex> lock(mutex_);
      memory_.emplace(outcome.digest, artifact);
      return *artifact;
    }
    case EntryReadKind::Invalid:
      // Never load a bad entry; delete it so the rebuilt artifact replaces it (a symbolic link
      // is removed, not its target). A concurrent writer may have just renamed a good entry
      // into place, in which case this deletes that one too: the cost is one more compile,
      // never a bad load.
      outcome.loadMs = millisecondsSince(start);
      appendNote(outcome, "discarded corrupt entry (" + entry.reason + ")");
      if (mode == CacheMode::ReadWrite)
        unlink(outcome.path.c_str());
      break;
    case EntryReadKind::Unreadable:
      outcome.loadMs = millisecondsSince(start);
      appendNote(outcome, entry.reason);
      break;
    case EntryReadKind::Missing:
      break;
    }
  }

  outcome.kind = CacheOutcomeKind::Miss;
  Clock::time_point start = Clock::now();
  Expected<compiler::Artifact> artifact = compile();
  outcome.compileMs = millisecondsSince(start);
  if (!artifact)
    return artifact;

  {
    std::lock_guard<std::mutex> lock(mutex_);
    memory_.emplace(outcome.digest, std::make_shared<compiler::Artifact>(*artifact));
  }
  if (!useDisk || mode != CacheMode::ReadWrite)
    return artifact;

  std::string shard = directory + "/" + outcome.digest.substr(0, 2);
  if (Error error = makeDirectories(shard)) {
    appendNote(outcome, "could not write entry: " + error.message());
    return artifact;
  }
  if (kEntryHeaderSize + artifact->bytes.size() > kMaxEntryFileSize) {
    // It could never be read back (readEntry refuses files over the limit).
    appendNote(outcome, "not stored: an artifact of " + std::to_string(artifact->bytes.size()) +
                            " bytes exceeds the entry limit of " +
                            std::to_string(kMaxEntryFileSize) + " bytes");
    return artifact;
  }
  if (Error error = writeFileAtomically(outcome.path, encodeEntry(*artifact, outcome.digest))) {
    appendNote(outcome, "could not write entry: " + error.message());
    return artifact;
  }
  outcome.stored = true;
  return artifact;
}

} // namespace dpk::cache

// EntryFile.h - the on-disk format of one cache entry, and the file operations the cache needs.
//
// An entry file is a fixed 120-byte header followed by the artifact bytes. All integers are
// little-endian:
//   offset  size  field
//   0       8     magic "DPKCACHE"
//   8       4     format version (kEntryFormatVersion)
//   12      4     artifact format (dpk_artifact_format_t)
//   16      8     payload size in bytes
//   24      32    SHA-256 of the payload
//   56      64    the cache key digest, lower-case hex (guards against a misplaced file)
//   120     ...   payload
// Internal to dpk_cache.
#ifndef DPK_CORE_CACHE_ENTRYFILE_H
#define DPK_CORE_CACHE_ENTRYFILE_H

#include "compiler/Compiler.h"
#include "support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dpk::cache {

constexpr uint32_t kEntryFormatVersion = 1;
constexpr size_t kEntryHeaderSize = 120;
/// The largest entry file (header and payload) the cache reads or writes: 256 MiB, far above
/// any compiled kernel, so that a huge or sparse file planted in the cache is refused from its
/// size alone instead of being read into memory.
constexpr uint64_t kMaxEntryFileSize = uint64_t(256) << 20;

/// The bytes of an entry file holding `artifact` for the key with digest `keyDigest`.
std::vector<uint8_t> encodeEntry(const compiler::Artifact &artifact, const std::string &keyDigest);

/// Checks every header field and the payload checksum. The error message says which check
/// failed ("truncated header", "bad magic", "payload size mismatch", "bad checksum", ...).
Expected<compiler::Artifact> decodeEntry(const std::vector<uint8_t> &file,
                                         const std::string &keyDigest);

/// What readEntry() found at an entry's path.
enum class EntryReadKind {
  Loaded,    // a valid entry: `artifact` holds it
  Missing,   // no file
  Invalid,   // something that is not a valid entry (`reason` says what): discard and rebuild
  Unreadable // a file that could not be read (`reason`: the system error); leave it alone
};
struct EntryRead {
  EntryReadKind kind = EntryReadKind::Missing;
  compiler::Artifact artifact;
  std::string reason;
};

/// Reads and checks the entry at `path` for the key with digest `keyDigest`. Only a regular
/// file of at most kMaxEntryFileSize bytes is read: the path is checked with lstat(), then
/// opened with O_NOFOLLOW | O_NONBLOCK (a symbolic link is refused, a FIFO cannot block) and
/// checked again with fstat() on the open file; the header is checked against the file's size
/// before the payload is read. Never blocks on, or reads without bound from, a special file.
EntryRead readEntry(const std::string &path, const std::string &keyDigest);

/// Creates `directory` and its missing parents.
Error makeDirectories(const std::string &directory);

/// Writes `bytes` to a new, uniquely named file next to `path`, then renames it over `path`,
/// so readers see either no file, the old file or the complete new one.
Error writeFileAtomically(const std::string &path, const std::vector<uint8_t> &bytes);

} // namespace dpk::cache

#endif // DPK_CORE_CACHE_ENTRYFILE_H

// EntryFile.cpp - encoding, checking, reading and atomically writing cache entry files.
#include "cache/EntryFile.h"

#include "cache/Sha256.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dpk::cache {
namespace {

constexpr char kMagic[8] = {'D', 'P', 'K', 'C', 'A', 'C', 'H', 'E'};

void putLittleEndian(std::vector<uint8_t> &out, uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out.push_back(uint8_t(value >> (8 * i)));
}

uint64_t getLittleEndian(const uint8_t *in, unsigned bytes) {
  uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i)
    value |= uint64_t(in[i]) << (8 * i);
  return value;
}

bool isKnownFormat(uint64_t format) {
  return format == DPK_FORMAT_HOST_NATIVE || format == DPK_FORMAT_SPIRV ||
         format == DPK_FORMAT_OPENCL_C || format == DPK_FORMAT_PTX;
}

Error systemError(const std::string &what, const std::string &path) {
  return Error(DPK_ERROR_GENERIC, what + " '" + path + "': " + std::strerror(errno));
}

// A name no other thread or process uses at the same moment: pid, a per-process counter and
// the clock (the clock separates processes with equal pids in different pid namespaces).
std::string temporaryName(const std::string &path) {
  static std::atomic<uint64_t> counter{0};
  auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++) + "." +
         std::to_string(static_cast<long long>(now));
}

} // namespace

std::vector<uint8_t> encodeEntry(const compiler::Artifact &artifact, const std::string &keyDigest) {
  assert(keyDigest.size() == 64 && "key digest must be 64 hex digits");
  std::vector<uint8_t> file;
  file.reserve(kEntryHeaderSize + artifact.bytes.size());
  for (char c : kMagic) // (a range insert here trips a GCC 12 -Wstringop-overflow false positive)
    file.push_back(static_cast<uint8_t>(c));
  putLittleEndian(file, kEntryFormatVersion, 4);
  putLittleEndian(file, static_cast<uint32_t>(artifact.format), 4);
  putLittleEndian(file, artifact.bytes.size(), 8);
  Sha256Digest checksum = sha256(artifact.bytes.data(), artifact.bytes.size());
  file.insert(file.end(), checksum.begin(), checksum.end());
  file.insert(file.end(), keyDigest.begin(), keyDigest.end());
  assert(file.size() == kEntryHeaderSize && "header layout out of sync");
  file.insert(file.end(), artifact.bytes.begin(), artifact.bytes.end());
  return file;
}

namespace {

Error corrupt(const std::string &why) { return Error(DPK_ERROR_GENERIC, why); }

/// Checks the header of an entry file of `fileSize` bytes (at least kEntryHeaderSize) against
/// everything but the payload checksum; returns the artifact format.
Expected<dpk_artifact_format_t> checkHeader(const uint8_t *header, uint64_t fileSize,
                                            const std::string &keyDigest) {
  if (std::memcmp(header, kMagic, 8) != 0)
    return corrupt("bad magic");
  uint64_t version = getLittleEndian(header + 8, 4);
  if (version != kEntryFormatVersion)
    return corrupt("format version " + std::to_string(version) + ", expected " +
                   std::to_string(kEntryFormatVersion));
  uint64_t format = getLittleEndian(header + 12, 4);
  if (!isKnownFormat(format))
    return corrupt("unknown artifact format " + std::to_string(format));
  uint64_t payloadSize = getLittleEndian(header + 16, 8);
  if (payloadSize != fileSize - kEntryHeaderSize)
    return corrupt("payload size mismatch (header says " + std::to_string(payloadSize) +
                   ", file has " + std::to_string(fileSize - kEntryHeaderSize) + ")");
  if (keyDigest.size() != 64 || std::memcmp(header + 56, keyDigest.data(), 64) != 0)
    return corrupt("entry belongs to another key");
  return static_cast<dpk_artifact_format_t>(format);
}

const char *fileKindName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

/// Reads exactly `size` bytes at the file's current offset; false on a short file or an error.
bool readExactly(int fd, uint8_t *out, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t got = read(fd, out + done, size - done);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (got <= 0)
      return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

EntryRead entryRead(EntryReadKind kind, std::string reason) {
  EntryRead result;
  result.kind = kind;
  result.reason = std::move(reason);
  return result;
}

} // namespace

Expected<compiler::Artifact> decodeEntry(const std::vector<uint8_t> &file,
                                         const std::string &keyDigest) {
  if (file.size() < kEntryHeaderSize)
    return corrupt("truncated header (" + std::to_string(file.size()) + " bytes)");
  Expected<dpk_artifact_format_t> format = checkHeader(file.data(), file.size(), keyDigest);
  if (!format)
    return format.takeError();
  Sha256Digest checksum = sha256(file.data() + kEntryHeaderSize, file.size() - kEntryHeaderSize);
  if (std::memcmp(file.data() + 24, checksum.data(), 32) != 0)
    return corrupt("bad checksum");

  compiler::Artifact artifact;
  artifact.format = *format;
  artifact.bytes.assign(file.begin() + kEntryHeaderSize, file.end());
  return artifact;
}

EntryRead readEntry(const std::string &path, const std::string &keyDigest) {
  // lstat first, so that a special file is never even opened (opening some devices has side
  // effects); the fstat below closes the race with a file swapped in between.
  struct stat status {};
  if (lstat(path.c_str(), &status) != 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return entryRead(EntryReadKind::Missing, "");
    return entryRead(EntryReadKind::Unreadable,
                     "cannot read '" + path + "': " + std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode))
    return entryRead(EntryReadKind::Invalid, std::string("not a regular file: ") +
                                                 fileKindName(status.st_mode));
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return entryRead(EntryReadKind::Missing, "");
    if (errno == ELOOP)
      return entryRead(EntryReadKind::Invalid, "not a regular file: a symbolic link");
    return entryRead(EntryReadKind::Unreadable,
                     "cannot open '" + path + "': " + std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  if (fstat(fd, &status) != 0)
    return entryRead(EntryReadKind::Unreadable,
                     "cannot stat '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(status.st_mode))
    return entryRead(EntryReadKind::Invalid, std::string("not a regular file: ") +
                                                 fileKindName(status.st_mode));
  uint64_t fileSize = static_cast<uint64_t>(status.st_size);
  if (fileSize > kMaxEntryFileSize)
    return entryRead(EntryReadKind::Invalid,
                     "file of " + std::to_string(fileSize) + " bytes exceeds the entry limit of " +
                         std::to_string(kMaxEntryFileSize) + " bytes");
  if (fileSize < kEntryHeaderSize)
    return entryRead(EntryReadKind::Invalid,
                     "truncated header (" + std::to_string(fileSize) + " bytes)");

  // The header first: a file whose size disagrees with it is refused before its payload is read.
  std::vector<uint8_t> file(kEntryHeaderSize);
  if (!readExactly(fd, file.data(), kEntryHeaderSize))
    return entryRead(EntryReadKind::Invalid, "truncated header (short read)");
  Expected<dpk_artifact_format_t> format = checkHeader(file.data(), fileSize, keyDigest);
  if (!format)
    return entryRead(EntryReadKind::Invalid, format.error().message());
  file.resize(fileSize);
  if (!readExactly(fd, file.data() + kEntryHeaderSize, fileSize - kEntryHeaderSize))
    return entryRead(EntryReadKind::Invalid, "file shorter than its size (short read)");
  Expected<compiler::Artifact> artifact = decodeEntry(file, keyDigest);
  if (!artifact)
    return entryRead(EntryReadKind::Invalid, artifact.error().message());
  EntryRead result;
  result.kind = EntryReadKind::Loaded;
  result.artifact = std::move(*artifact);
  return result;
}

Error makeDirectories(const std::string &directory) {
  if (directory.empty())
    return Error::success();
  for (size_t slash = directory.find('/', 1);; slash = directory.find('/', slash + 1)) {
    std::string prefix = directory.substr(0, slash);
    if (!prefix.empty() && mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return systemError("cannot create directory", prefix);
    if (slash == std::string::npos)
      break;
  }
  return Error::success();
}

Error writeFileAtomically(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::string temporary = temporaryName(path);
  int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return systemError("cannot create", temporary);
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t put = write(fd, bytes.data() + written, bytes.size() - written);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0) {
      Error error = systemError("cannot write", temporary);
      close(fd);
      unlink(temporary.c_str());
      return error;
    }
    written += static_cast<size_t>(put);
  }
  // No fsync: after a crash a renamed entry may be short or empty, which the header checks
  // catch; paying a disk flush on every compile is not worth it for a rebuildable cache.
  if (close(fd) != 0) {
    Error error = systemError("cannot close", temporary);
    unlink(temporary.c_str());
    return error;
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    Error error = systemError("cannot rename into", path);
    unlink(temporary.c_str());
    return error;
  }
  return Error::success();
}

} // namespace dpk::cache

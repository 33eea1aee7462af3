// CacheEntryFuzzer.cpp - fuzz target for the kernel cache's entry reader: the bytes of an entry
// file, checked in memory (decodeEntry) and read from a file (readEntry, which adds the size
// limit and the file checks). Promises besides "no crash, no sanitizer report, no hang":
//  - the two agree: a file loads iff its bytes decode, and to the same artifact;
//  - a loaded entry is exactly what encodeEntry writes for that artifact (nothing is loaded
//    that the writer would not have written, byte for byte);
//  - a refused entry has a reason.
// The key digest is fixed; the seeds (tests/fuzz/corpus/cache_entry) are valid entries for it.
#include "FuzzSupport.h"

#include "cache/EntryFile.h"

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

using namespace dpk;
using dpk::fuzz::check;

namespace {

const std::string kDigest = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/// One file per process, rewritten for every input.
const std::string &scratchPath() {
  static const std::string path = [] {
    const char *base = std::getenv("TMPDIR");
    return std::string(base && *base ? base : "/tmp") + "/dpk-fuzz-cache-entry-" +
           std::to_string(getpid()) + ".bin";
  }();
  return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string input(reinterpret_cast<const char *>(data), size);
  std::vector<uint8_t> bytes(data, data + size);
  Expected<compiler::Artifact> decoded = cache::decodeEntry(bytes, kDigest);
  if (decoded)
    check(cache::encodeEntry(*decoded, kDigest) == bytes,
          "a decoded entry differs from what encodeEntry writes", input);
  else
    check(!decoded.error().message().empty(), "a refused entry has no reason", input);

  FILE *file = std::fopen(scratchPath().c_str(), "wb");
  check(file != nullptr, "cannot write the scratch file", input, scratchPath());
  check(std::fwrite(data, 1, size, file) == size, "short write of the scratch file", input);
  std::fclose(file);
  cache::EntryRead read = cache::readEntry(scratchPath(), kDigest);
  std::remove(scratchPath().c_str());
  if (decoded) {
    check(read.kind == cache::EntryReadKind::Loaded, "readEntry refused an entry that decodes",
          input, read.reason);
    check(read.artifact.bytes == decoded->bytes && read.artifact.format == decoded->format,
          "readEntry and decodeEntry load different artifacts", input);
  } else {
    check(read.kind == cache::EntryReadKind::Invalid, "readEntry did not refuse a bad entry",
          input, read.reason);
    check(!read.reason.empty(), "readEntry refused an entry without a reason", input);
  }
  return 0;
}

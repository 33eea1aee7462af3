// CacheKey.cpp - the cache key's components, dpk's build identity and the key digest.
#include "cache/KernelCache.h"

#include "cache/Sha256.h"

#include "BuildInfo.inc"

#include <dlfcn.h>
#include <sys/stat.h>

namespace dpk::cache {
namespace {

const char *targetSpelling(compiler::TargetKind target) {
  switch (target) {
  case compiler::TargetKind::Host: return "host";
  case compiler::TargetKind::SpirV: return "spirv";
  case compiler::TargetKind::OpenCLC: return "opencl-c";
  case compiler::TargetKind::Ptx: return "ptx";
  }
  return "unknown";
}

// The size and modification time of the binary (executable or shared library) that holds this
// function. Two builds from the same commit with different local edits share the configure-time
// identity; the binary stamp tells them apart.
std::string binaryStamp() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&binaryStamp), &info) == 0 || !info.dli_fname)
    return "bin:unknown";
  struct stat status {};
  if (stat(info.dli_fname, &status) != 0)
    return "bin:unknown";
  return "bin:" + std::to_string(static_cast<long long>(status.st_size)) + ":" +
         std::to_string(static_cast<long long>(status.st_mtim.tv_sec)) + "." +
         std::to_string(static_cast<long long>(status.st_mtim.tv_nsec));
}

void addComponent(Sha256 &hasher, std::string_view name, std::string_view value) {
  // name=<length>:<value>; the length makes the encoding unambiguous.
  std::string prefix = std::string(name) + "=" + std::to_string(value.size()) + ":";
  hasher.update(prefix);
  hasher.update(value);
  hasher.update("\n");
}

} // namespace

const std::string &buildIdentity() {
  static const std::string identity =
      std::string(DPK_BUILD_IDENTITY_STRING) + " " + binaryStamp();
  return identity;
}

const char *llvmVersion() { return DPK_LLVM_VERSION_STRING; }

CacheKey CacheKey::make(std::string irText, const compiler::CompileOptions &options,
                        std::string deviceIdentity) {
  CacheKey key;
  key.irText = std::move(irText);
  key.buildIdentity = cache::buildIdentity();
  key.llvmVersion = cache::llvmVersion();
  key.target = targetSpelling(options.target);
  key.deviceIdentity = options.targetId;
  if (!deviceIdentity.empty())
    key.deviceIdentity += "|" + deviceIdentity;
  // dumpDirectory is left out: it changes what is written beside the artifact, not the artifact.
  key.options = "opt=" + std::to_string(options.optLevel);
  // Only bounds-checked builds spell the mode, so default builds keep the keys they had.
  if (options.boundsCheck)
    key.options += ";boundscheck";
  // Linked files by path (it shows in messages and #line directives) and content digest, so
  // an edited file is a new key (docs/linking.md).
  for (const compiler::LinkInput &input : options.linkInputs)
    key.options += ";link=" + std::to_string(input.path.size()) + ":" + input.path + ":" +
                   sha256Hex(input.contents);
  if (options.rangeGuard != compiler::RangeGuardKind::None)
    key.options += options.rangeGuard == compiler::RangeGuardKind::Guarded ? ";range=guarded"
                                                                           : ";range=offsets";
  key.specialization = "local=" + std::to_string(options.localSize[0]) + "," +
                       std::to_string(options.localSize[1]) + "," +
                       std::to_string(options.localSize[2]) +
                       ";dims=" + std::to_string(options.dims);
  // Only a non-zero mask is spelled, so generic builds keep the keys (and entries) they had.
  if (options.unitInnerStrideViews != 0)
    key.specialization += ";unit-inner-stride=" + std::to_string(options.unitInnerStrideViews);
  if (options.idsFit32)
    key.specialization += ";ids32";
  return key;
}

std::string CacheKey::digest() const {
  Sha256 hasher;
  addComponent(hasher, "dpk-cache-key", "1");
  addComponent(hasher, "ir", irText);
  addComponent(hasher, "build", buildIdentity);
  addComponent(hasher, "llvm", llvmVersion);
  addComponent(hasher, "target", target);
  addComponent(hasher, "device", deviceIdentity);
  addComponent(hasher, "options", options);
  addComponent(hasher, "specialization", specialization);
  return toHex(hasher.finish());
}

} // namespace dpk::cache

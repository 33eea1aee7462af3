// HostVectorMath.cpp - see HostVectorMath.h. Why: LLVM 15 maps only sin, cos, exp, log and pow to
// glibc's vector math, so one erf or tan in a loop body keeps the whole work-item loop scalar
// (Black-Scholes: four erf calls, host code 8x slower than Intel's OpenCL runtime with SVML).
// glibc 2.35 added vector versions of most of <math.h> (Debian bookworm has 2.36). Accuracy:
// glibc documents libmvec's error bounds at 4 ulp or better, the bound LLVM already accepts for
// the functions it maps itself.
#include "compiler/HostVectorMath.h"

#include <llvm/Analysis/TargetLibraryInfo.h>

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

namespace dpk::compiler {
namespace {

// Functions of one or two arguments with glibc vector versions that LLVM 15 does not map.
const char *const kUnary[] = {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "cosh", "erf",
                              "erfc", "exp10", "exp2", "expm1", "log10", "log1p", "log2", "sinh", "tan", "tanh"};
const char *const kBinary[] = {"atan2", "hypot"};
// LLVM intrinsics that stand for some of them (dpk lowers exp2, log2 and log10 to intrinsics).
const char *const kIntrinsicBacked[] = {"exp2", "log2", "log10"};

struct Mapping {
  std::string scalar, vector;
  unsigned lanes;
};

/// glibc's x86 vector-function ABI names: 'b' = SSE (128-bit), 'd' = AVX2 (256-bit).
std::vector<Mapping> availableMappings() {
  std::vector<Mapping> mappings;
  void *library = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return mappings;
  auto add = [&](const std::string &scalar, const std::string &name, bool binary) {
    const std::string params = binary ? "vv_" : "v_";
    const struct { const char *isa; unsigned f64Lanes; } widths[] = {{"b", 2}, {"d", 4}};
    for (const auto &width : widths) {
      for (bool f32 : {false, true}) {
        unsigned lanes = f32 ? width.f64Lanes * 2 : width.f64Lanes;
        std::string vector = "_ZGV" + std::string(width.isa) + "N" + std::to_string(lanes) + params + name + (f32 ? "f" : "");
        if (!dlsym(library, vector.c_str()))
          continue;
        mappings.push_back({scalar + (f32 ? "f" : ""), vector, lanes});
      }
    }
  };
  for (const char *name : kUnary)
    add(name, name, false);
  for (const char *name : kBinary)
    add(name, name, true);
  // The intrinsics reuse the symbols found for their libm names.
  std::vector<Mapping> intrinsics;
  for (const char *name : kIntrinsicBacked) {
    for (const Mapping &m : mappings) {
      if (m.scalar == name)
        intrinsics.push_back({std::string("llvm.") + name + ".f64", m.vector, m.lanes});
      if (m.scalar == std::string(name) + "f")
        intrinsics.push_back({std::string("llvm.") + name + ".f32", m.vector, m.lanes});
    }
  }
  mappings.insert(mappings.end(), intrinsics.begin(), intrinsics.end());
  // The handle stays open: the JIT resolves these symbols in libmvec later (HostJit.cpp).
  return mappings;
}

} // namespace

void addGlibcVectorMath(llvm::TargetLibraryInfoImpl &info) {
  // VecDesc holds StringRefs: the strings must outlive every TargetLibraryInfoImpl, so they are
  // computed once per process.
  static std::vector<Mapping> mappings;
  static std::vector<llvm::VecDesc> descriptors;
  static std::once_flag once;
  std::call_once(once, [] {
    mappings = availableMappings();
    for (const Mapping &m : mappings)
      descriptors.push_back({m.scalar, m.vector, llvm::ElementCount::getFixed(m.lanes)});
  });
  info.addVectorizableFunctions(descriptors);
}

} // namespace dpk::compiler

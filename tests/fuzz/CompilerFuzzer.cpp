// CompilerFuzzer.cpp - fuzz target for the LLVM lowering: verified IR compiled for the host (an
// ELF object), SPIR-V (through SPIRV-LLVM-Translator) or PTX, one target per input (chosen
// from the input's hash, so the same input always takes the same path), at an optimization
// level and, for one input in four, in bounds-check mode, also chosen from the hash. Promise: a verified module compiles, or fails with a typed
// error (never an abort in LLVM, a sanitizer report or a hang). Kept to small inputs
// (-max_len), since one compile costs milliseconds.
#include "FuzzSupport.h"

#include "compiler/Compiler.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <functional>

using namespace dpk;
using dpk::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Expected<std::unique_ptr<ir::Module>> module = ir::parseModule(text, "fuzz.dpkir");
  if (!module || ir::verifyModule(**module)) return 0;

  size_t hash = std::hash<std::string>()(text);
  compiler::CompileOptions options;
  static const compiler::TargetKind targets[] = {
      compiler::TargetKind::Host, compiler::TargetKind::SpirV, compiler::TargetKind::Ptx};
  options.target = targets[hash % 3];
  options.optLevel = static_cast<int>((hash / 3) % 4);
  if (options.target == compiler::TargetKind::Host) options.targetId = "x86-64-v3";
  if (options.target == compiler::TargetKind::Ptx) options.targetId = "sm_80";
  if ((hash / 12) % 4 == 1) options.localSize = {8, 4, 2};
  // One input in four also goes through the bounds-check pass (compiler/BoundsCheck.h).
  options.boundsCheck = (hash / 48) % 4 == 3;
  Expected<compiler::Artifact> artifact = compiler::compileModule(**module, options);
  if (!artifact) {
    dpk_status_t status = artifact.error().status();
    check(status == DPK_ERROR_UNSUPPORTED || status == DPK_ERROR_INVALID_ARGUMENT ||
              status == DPK_ERROR_COMPILE,
          "compile failed with an unexpected status", text, artifact.error().message());
    // An internal compiler error is a bug even when it is reported cleanly.
    check(artifact.error().message().find("internal compiler error") == std::string::npos,
          "internal compiler error", text, artifact.error().message());
    return 0;
  }
  check(!artifact->bytes.empty(), "empty artifact", text);
  return 0;
}

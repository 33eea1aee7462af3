// IrFuzzer.cpp - fuzz target for the IR text: parser, verifier, printer, the analyses and the
// OpenCL C emitter (everything short of LLVM; CompilerFuzzer.cpp covers that). Promises checked
// on every input besides "no crash, no sanitizer report, no hang":
//  - a parse error is DPK_ERROR_PARSE and names "fuzz.dpkir:<line>:<col>" inside the text;
//  - a verifier error is DPK_ERROR_VERIFY;
//  - a verified module round-trips: print, parse, verify and print again give the same text
//    (with and without locations);
//  - the analyses run on it, and OpenCL C emission succeeds or fails with a typed error.
#include "FuzzSupport.h"

#include "compiler/Compiler.h"
#include "ir/Barriers.h"
#include "ir/LaunchDimensions.h"
#include "ir/OncePerGroup.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "opencl_c/OpenCLCEmitter.h"

#include <algorithm>

using namespace dpk;
using dpk::fuzz::check;

namespace {

/// "fuzz.dpkir:<line>:<col>: " at the start of `message`, with the position inside `text`.
bool namesPositionInside(const std::string &message, const std::string &text) {
  const std::string prefix = "fuzz.dpkir:";
  if (message.rfind(prefix, 0) != 0) return false;
  char *end = nullptr;
  long line = std::strtol(message.c_str() + prefix.size(), &end, 10);
  if (*end != ':') return false;
  long column = std::strtol(end + 1, &end, 10);
  if (*end != ':') return false;
  long lines = 1 + static_cast<long>(std::count(text.begin(), text.end(), '\n'));
  return line >= 1 && line <= lines && column >= 1 && column <= static_cast<long>(text.size()) + 1;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Expected<std::unique_ptr<ir::Module>> module = ir::parseModule(text, "fuzz.dpkir");
  if (!module) {
    check(module.error().status() == DPK_ERROR_PARSE, "parse error is not DPK_ERROR_PARSE", text,
          module.error().message());
    check(namesPositionInside(module.error().message(), text),
          "parse error names no position inside the text", text, module.error().message());
    return 0;
  }
  if (Error error = ir::verifyModule(**module)) {
    check(error.status() == DPK_ERROR_VERIFY, "verifier error is not DPK_ERROR_VERIFY", text,
          error.message());
    return 0;
  }

  std::string printed = ir::printModule(**module);
  Expected<std::unique_ptr<ir::Module>> again = ir::parseModule(printed, "printed");
  check(static_cast<bool>(again), "printed module does not parse", text,
        again ? "" : again.error().message() + "\nprinted:\n" + printed);
  Error verifiedAgain = ir::verifyModule(**again);
  check(!verifiedAgain, "printed module does not verify", text, verifiedAgain.message());
  check(ir::printModule(**again) == printed, "printing is not stable across a round trip", text,
        printed);
  ir::PrintOptions withLocations;
  withLocations.locations = true;
  std::string located = ir::printModule(**module, withLocations);
  Expected<std::unique_ptr<ir::Module>> third = ir::parseModule(located, "located");
  check(third && ir::printModule(**third, withLocations) == located,
        "printing with locations does not round-trip", text, located);

  ir::BarrierInfo barriers = ir::findBarriers(**module);
  (void)barriers;
  (void)ir::dimensionsUsed(**module);
  for (const auto &function : (*module)->functions)
    if (function->isKernel) (void)ir::analyzeOncePerGroup(*function, **module);

  compiler::CompileOptions options;
  options.target = compiler::TargetKind::OpenCLC;
  options.dims = static_cast<uint32_t>(size % 4); // 0 (infer) .. 3
  Expected<std::string> source = opencl_c::emitOpenCLC(**module, options);
  if (!source) {
    dpk_status_t status = source.error().status();
    check(status == DPK_ERROR_UNSUPPORTED || status == DPK_ERROR_INVALID_ARGUMENT,
          "OpenCL C emission failed with an unexpected status", text, source.error().message());
  }
  return 0;
}

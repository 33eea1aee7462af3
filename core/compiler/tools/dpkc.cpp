// dpkc.cpp - reads dpk IR text and writes any compilation stage.
//
//   dpkc [options] <input.dpkir | ->
//     --emit=ir|llvm|host-asm|host-obj|spirv|opencl-c|ptx   (default: ir)
//     --target=host|spirv|ptx   target whose LLVM IR --emit=llvm prints (default: host)
//     --arch=sm_90              CUDA architecture for ptx; CPU name for host
//     --local-size=X[,Y,Z]      specialize on this work-group shape
//     --dims=N                  launch dimensionality (1-3)
//     --unit-inner-stride=MASK  bit i: view parameter i has innermost stride 1 (as the runtime
//                               specializes when a launch passes such a view)
//     -O0..-O3                  optimization level (default -O3)
//     --boundscheck             insert bounds checks (BoundsCheck.h) before every stage
//     --dump-dir=DIR            write every stage to DIR (level-4 diagnostics)
//     --link=FILE               link FILE into the module (repeatable; .ll .bc .cl .ptx .cu,
//                               each target takes the kinds it can use: docs/linking.md)
//     -o FILE                   output file (default: stdout)
#include "compiler/BoundsCheck.h"
#include "compiler/Compiler.h"
#include "compiler/Targets.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <llvm/Support/CommandLine.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

using namespace dpk;

namespace {

int usage(const char *message) {
  std::fprintf(stderr, "dpkc: %s\n", message);
  std::fprintf(stderr,
               "usage: dpkc [--emit=ir|llvm|host-asm|host-obj|spirv|opencl-c|ptx] "
               "[--target=host|spirv|ptx] [--arch=ARCH] [--local-size=X[,Y,Z]] [--dims=N] "
               "[--unit-inner-stride=MASK] [--ids32] [--boundscheck] [-O0..3] [--dump-dir=DIR] [--link=FILE]... "
               "[-o FILE] <input.dpkir|->\n");
  return 2;
}

int fail(const Error &error) {
  std::fprintf(stderr, "dpkc: error: %s\n", error.message().c_str());
  return 1;
}

bool parseLocalSize(const std::string &text, std::array<uint64_t, 3> &out) {
  std::stringstream stream(text);
  std::string part;
  unsigned d = 0;
  while (std::getline(stream, part, ',')) {
    if (d == 3 || part.empty()) return false;
    char *end = nullptr;
    out[d++] = std::strtoull(part.c_str(), &end, 10);
    if (*end != '\0' || out[d - 1] == 0) return false;
  }
  return d > 0;
}

} // namespace

int main(int argc, char **argv) {
  // LLVM's own options for experiments (DPK_LLVM_ARGS="-force-vector-interleave=1 ...").
  const char *self[] = {"dpkc"};
  llvm::cl::ParseCommandLineOptions(1, self, "", nullptr, "DPK_LLVM_ARGS");
  std::string emit = "ir", target = "host", input, output;
  bool boundsCheck = false;
  compiler::CompileOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *prefix) { return arg.substr(std::strlen(prefix)); };
    if (arg.rfind("--emit=", 0) == 0) emit = value("--emit=");
    else if (arg.rfind("--target=", 0) == 0) target = value("--target=");
    else if (arg.rfind("--arch=", 0) == 0) options.targetId = value("--arch=");
    else if (arg.rfind("--dims=", 0) == 0) options.dims = std::atoi(value("--dims=").c_str());
    else if (arg.rfind("--unit-inner-stride=", 0) == 0)
      options.unitInnerStrideViews =
          static_cast<uint32_t>(std::strtoul(value("--unit-inner-stride=").c_str(), nullptr, 0));
    else if (arg == "--ids32") options.idsFit32 = true;
    else if (arg.rfind("--dump-dir=", 0) == 0) options.dumpDirectory = value("--dump-dir=");
    else if (arg.rfind("--link=", 0) == 0) {
      std::string path = value("--link=");
      std::ifstream file(path, std::ios::binary);
      if (!file) return fail(Error(DPK_ERROR_NOT_FOUND, "cannot open " + path));
      std::stringstream contents;
      contents << file.rdbuf();
      options.linkInputs.push_back({path, contents.str()});
    }
    else if (arg.rfind("--local-size=", 0) == 0) {
      if (!parseLocalSize(value("--local-size="), options.localSize))
        return usage("bad --local-size (want X[,Y,Z], each > 0)");
    } else if (arg.size() == 3 && arg.rfind("-O", 0) == 0 && arg[2] >= '0' && arg[2] <= '3')
      options.optLevel = arg[2] - '0';
    else if (arg == "--boundscheck") boundsCheck = true;
    else if (arg == "-o" && i + 1 < argc) output = argv[++i];
    else if (arg == "-h" || arg == "--help") return usage("reads dpk IR text, writes a stage");
    else if (!arg.empty() && arg[0] == '-' && arg != "-") return usage(("unknown option " + arg).c_str());
    else input = arg;
  }
  if (input.empty()) return usage("no input file");
  if (options.dims > 3) return usage("--dims must be 1, 2 or 3");

  std::stringstream text;
  if (input == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream file(input, std::ios::binary);
    if (!file) return fail(Error(DPK_ERROR_NOT_FOUND, "cannot open " + input));
    text << file.rdbuf();
  }
  auto module = ir::parseModule(text.str(), input);
  if (!module) return fail(module.error());
  if (Error e = ir::verifyModule(**module)) return fail(e);
  if (boundsCheck) compiler::insertBoundsChecks(**module);

  Expected<std::vector<uint8_t>> bytes = std::vector<uint8_t>{};
  if (emit == "ir") {
    std::string printed = ir::printModule(**module);
    bytes = std::vector<uint8_t>(printed.begin(), printed.end());
  } else if (emit == "llvm") {
    options.target = target == "spirv" ? compiler::TargetKind::SpirV
                     : target == "ptx" ? compiler::TargetKind::Ptx
                                       : compiler::TargetKind::Host;
    if (target == "host") bytes = compiler::compileHost(**module, options, compiler::Output::LlvmIR);
    else if (target == "spirv") bytes = compiler::compileSpirv(**module, options, compiler::Output::LlvmIR);
    else if (target == "ptx") bytes = compiler::compilePtx(**module, options, compiler::Output::LlvmIR);
    else return usage("--target must be host, spirv or ptx");
  } else if (emit == "host-asm") {
    bytes = compiler::compileHost(**module, options, compiler::Output::Assembly);
  } else {
    if (emit == "host-obj") options.target = compiler::TargetKind::Host;
    else if (emit == "spirv") options.target = compiler::TargetKind::SpirV;
    else if (emit == "opencl-c") options.target = compiler::TargetKind::OpenCLC;
    else if (emit == "ptx") options.target = compiler::TargetKind::Ptx;
    else return usage(("unknown --emit=" + emit).c_str());
    auto artifact = compiler::compileModule(**module, options);
    if (!artifact) return fail(artifact.error());
    bytes = std::move(artifact->bytes);
    if (emit == "ptx" && !bytes->empty() && bytes->back() == 0) bytes->pop_back();
  }
  if (!bytes) return fail(bytes.error());

  if (output.empty() || output == "-") {
    std::fwrite(bytes->data(), 1, bytes->size(), stdout);
    return 0;
  }
  std::ofstream out(output, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes->data()),
            static_cast<std::streamsize>(bytes->size()));
  if (!out) return fail(Error(DPK_ERROR_GENERIC, "cannot write " + output));
  return 0;
}

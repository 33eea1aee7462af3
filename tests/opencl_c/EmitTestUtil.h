// EmitTestUtil.h - shared helpers of the OpenCL C emitter tests: corpus loading, emission,
// building on the OpenCL device (skipping cleanly without one).
#ifndef DPK_TESTS_OPENCL_C_EMITTESTUTIL_H
#define DPK_TESTS_OPENCL_C_EMITTESTUTIL_H

#include "compiler/Compiler.h"
#include "ir/IR.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "opencl_c/OpenCLCEmitter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace dpk::testing {

/// A file of tests/ir, e.g. "corpus/vector_add.dpkir".
/// DPK_IR_TEST_DIR overrides the source tree's tests/ir (to run the binary elsewhere).
inline std::string irTestPath(const std::string &relative) {
  const char *override = std::getenv("DPK_IR_TEST_DIR");
  return std::string(override && *override ? override : DPK_IR_TEST_DIR) + "/" + relative;
}

inline std::string readText(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Parses and verifies a file of tests/ir; fails the test (and returns null) on error.
inline std::unique_ptr<ir::Module> loadIrFile(const std::string &relative) {
  std::string path = irTestPath(relative);
  Expected<std::unique_ptr<ir::Module>> module = ir::parseModule(readText(path), path);
  if (!module) {
    ADD_FAILURE() << module.error().message();
    return nullptr;
  }
  if (Error error = ir::verifyModule(**module)) {
    ADD_FAILURE() << error.message();
    return nullptr;
  }
  return std::move(*module);
}

/// Parses and verifies a file of tests/ir/corpus.
inline std::unique_ptr<ir::Module> loadCorpus(const std::string &name) {
  return loadIrFile("corpus/" + name);
}

inline compiler::CompileOptions openclOptions(uint32_t dims = 0,
                                              std::array<uint64_t, 3> local = {0, 0, 0}) {
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::OpenCLC;
  options.dims = dims;
  options.localSize = local;
  return options;
}

/// Emits OpenCL C; fails the test and returns "" on error.
inline std::string emitOrFail(const ir::Module &module, const compiler::CompileOptions &options) {
  Expected<std::string> source = opencl_c::emitOpenCLC(module, options);
  if (!source) {
    ADD_FAILURE() << source.error().message();
    return {};
  }
  return *source;
}

} // namespace dpk::testing

#endif // DPK_TESTS_OPENCL_C_EMITTESTUTIL_H

// HostHarness.h - compiles IR for the host and runs work-group functions with plain loops.
#ifndef DPK_TESTS_COMPILER_HOSTHARNESS_H
#define DPK_TESTS_COMPILER_HOSTHARNESS_H

#include "compiler/Compiler.h"
#include "ir/IR.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace dpk::test {

/// Reads a file of the corpus (DPK_CORPUS_DIR) or of tests/compiler/kernels.
std::string readCorpus(const std::string &name);
std::string readKernelFile(const std::string &name);

/// Parses and verifies IR text; fails the test (ADD_FAILURE) and returns null on error.
std::unique_ptr<ir::Module> parse(const std::string &text);

/// Host code of one module, compiled with the given local-size specialization.
struct HostKernels {
  std::shared_ptr<compiler::HostCode> code;
  dpk_host_group_fn lookup(const std::string &name) const;
};
HostKernels compileForHost(const ir::Module &module, std::array<uint64_t, 3> localSize = {0, 0, 0},
                           unsigned dims = 0);

/// Runs every work-group of a launch in order. Unused dimensions have size 1.
void runGroups(dpk_host_group_fn fn, unsigned dims, std::array<uint64_t, 3> global,
               std::array<uint64_t, 3> local, const std::vector<void *> &args);

} // namespace dpk::test

#endif // DPK_TESTS_COMPILER_HOSTHARNESS_H

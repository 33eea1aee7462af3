// HostHarness.cpp - compile, load and run host work-group functions for the tests.
#include "HostHarness.h"

#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace dpk::test {

namespace {
std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
} // namespace

std::string readCorpus(const std::string &name) {
  return readFile(std::string(DPK_CORPUS_DIR) + "/" + name);
}

std::string readKernelFile(const std::string &name) {
  return readFile(std::string(DPK_COMPILER_KERNELS_DIR) + "/" + name);
}

std::unique_ptr<ir::Module> parse(const std::string &text) {
  auto module = ir::parseModule(text, "test");
  if (!module) {
    ADD_FAILURE() << module.error().message();
    return nullptr;
  }
  if (Error e = ir::verifyModule(**module)) {
    ADD_FAILURE() << e.message();
    return nullptr;
  }
  return std::move(*module);
}

dpk_host_group_fn HostKernels::lookup(const std::string &name) const {
  if (!code) return nullptr;
  const dpk_host_module_t &m = code->module();
  for (uint32_t i = 0; i < m.num_kernels; ++i)
    if (name == m.kernels[i].name) return reinterpret_cast<dpk_host_group_fn>(m.kernels[i].fn);
  return nullptr;
}

HostKernels compileForHost(const ir::Module &module, std::array<uint64_t, 3> localSize,
                           unsigned dims) {
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::Host;
  options.localSize = localSize;
  options.dims = dims;
  auto artifact = compiler::compileModule(module, options);
  if (!artifact) {
    ADD_FAILURE() << "compile: " << artifact.error().message();
    return {};
  }
  std::vector<std::string> names;
  for (const auto &f : module.functions)
    if (f->isKernel) names.push_back(f->name);
  auto code = compiler::loadHostCode(artifact->bytes, names, localSize);
  if (!code) {
    ADD_FAILURE() << "load: " << code.error().message();
    return {};
  }
  return {*code};
}

void runGroups(dpk_host_group_fn fn, unsigned dims, std::array<uint64_t, 3> global,
               std::array<uint64_t, 3> local, const std::vector<void *> &args) {
  ASSERT_NE(fn, nullptr);
  dpk_host_work_group_t group{};
  group.dims = dims;
  for (unsigned d = 0; d < 3; ++d) {
    group.global_size[d] = d < dims ? global[d] : 1;
    group.local_size[d] = d < dims ? local[d] : 1;
    group.num_groups[d] = group.global_size[d] / group.local_size[d];
  }
  for (uint64_t g0 = 0; g0 < group.num_groups[0]; ++g0)
    for (uint64_t g1 = 0; g1 < group.num_groups[1]; ++g1)
      for (uint64_t g2 = 0; g2 < group.num_groups[2]; ++g2) {
        group.group_id[0] = g0;
        group.group_id[1] = g1;
        group.group_id[2] = g2;
        fn(&group, args.data());
      }
}

} // namespace dpk::test

// CompileOptionsTest.cpp - compile options a caller can get wrong or rarely uses: targetId is
// checked against the target before LLVM sees it (an unknown processor is a typed error, never
// LLVM's warning followed by an abort in code generation; issue 15, item O, with dpkc's side in
// check_dpkc.sh), and every optimization level produces every artifact (SPIR-V at -O0 made the
// translator exit the process; found by the compiler fuzzer).
#include "HostHarness.h"

#include "compiler/Compiler.h"

#include <gtest/gtest.h>

namespace dpk::test {
namespace {

const char *kKernel = "kernel @k(%p: ptr<global, f32>) {\n"
                      "  %i = global_id 0 : i64\n"
                      "  %x = load %p[%i] : f32\n"
                      "  %y = add %x, %x : f32\n"
                      "  store %p[%i], %y\n"
                      "  return\n"
                      "}\n";

Expected<compiler::Artifact> compileFor(compiler::TargetKind target, const std::string &id) {
  std::unique_ptr<ir::Module> module = parse(kKernel);
  compiler::CompileOptions options;
  options.target = target;
  options.targetId = id;
  return compiler::compileModule(*module, options);
}

TEST(TargetId, UnknownHostCpuIsATypedError) {
  for (const char *cpu : {"sm_90", "native", "x86-64-v9", "gfx90a"}) {
    Expected<compiler::Artifact> artifact = compileFor(compiler::TargetKind::Host, cpu);
    ASSERT_FALSE(artifact) << cpu;
    EXPECT_EQ(artifact.error().status(), DPK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(artifact.error().message().rfind("host: unknown CPU '" + std::string(cpu) + "'", 0),
              0u)
        << artifact.error().message();
  }
  for (const char *cpu : {"", "x86-64", "x86-64-v3", "znver3", "skylake-avx512"})
    EXPECT_TRUE(compileFor(compiler::TargetKind::Host, cpu)) << cpu;
}

TEST(TargetId, UnknownCudaArchitectureIsATypedError) {
  for (const char *arch : {"znver3", "sm_1", "sm_", "sm_90x", "sm_9000000", "compute_90"}) {
    Expected<compiler::Artifact> artifact = compileFor(compiler::TargetKind::Ptx, arch);
    ASSERT_FALSE(artifact) << arch;
    EXPECT_EQ(artifact.error().status(), DPK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(artifact.error().message().rfind(
                  "ptx: bad CUDA architecture '" + std::string(arch) + "'", 0),
              0u)
        << artifact.error().message();
  }
  for (const char *arch : {"", "sm_70", "sm_80", "sm_86", "sm_90", "sm_90a"})
    EXPECT_TRUE(compileFor(compiler::TargetKind::Ptx, arch)) << arch;
}

TEST(TargetId, DeviceIdentitiesOfOtherTargetsAreNotProcessors) {
  // OpenCL devices pass their identity (platform, device, driver) as targetId.
  EXPECT_TRUE(compileFor(compiler::TargetKind::SpirV, "Intel(R) OpenCL / cpu / 2024.1"));
  EXPECT_TRUE(compileFor(compiler::TargetKind::OpenCLC, "PoCL 3.1 / cpu / x86-64"));
}

TEST(OptLevels, EveryCorpusKernelCompilesForSpirvAtEveryLevel) {
  for (const char *name : {"private_array", "wg_reduction", "tiled_matmul", "atomic_histogram"}) {
    std::unique_ptr<ir::Module> module = parse(readCorpus(std::string(name) + ".dpkir"));
    ASSERT_FALSE(module->functions.empty()) << name;
    for (int level = 0; level <= 3; ++level) {
      compiler::CompileOptions options;
      options.target = compiler::TargetKind::SpirV;
      options.optLevel = level;
      Expected<compiler::Artifact> artifact = compiler::compileModule(*module, options);
      ASSERT_TRUE(artifact) << name << " -O" << level << ": " << artifact.error().message();
      EXPECT_FALSE(artifact->bytes.empty());
    }
  }
}

} // namespace
} // namespace dpk::test

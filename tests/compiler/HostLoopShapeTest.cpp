// HostLoopShapeTest.cpp - a loop of unknown trip count that holds a vectorized work-item loop
// is not unrolled (HostTarget.cpp): unrolling it only copies the vector loop, and pairwise
// distance ran 8-10% slower with eight copies of its gather loop of which a `for k < 3` used
// one. Checked on the optimized LLVM IR, where a copy of a vector loop's preheader
// (`vector.ph.1`, `vector.ph.epil`) can only come from unrolling a loop around it.
#include "HostHarness.h"
#include "compiler/Targets.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

namespace dpk::test {
namespace {

std::string optimizedIr(const std::string &corpusFile, unsigned dims) {
  auto module = parse(readCorpus(corpusFile));
  if (!module) return {};
  compiler::CompileOptions options;
  options.dims = dims;
  auto ir = compiler::compileHost(*module, options, compiler::Output::LlvmIR);
  if (!ir) {
    ADD_FAILURE() << ir.error().message();
    return {};
  }
  return std::string(ir->begin(), ir->end());
}

/// Labels of blocks that copy a vector loop's preheader.
std::vector<std::string> copiedVectorLoops(const std::string &ir) {
  static const std::regex copy(R"(^vector\.ph[0-9]*\.(epil|[0-9]+):)");
  std::vector<std::string> found;
  std::istringstream lines(ir);
  for (std::string line; std::getline(lines, line);)
    if (std::regex_search(line, copy)) found.push_back(line.substr(0, line.find(':')));
  return found;
}

std::string join(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

TEST(HostLoopShape, LoopsAroundTheVectorLoopAreNotUnrolled) {
  // Pairwise distance: `for k` runs once per group around the work-item loops of dimension 0
  // (one row in a Range launch) and 1 (the row's items, vectorized).
  std::string ir = optimizedIr("pairwise_distance.dpkir", 2);
  ASSERT_NE(ir.find("vector.body"), std::string::npos) << "the work-item loop was not vectorized";
  std::vector<std::string> copies = copiedVectorLoops(ir);
  EXPECT_TRUE(copies.empty()) << "copies of a vector loop: " << join(copies);
}

// Gathers are scalarized where the CPU runs them slowly (ScalarizeGathers.h): AMD Zen, and
// Intel's cores under the Gather Data Sampling microcode; pairwise distance's strided x[j, k]
// is the case. Where gathers are fast (Sapphire Rapids, Zen is not) the vector loop keeps them.
TEST(HostLoopShape, GathersAreScalarizedWhereTheCpuRunsThemSlowly) {
  EXPECT_TRUE(compiler::cpuHasSlowGathers("znver3"));
  EXPECT_TRUE(compiler::cpuHasSlowGathers("cascadelake"));
  EXPECT_TRUE(compiler::cpuHasSlowGathers("icelake-server"));
  EXPECT_FALSE(compiler::cpuHasSlowGathers("sapphirerapids"));
  EXPECT_FALSE(compiler::cpuHasSlowGathers("x86-64-v3"));
  auto module = parse(readCorpus("pairwise_distance.dpkir"));
  ASSERT_TRUE(module);
  for (const char *cpu : {"cascadelake", "sapphirerapids"}) {
    compiler::CompileOptions options;
    options.dims = 2;
    options.targetId = cpu;
    auto ir = compiler::compileHost(*module, options, compiler::Output::LlvmIR);
    ASSERT_TRUE(ir) << ir.error().message();
    bool gathers = std::string(ir->begin(), ir->end()).find("llvm.masked.gather") !=
                   std::string::npos;
    EXPECT_EQ(gathers, !compiler::cpuHasSlowGathers(cpu)) << cpu;
  }
}

} // namespace
} // namespace dpk::test

// RangeGuardTest.cpp - Range kernels in pieces (compiler/RangeGuard.h): which kernels the pass
// applies to, what it makes of one, and that both builds (offsets only, guarded) of every corpus
// kernel verify and compile for every device target.
#include "compiler/Compiler.h"
#include "compiler/RangeGuard.h"
#include "ir/LaunchDimensions.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dpk::test {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<ir::Module> parse(const std::string &text) {
  auto module = ir::parseModule(text, "test");
  EXPECT_TRUE(static_cast<bool>(module)) << (module ? "" : module.error().message());
  return module ? std::move(*module) : nullptr;
}

bool applies(const std::string &text, const std::string &kernel) {
  auto module = parse(text);
  if (!module)
    return false;
  const ir::Function *function = module->lookup(kernel);
  EXPECT_NE(function, nullptr) << kernel;
  return function && compiler::rangeGuardApplies(*function, *module);
}

TEST(RangeGuard, AppliesToKernelsThatCannotSeeWorkGroups) {
  EXPECT_TRUE(applies(R"(
kernel @k(%a: ptr<global, f32>) {
  %i = global_id 0 : i64
  %n = global_size 0 : i64
  %f = cast %n : f32
  store %a[%i], %f
  return
}
)", "k"));
  EXPECT_FALSE(applies(R"(
kernel @k(%a: ptr<global, i64>) {
  %i = global_id 0 : i64
  %l = local_id 0 : i64
  store %a[%i], %l
  return
}
)", "k"));
  EXPECT_FALSE(applies(R"(
kernel @k(%a: ptr<global, i64>) {
  barrier work_group
  return
}
)", "k"));
  EXPECT_FALSE(applies(R"(
kernel @k(%a: ptr<global, i64>, %scratch: ptr<local, i64>) {
  return
}
)", "k"));
  // global_size in a device function: the sizes would have to be passed on.
  EXPECT_FALSE(applies(R"(
func @size() -> i64 {
  %n = global_size 0 : i64
  return %n
}
kernel @k(%a: ptr<global, i64>) {
  %i = global_id 0 : i64
  %n = call @size() : i64
  store %a[%i], %n
  return
}
)", "k"));
  // group_id in a function called through another one.
  EXPECT_FALSE(applies(R"(
func @inner() -> i64 {
  %g = group_id 0 : i64
  return %g
}
func @outer() -> i64 {
  %g = call @inner() : i64
  return %g
}
kernel @k(%a: ptr<global, i64>) {
  %i = global_id 0 : i64
  %g = call @outer() : i64
  store %a[%i], %g
  return
}
)", "k"));
}

const char *kTwoDimensional = R"(
kernel @k(%a: ptr<global, i64>) {
  %i = global_id 0 : i64
  %j = global_id 1 : i64
  %n = global_size 1 : i64
  %row = mul %i, %n : i64
  %k = add %row, %j : i64
  store %a[%k], %n
  return
}
)";

size_t countOps(const ir::Block &block, ir::OpKind kind) {
  size_t count = 0;
  for (const auto &op : block.ops) {
    count += op->kind == kind;
    for (const ir::Block &region : op->regions)
      count += countOps(region, kind);
  }
  return count;
}

TEST(RangeGuard, PrivateMemoryCountsCalleesOnce) {
  auto module = parse(R"(
func @helper() -> i64 {
  %buf = alloca 100 : ptr<private, f64>
  %zero = const 0 : i64
  return %zero
}
kernel @k(%a: ptr<global, i64>) {
  %i = global_id 0 : i64
  %buf = alloca 8 : ptr<private, i32>
  %x = call @helper() : i64
  %y = call @helper() : i64
  store %a[%i], %x
  return
}
)");
  ASSERT_TRUE(module);
  EXPECT_EQ(compiler::privateMemoryBytes(*module->lookup("k"), *module), 8u * 4 + 100u * 8);
}

TEST(RangeGuard, RewritesTheKernel) {
  for (bool guard : {false, true}) {
    SCOPED_TRACE(guard ? "guarded" : "offsets");
    auto module = parse(kTwoDimensional);
    ASSERT_TRUE(module);
    ASSERT_FALSE(compiler::addRangeGuard(*module, 2, guard));
    ASSERT_FALSE(ir::verifyModule(*module)) << ir::printModule(*module);
    const ir::Function &kernel = *module->lookup("k");
    // The real sizes, then the offsets.
    ASSERT_EQ(kernel.params.size(), 5u);
    for (size_t i = 1; i < 5; ++i)
      EXPECT_EQ(ir::typeToString(kernel.params[i]->type), "i64");
    EXPECT_EQ(countOps(kernel.body, ir::OpKind::GlobalSize), 0u);
    // One global_id per dimension, in front, plus its offset; the body's own ones are gone.
    EXPECT_EQ(countOps(kernel.body, ir::OpKind::GlobalId), 2u);
    EXPECT_EQ(kernel.body.ops[0]->kind, ir::OpKind::GlobalId);
    EXPECT_EQ(kernel.body.ops[1]->kind, ir::OpKind::Add);
    // The guard: one `if` per dimension; none without it.
    EXPECT_EQ(countOps(kernel.body, ir::OpKind::If), guard ? 2u : 0u);
  }
}

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  for (const char *dir : {DPK_CORPUS_DIR, DPK_COMPILER_KERNELS_DIR}) {
    if (!fs::exists(dir))
      continue;
    for (const auto &entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".dpkir")
        files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RangeGuard, GuardedBuildsOfTheCorpusCompileForDeviceTargets) {
  int guarded = 0;
  int compiled = 0;
  for (const std::string &file : corpusFiles()) {
    SCOPED_TRACE(file);
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    auto module = parse(text.str());
    if (!module || ir::verifyModule(*module))
      continue; // kernels/ may hold deliberately odd inputs; the corpus tests cover them
    unsigned dims = std::max(ir::dimensionsUsed(*module), 1u);
    for (const auto &function : module->functions)
      guarded += function->isKernel && compiler::rangeGuardApplies(*function, *module);
    const compiler::TargetKind targets[] = {compiler::TargetKind::OpenCLC,
                                            compiler::TargetKind::SpirV,
                                            compiler::TargetKind::Ptx};
    const compiler::RangeGuardKind kinds[] = {compiler::RangeGuardKind::Offsets,
                                              compiler::RangeGuardKind::Guarded};
    for (compiler::TargetKind target : targets) {
      for (compiler::RangeGuardKind kind : kinds) {
        compiler::CompileOptions options;
        options.target = target;
        options.dims = dims;
        options.rangeGuard = kind;
        if (target == compiler::TargetKind::Ptx)
          options.targetId = "sm_80";
        auto artifact = compiler::compileModule(*module, options);
        if (!artifact && artifact.error().status() == DPK_ERROR_UNSUPPORTED)
          continue; // a target this build lacks, or a construct it cannot express either way
        EXPECT_TRUE(static_cast<bool>(artifact))
            << compiler::targetName(target) << ": "
            << (artifact ? "" : artifact.error().message());
        if (artifact)
          ++compiled;
      }
    }
  }
  EXPECT_GT(compiled, 20) << "guarded builds of the corpus compiled";
  EXPECT_GT(guarded, 5) << "the corpus should hold kernels the guard applies to";
}

} // namespace
} // namespace dpk::test

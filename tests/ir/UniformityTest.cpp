// UniformityTest.cpp - the uniformity analysis on small kernels.
#include "ir/Parser.h"
#include "ir/Uniformity.h"

#include <gtest/gtest.h>

namespace dpk::ir {
namespace {

/// The value named `name` in the first function of `module`.
const Value *named(const Module &module, const std::string &name) {
  for (const auto &v : module.functions[0]->values)
    if (v->name == name) return v.get();
  return nullptr;
}

const Op *firstOp(const Block &block, OpKind kind) {
  for (const auto &op : block.ops) {
    if (op->kind == kind) return op.get();
    for (const Block &region : op->regions)
      if (const Op *found = firstOp(region, kind)) return found;
  }
  return nullptr;
}

TEST(Uniformity, SourcesAndPropagation) {
  auto module = parseModule("kernel @k(%p: ptr<global, i64>, %n: i64) {\n"
                            "  %gid = global_id 0 : i64\n"
                            "  %lid = local_id 0 : i64\n"
                            "  %grp = group_id 0 : i64\n"
                            "  %ls = local_size 0 : i64\n"
                            "  %c = const 3 : i64\n"
                            "  %u = add %grp, %ls : i64\n"
                            "  %v = add %u, %lid : i64\n"
                            "  %m = load %p[%c] : i64\n"
                            "  %w = mul %n, %c : i64\n"
                            "  return\n"
                            "}\n");
  ASSERT_TRUE(module) << module.error().message();
  UniformityInfo info = analyzeUniformity(*(*module)->functions[0], module->get());
  for (const char *name : {"p", "n", "grp", "ls", "c", "u", "w"})
    EXPECT_TRUE(info.isUniform(named(**module, name))) << name;
  for (const char *name : {"gid", "lid", "v", "m"})
    EXPECT_FALSE(info.isUniform(named(**module, name))) << name;
}

TEST(Uniformity, PrivateVariablesWithUniformStoresStayUniform) {
  auto module = parseModule("kernel @k(%n: i64) {\n"
                            "  %zero = const 0 : i64\n"
                            "  %lid = local_id 0 : i64\n"
                            "  %a = alloca 1 : ptr<private, i64>\n"
                            "  %b = alloca 1 : ptr<private, i64>\n"
                            "  store %a[%zero], %n\n"
                            "  store %b[%zero], %n\n"
                            "  %x = load %a[%zero] : i64\n"
                            "  %y = load %b[%zero] : i64\n"
                            "  %odd = cmp gt %lid, %zero : bool\n"
                            "  if %odd {\n"
                            "    store %b[%zero], %zero\n" // same value, but divergent control
                            "  }\n"
                            "  return\n"
                            "}\n");
  ASSERT_TRUE(module) << module.error().message();
  UniformityInfo info = analyzeUniformity(*(*module)->functions[0], module->get());
  EXPECT_TRUE(info.isUniform(named(**module, "x")));
  EXPECT_FALSE(info.isUniform(named(**module, "y")));
}

TEST(Uniformity, ControlFlowAndCalls) {
  auto module = parseModule("kernel @k(%n: i64) {\n"
                            "  %zero = const 0 : i64\n"
                            "  %one = const 1 : i64\n"
                            "  %lid = local_id 0 : i64\n"
                            "  %h = call @half(%n) : i64\n"
                            "  %g = call @half(%lid) : i64\n"
                            "  for %i = %zero to %h step %one {\n"
                            "    fence acq_rel work_group\n"
                            "  }\n"
                            "  for %j = %zero to %g step %one {\n"
                            "    barrier work_group\n"
                            "  }\n"
                            "  return\n"
                            "}\n"
                            "func @half(%x: i64) -> i64 {\n"
                            "  %two = const 2 : i64\n"
                            "  %r = div %x, %two : i64\n"
                            "  return %r\n"
                            "}\n");
  ASSERT_TRUE(module) << module.error().message();
  const Function &k = *(*module)->functions[0];
  UniformityInfo info = analyzeUniformity(k, module->get());
  EXPECT_TRUE(info.isUniform(named(**module, "h")));
  EXPECT_FALSE(info.isUniform(named(**module, "g")));
  EXPECT_TRUE(info.isUniform(named(**module, "i")));
  EXPECT_FALSE(info.isUniform(named(**module, "j")));
  EXPECT_TRUE(info.inUniformControlFlow(firstOp(k.body, OpKind::Fence)));
  EXPECT_FALSE(info.inUniformControlFlow(firstOp(k.body, OpKind::Barrier)));
  // Without the module, call results are conservatively non-uniform.
  UniformityInfo alone = analyzeUniformity(k);
  EXPECT_FALSE(alone.isUniform(named(**module, "h")));
}

TEST(Uniformity, EarlyReturnMakesTheRestDivergent) {
  auto module = parseModule("kernel @k(%n: i64) {\n"
                            "  %lid = local_id 0 : i64\n"
                            "  %zero = const 0 : i64\n"
                            "  %first = cmp eq %lid, %zero : bool\n"
                            "  barrier work_group\n"
                            "  if %first {\n"
                            "    return\n"
                            "  }\n"
                            "  fence acq_rel work_group\n"
                            "  return\n"
                            "}\n");
  ASSERT_TRUE(module) << module.error().message();
  const Function &k = *(*module)->functions[0];
  UniformityInfo info = analyzeUniformity(k, module->get());
  EXPECT_TRUE(info.inUniformControlFlow(firstOp(k.body, OpKind::Barrier)));
  EXPECT_FALSE(info.inUniformControlFlow(firstOp(k.body, OpKind::Fence)));
}

} // namespace
} // namespace dpk::ir

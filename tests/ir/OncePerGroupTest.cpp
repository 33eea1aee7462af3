// OncePerGroupTest.cpp - barrier reach, split loops, group statements and group variables.
#include "ir/OncePerGroup.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <memory>

namespace dpk::ir {
namespace {

/// Parses and verifies `text`; null (with a test failure) when either fails.
std::unique_ptr<Module> parseVerified(const std::string &text) {
  auto module = parseModule(text);
  if (!module) {
    ADD_FAILURE() << module.error().message();
    return nullptr;
  }
  if (Error err = verifyModule(**module)) {
    ADD_FAILURE() << err.message();
    return nullptr;
  }
  return std::move(*module);
}

/// The value named `name` in `function`.
const Value *named(const Function &function, const std::string &name) {
  for (const auto &v : function.values)
    if (v->name == name) return v.get();
  ADD_FAILURE() << "no value %" << name;
  return nullptr;
}

/// The `index`-th op of `kind` in `block` and its regions, in program order.
const Op *findOp(const Block &block, OpKind kind, int &index) {
  for (const auto &op : block.ops) {
    if (op->kind == kind && index-- == 0) return op.get();
    for (const Block &region : op->regions)
      if (const Op *found = findOp(region, kind, index)) return found;
  }
  return nullptr;
}
const Op &nthOp(const Function &function, OpKind kind, int index = 0) {
  int remaining = index;
  const Op *found = findOp(function.body, kind, remaining);
  if (!found) ADD_FAILURE() << "no '" << opName(kind) << "' op " << index;
  return *found;
}

TEST(Barriers, ReachThroughRegionsAndCalls) {
  auto module = parseVerified("func @sync() {\n"
                              "  barrier work_group\n"
                              "  return\n"
                              "}\n"
                              "func @indirect() {\n"
                              "  call @sync()\n"
                              "  return\n"
                              "}\n"
                              "func @plain(%x: i64) -> i64 {\n"
                              "  return %x\n"
                              "}\n"
                              "kernel @k(%n: i64) {\n"
                              "  %zero = const 0 : i64\n"
                              "  %one = const 1 : i64\n"
                              "  %p = call @plain(%n) : i64\n"
                              "  for %i = %zero to %n step %one {\n"
                              "    call @indirect()\n"
                              "  }\n"
                              "  %big = cmp gt %n, %one : bool\n"
                              "  if %big {\n"
                              "    fence acq_rel work_group\n"
                              "  }\n"
                              "  return\n"
                              "}\n"
                              "kernel @free(%n: i64) {\n"
                              "  return\n"
                              "}\n");
  ASSERT_TRUE(module);
  BarrierInfo info = findBarriers(*module);
  for (const char *name : {"sync", "indirect", "k"})
    EXPECT_TRUE(info.reachesBarrier(*module->lookup(name))) << name;
  for (const char *name : {"plain", "free"})
    EXPECT_FALSE(info.reachesBarrier(*module->lookup(name))) << name;
  const Function &k = *module->lookup("k");
  EXPECT_TRUE(info.reachesBarrier(nthOp(k, OpKind::For)));
  EXPECT_TRUE(info.reachesBarrier(nthOp(k, OpKind::Call, 1))); // call @indirect
  EXPECT_FALSE(info.reachesBarrier(nthOp(k, OpKind::Call, 0))); // call @plain
  EXPECT_FALSE(info.reachesBarrier(nthOp(k, OpKind::If)));
  EXPECT_TRUE(info.reachesBarrier(nthOp(*module->lookup("sync"), OpKind::Barrier)));
}

TEST(OncePerGroup, StatementsAroundBarriers) {
  auto module = parseVerified("func @sync() {\n"
                              "  barrier work_group\n"
                              "  return\n"
                              "}\n"
                              "kernel @k(%out: ptr<global, i64>, %n: i64) {\n"
                              "  %zero = const 0 : i64\n"
                              "  %one = const 1 : i64\n"
                              "  %gid = global_id 0 : i64\n"
                              "  %g1 = add %gid, %one : i64\n"
                              "  store %out[%gid], %g1\n"
                              "  barrier work_group\n"
                              "  for %i = %zero to %n step %one {\n"
                              "    call @sync()\n"
                              "  }\n"
                              "  call @sync()\n"
                              "  return\n"
                              "}\n");
  ASSERT_TRUE(module);
  const Function &k = *module->lookup("k");
  OncePerGroupInfo info = analyzeOncePerGroup(k, *module);
  EXPECT_TRUE(info.split);
  for (OpKind kind : {OpKind::Barrier, OpKind::For, OpKind::Call, OpKind::Return})
    EXPECT_TRUE(info.isGroupStatement(nthOp(k, kind))) << opName(kind);
  for (OpKind kind : {OpKind::Const, OpKind::GlobalId, OpKind::Add, OpKind::Store})
    EXPECT_FALSE(info.isGroupStatement(nthOp(k, kind))) << opName(kind);
  // The callee's statements are classified too: its body is lowered inline, once per group.
  const Function &sync = *module->lookup("sync");
  EXPECT_TRUE(info.isGroupStatement(nthOp(sync, OpKind::Barrier)));
}

TEST(OncePerGroup, SplitLoops) {
  auto module = parseVerified("func @f(%x: ptr<global, f32>, %n: i64) {\n"
                              "  %zero = const 0 : i64\n"
                              "  %one = const 1 : i64\n"
                              "  for %c = %zero to %n step %one {\n" // in a callee: not split
                              "    %cv = load %x[%c] : f32\n"
                              "  }\n"
                              "  return\n"
                              "}\n"
                              "kernel @k(%x: ptr<global, f32>, %n: i64) {\n"
                              "  %zero = const 0 : i64\n"
                              "  %one = const 1 : i64\n"
                              "  %half = const 0x1p-1 : f32\n"
                              "  %gid = global_id 0 : i64\n"
                              "  for %a = %zero to %n step %one {\n" // split
                              "    %av = load %x[%a] : f32\n"
                              "    store %x[%gid], %av\n"
                              "  }\n"
                              "  for %b = %zero to %gid step %one {\n" // non-uniform bound
                              "    store %x[%b], %half\n"
                              "  }\n"
                              "  for %c = %zero to %n step %one {\n" // leaves early
                              "    store %x[%c], %half\n"
                              "    break\n"
                              "  }\n"
                              "  for %d = %zero to %n step %one {\n" // empty
                              "  }\n"
                              "  %odd = cmp gt %gid, %one : bool\n"
                              "  if %odd {\n"
                              "    for %e = %zero to %n step %one {\n" // divergent control flow
                              "      store %x[%e], %half\n"
                              "    }\n"
                              "  }\n"
                              "  call @f(%x, %n)\n"
                              "  return\n"
                              "}\n");
  ASSERT_TRUE(module);
  const Function &k = *module->lookup("k");
  OncePerGroupInfo info = analyzeOncePerGroup(k, *module);
  EXPECT_TRUE(info.split);
  ASSERT_EQ(info.splitLoops.size(), 1u);
  EXPECT_TRUE(info.isSplitLoop(nthOp(k, OpKind::For, 0)));
  EXPECT_TRUE(info.isGroupStatement(nthOp(k, OpKind::For, 0)));
  for (int index = 1; index <= 4; ++index)
    EXPECT_FALSE(info.isGroupStatement(nthOp(k, OpKind::For, index))) << "loop " << index;
  EXPECT_FALSE(info.isGroupStatement(nthOp(*module->lookup("f"), OpKind::For)));
  EXPECT_FALSE(info.isGroupStatement(nthOp(k, OpKind::Call))); // @f has no barrier
}

// The stride of wg_reduction: a private variable stored once per group with uniform values.
TEST(OncePerGroup, GroupVariables) {
  const std::string kernel = "kernel @k(%x: ptr<global, i64>, %flag: bool) {\n"
                             "  %zero = const 0 : i64\n"
                             "  %two = const 2 : i64\n"
                             "  %lid = local_id 0 : i64\n"
                             "  %ls = local_size 0 : i64\n"
                             "  %stride = alloca 1 : ptr<private, i64>\n"
                             "  %mine = alloca 1 : ptr<private, i64>\n"
                             "  %late = alloca 1 : ptr<private, i64>\n"
                             "  store %stride[%zero], %ls\n"
                             "  store %mine[%zero], %lid\n" // a per-work-item value
                             "  if %flag {\n"
                             "    store %late[%zero], %two\n" // uniform, but in a plain if
                             "  }\n"
                             "  BARRIER"
                             "  %s = load %stride[%zero] : i64\n"
                             "  %s2 = div %s, %two : i64\n"
                             "  store %stride[%zero], %s2\n"
                             "  %m = load %mine[%zero] : i64\n"
                             "  %l = load %late[%zero] : i64\n"
                             "  store %x[%lid], %m\n"
                             "  return\n"
                             "}\n";
  std::string split = kernel;
  split.replace(split.find("BARRIER"), 7, "barrier work_group\n");
  auto module = parseVerified(split);
  ASSERT_TRUE(module);
  const Function &k = *module->lookup("k");
  OncePerGroupInfo info = analyzeOncePerGroup(k, *module);
  EXPECT_TRUE(info.split);
  EXPECT_TRUE(info.isGroupVariable(named(k, "stride")));
  EXPECT_FALSE(info.isGroupVariable(named(k, "mine")));
  EXPECT_FALSE(info.isGroupVariable(named(k, "late")));
  const Op &firstStore = nthOp(k, OpKind::Store, 0);
  const Op &strideLoad = nthOp(k, OpKind::Load, 0);
  EXPECT_TRUE(info.isGroupStatement(firstStore)); // store %stride: once per group
  EXPECT_FALSE(info.isGroupStatement(nthOp(k, OpKind::Store, 1))); // store %mine
  EXPECT_TRUE(info.isGroupVariableAccess(strideLoad));
  EXPECT_FALSE(info.isGroupStatement(strideLoad)); // loads are values, hoisted by the host

  // Without a barrier the kernel is one work-item loop: no group variables.
  std::string single = kernel;
  single.replace(single.find("BARRIER"), 7, "");
  module = parseVerified(single);
  ASSERT_TRUE(module);
  const Function &k1 = *module->lookup("k");
  OncePerGroupInfo one = analyzeOncePerGroup(k1, *module);
  EXPECT_FALSE(one.split);
  EXPECT_TRUE(one.groupVariables.empty());
  EXPECT_FALSE(one.isGroupStatement(nthOp(k1, OpKind::Store, 0)));
}

TEST(OncePerGroup, HoistableOps) {
  auto module = parseVerified("kernel @k(%x: ptr<global, f32>, %n: i64, %f: f32) {\n"
                              "  %two = const 2 : i64\n"
                              "  %zero = const 0 : i64\n"
                              "  %minus = const -1 : i64\n"
                              "  %ls = local_size 0 : i64\n"
                              "  %lid = local_id 0 : i64\n"
                              "  %byTwo = div %n, %two : i64\n"
                              "  %byZero = div %n, %zero : i64\n"
                              "  %byMinus = rem %n, %minus : i64\n"
                              "  %byN = div %ls, %n : i64\n"
                              "  %fdiv = div %f, %f : f32\n"
                              "  %sin = math sin %f : f32\n"
                              "  %lg = math lgamma %f : f32\n"
                              "  %v = load %x[%n] : f32\n"
                              "  return\n"
                              "}\n");
  ASSERT_TRUE(module);
  const Function &k = *module->lookup("k");
  auto hoistable = [&](const char *name) { return mayHoistToGroup(*named(k, name)->definingOp); };
  for (const char *name : {"two", "ls", "byTwo", "fdiv", "sin"})
    EXPECT_TRUE(hoistable(name)) << name;
  for (const char *name : {"lid", "byZero", "byMinus", "byN", "lg", "v"})
    EXPECT_FALSE(hoistable(name)) << name;
}

} // namespace
} // namespace dpk::ir

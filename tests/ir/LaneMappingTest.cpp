// LaneMappingTest.cpp - which dimension of a Range kernel feeds the fastest lanes (issue 18):
// the expected choice for row-major, column-major, transposing, mixed and indirect accesses,
// through private variables as the Python frontend writes them, and the kernels never remapped.
#include "ir/LaneMapping.h"
#include "ir/Parser.h"
#include "ir/Printer.h"

#include <gtest/gtest.h>

namespace dpk::ir {
namespace {

LaneChoice choose(const std::string &text, const std::string &kernel) {
  auto module = parseModule(text, "lanes.dpkir");
  EXPECT_TRUE(module) << module.error().message();
  if (!module) return {};
  const Function *function = (*module)->lookup(kernel);
  EXPECT_NE(function, nullptr);
  return chooseLaneMapping(*function, **module);
}

// out[i * n + j] = in[i * n + j]: contiguous in the last dimension, as launched.
TEST(LaneMapping, RowMajorPointerAccessKeepsTheLiteralMapping) {
  LaneChoice c = choose("kernel @copy(%in: ptr<global, f32>, %out: ptr<global, f32>, %n: i64) {\n"
                        "  %i = global_id 0 : i64\n"
                        "  %j = global_id 1 : i64\n"
                        "  %row = mul %i, %n : i64\n"
                        "  %k = add %row, %j : i64\n"
                        "  %v = load %in[%k] : f32\n"
                        "  store %out[%k], %v\n"
                        "  return\n"
                        "}\n",
                        "copy");
  EXPECT_TRUE(c.remappable);
  EXPECT_EQ(c.dims, 2u);
  EXPECT_EQ(c.fastDimension, 1u);
  EXPECT_FALSE(c.permutes()) << c.reason;
  EXPECT_EQ(c.weight[1], 5u); // a store (4) and a load (1)
  EXPECT_EQ(c.weight[0], 0u);
}

// out[j * n + i]: the store is contiguous in dimension 0.
TEST(LaneMapping, ColumnMajorStoreMovesDimensionZeroToTheLanes) {
  LaneChoice c = choose("kernel @fill(%out: ptr<global, f32>, %n: i64) {\n"
                        "  %i = global_id 0 : i64\n"
                        "  %j = global_id 1 : i64\n"
                        "  %col = mul %j, %n : i64\n"
                        "  %k = add %col, %i : i64\n"
                        "  %v = cast %i : f32\n"
                        "  store %out[%k], %v\n"
                        "  return\n"
                        "}\n",
                        "fill");
  EXPECT_TRUE(c.permutes()) << c.reason;
  EXPECT_EQ(c.fastDimension, 0u);
  EXPECT_EQ(c.newPosition(), (std::array<unsigned, 3>{1, 0, 2}));
  EXPECT_NE(c.reason.find("the store to 'out'"), std::string::npos) << c.reason;
}

// A transpose reads rows and writes columns: the store outweighs the load.
TEST(LaneMapping, TransposeFollowsTheStore) {
  LaneChoice c = choose("kernel @t(%a: view<global, f32, 2>, %b: view<global, f32, 2>) {\n"
                        "  %i = global_id 0 : i64\n"
                        "  %j = global_id 1 : i64\n"
                        "  %v = view_load %a[%i, %j] : f32\n"
                        "  view_store %b[%j, %i], %v\n"
                        "  return\n"
                        "}\n",
                        "t");
  EXPECT_EQ(c.weight[0], 4u);
  EXPECT_EQ(c.weight[1], 1u);
  EXPECT_TRUE(c.permutes());
  EXPECT_EQ(c.fastDimension, 0u);
}

// Loads inside a loop execute once per iteration: a contiguous load in a loop outweighs a
// store after it.
TEST(LaneMapping, LoadsInLoopsWeighMore) {
  LaneChoice c = choose("kernel @mixed(%a: view<global, f32, 2>, %out: view<global, f32, 2>, %n: i64) {\n"
                        "  %i = global_id 0 : i64\n"
                        "  %j = global_id 1 : i64\n"
                        "  %zero = const 0 : i64\n"
                        "  %one = const 1 : i64\n"
                        "  %acc = alloca 1 : ptr<private, f32>\n"
                        "  %f0 = const 0x0p+0 : f32\n"
                        "  store %acc[%zero], %f0\n"
                        "  for %k = %zero to %n step %one {\n"
                        "    %v = view_load %a[%k, %i] : f32\n"
                        "    %s = load %acc[%zero] : f32\n"
                        "    %t = add %s, %v : f32\n"
                        "    store %acc[%zero], %t\n"
                        "  }\n"
                        "  %r = load %acc[%zero] : f32\n"
                        "  view_store %out[%i, %j], %r\n"
                        "  return\n"
                        "}\n",
                        "mixed");
  EXPECT_EQ(c.weight[0], 4u); // the load in one loop: 1 << 2
  EXPECT_EQ(c.weight[1], 4u); // the store outside
  EXPECT_FALSE(c.permutes()) << "a tie keeps the literal mapping: " << c.reason;
}

// Indices read from memory tell nothing: the literal mapping stays.
TEST(LaneMapping, IndirectAccessesKeepTheLiteralMapping) {
  LaneChoice c = choose("kernel @gather(%idx: ptr<global, i64>, %src: ptr<global, f32>, %out: ptr<global, f32>, %n: i64) {\n"
                        "  %i = global_id 0 : i64\n"
                        "  %j = global_id 1 : i64\n"
                        "  %col = mul %j, %n : i64\n"
                        "  %k = add %col, %i : i64\n"
                        "  %where = load %idx[%k] : i64\n"
                        "  %v = load %src[%where] : f32\n"
                        "  %w = mul %j, %n : i64\n"
                        "  store %out[%where], %v\n"
                        "  return\n"
                        "}\n",
                        "gather");
  EXPECT_EQ(c.weight[0], 1u); // only the index load is contiguous (in dimension 0)
  EXPECT_TRUE(c.permutes());
  LaneChoice d = choose("kernel @scatter(%idx: ptr<global, i64>, %out: ptr<global, f32>) {\n"
                        "  %i = global_id 0 : i64\n"
                        "  %j = global_id 1 : i64\n"
                        "  %where = load %idx[%j] : i64\n"
                        "  %v = cast %i : f32\n"
                        "  store %out[%where], %v\n"
                        "  return\n"
                        "}\n",
                        "scatter");
  EXPECT_FALSE(d.permutes()) << d.reason;
}

// What the Python frontend emits: ids kept in private variables, numba-dpex's pairwise
// distance storing D[j, i].
TEST(LaneMapping, SeesThroughPrivateVariables) {
  LaneChoice c = choose("kernel @pairwise(%X: view<global, f32, 2>, %D: view<global, f32, 2>) {\n"
                        "  %z = const 0 : i64\n"
                        "  %si = alloca 1 : ptr<private, i64>\n"
                        "  %sj = alloca 1 : ptr<private, i64>\n"
                        "  %gi = global_id 0 : i64\n"
                        "  store %si[%z], %gi\n"
                        "  %gj = global_id 1 : i64\n"
                        "  store %sj[%z], %gj\n"
                        "  %d = view_dim %X, 1 : i64\n"
                        "  %one = const 1 : i64\n"
                        "  %acc = alloca 1 : ptr<private, f32>\n"
                        "  %f0 = const 0x0p+0 : f32\n"
                        "  store %acc[%z], %f0\n"
                        "  for %k = %z to %d step %one {\n"
                        "    %i = load %si[%z] : i64\n"
                        "    %a = view_load %X[%i, %k] : f32\n"
                        "    %j = load %sj[%z] : i64\n"
                        "    %b = view_load %X[%j, %k] : f32\n"
                        "    %t = sub %a, %b : f32\n"
                        "    %s = load %acc[%z] : f32\n"
                        "    %u = add %s, %t : f32\n"
                        "    store %acc[%z], %u\n"
                        "  }\n"
                        "  %r = load %acc[%z] : f32\n"
                        "  %j2 = load %sj[%z] : i64\n"
                        "  %i2 = load %si[%z] : i64\n"
                        "  view_store %D[%j2, %i2], %r\n"
                        "  return\n"
                        "}\n",
                        "pairwise");
  EXPECT_TRUE(c.permutes()) << c.reason;
  EXPECT_EQ(c.fastDimension, 0u);
  EXPECT_NE(c.reason.find("'D'"), std::string::npos) << c.reason;
}

// A variable assigned different ids is not contiguous in either.
TEST(LaneMapping, AVariableHoldingTwoIdsIsNotContiguous) {
  LaneChoice c = choose("kernel @k(%out: ptr<global, f32>, %flag: bool) {\n"
                        "  %z = const 0 : i64\n"
                        "  %slot = alloca 1 : ptr<private, i64>\n"
                        "  %i = global_id 0 : i64\n"
                        "  %j = global_id 1 : i64\n"
                        "  store %slot[%z], %i\n"
                        "  if %flag {\n"
                        "    store %slot[%z], %j\n"
                        "  }\n"
                        "  %x = load %slot[%z] : i64\n"
                        "  %v = const 0x1p+0 : f32\n"
                        "  store %out[%x], %v\n"
                        "  return\n"
                        "}\n",
                        "k");
  EXPECT_EQ(c.weight[0], 0u);
  EXPECT_EQ(c.weight[1], 0u);
  EXPECT_FALSE(c.permutes());
}

// Kernels whose work-item grouping is observable keep the literal mapping.
TEST(LaneMapping, BarriersLocalMemoryAndGroupIdsAreNeverRemapped) {
  LaneChoice c = choose("func @g() -> i64 {\n"
                        "  %r = local_id 1 : i64\n"
                        "  return %r\n"
                        "}\n"
                        "kernel @k(%out: ptr<global, f32>, %n: i64) {\n"
                        "  %i = global_id 0 : i64\n"
                        "  %j = global_id 1 : i64\n"
                        "  %col = mul %j, %n : i64\n"
                        "  %k = add %col, %i : i64\n"
                        "  %l = call @g() : i64\n"
                        "  %v = cast %l : f32\n"
                        "  store %out[%k], %v\n"
                        "  return\n"
                        "}\n",
                        "k");
  EXPECT_FALSE(c.remappable);
  EXPECT_FALSE(c.permutes());
  EXPECT_NE(c.reason.find("local_id (in @g)"), std::string::npos) << c.reason;
}

TEST(LaneMapping, OneDimensionalKernelsAreNotRemapped) {
  LaneChoice c = choose("kernel @k(%out: ptr<global, f32>) {\n"
                        "  %i = global_id 0 : i64\n"
                        "  %v = const 0x1p+0 : f32\n"
                        "  store %out[%i], %v\n"
                        "  return\n"
                        "}\n",
                        "k");
  EXPECT_FALSE(c.permutes());
}

// Three dimensions: the fast one goes last, the others keep their order.
TEST(LaneMapping, PermutationOfThreeDimensionsAndTheRewrite) {
  const char *text = "kernel @k(%out: ptr<global, f32>, %n: i64) {\n"
                     "  %i = global_id 0 : i64\n"
                     "  %j = global_id 1 : i64\n"
                     "  %l = global_id 2 : i64\n"
                     "  %a = mul %l, %n : i64\n"
                     "  %b = add %a, %j : i64\n"
                     "  %c = mul %b, %n : i64\n"
                     "  %k = add %c, %i : i64\n"
                     "  %s = global_size 0 : i64\n"
                     "  %v = cast %s : f32\n"
                     "  store %out[%k], %v\n"
                     "  return\n"
                     "}\n";
  LaneChoice c = choose(text, "k");
  ASSERT_TRUE(c.permutes()) << c.reason;
  EXPECT_EQ(c.fastDimension, 0u);
  EXPECT_EQ(c.newPosition(), (std::array<unsigned, 3>{2, 0, 1}));
  auto module = parseModule(text, "lanes.dpkir");
  ASSERT_TRUE(module);
  permuteWorkItemDimensions(**module, c.newPosition());
  std::string printed = printModule(**module);
  EXPECT_NE(printed.find("%i = global_id 2"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%j = global_id 0"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%l = global_id 1"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%s = global_size 2"), std::string::npos) << printed;
}

} // namespace
} // namespace dpk::ir

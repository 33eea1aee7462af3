// CudaGeometryTest.cpp - the CUDA backend's grid/block choice, checked without a GPU.
#include "geometry.hpp"

#include <gtest/gtest.h>

using namespace dpk::cuda;

namespace {

BlockLimits h100Like() {
  BlockLimits limits;
  limits.maxThreads = 1024;
  limits.maxBlock[0] = 1024;
  limits.maxBlock[1] = 1024;
  limits.maxBlock[2] = 64;
  limits.maxGrid[0] = 2147483647;
  limits.maxGrid[1] = 65535;
  limits.maxGrid[2] = 65535;
  return limits;
}

dpk_launch_config_t config(uint32_t dims, std::initializer_list<uint64_t> global,
                           std::initializer_list<uint64_t> local = {}) {
  dpk_launch_config_t c{};
  c.dims = dims;
  int i = 0;
  for (uint64_t g : global)
    c.global_size[i++] = g;
  i = 0;
  for (uint64_t l : local)
    c.local_size[i++] = l;
  return c;
}

} // namespace

TEST(CudaGeometry, LargestDivisor) {
  EXPECT_EQ(largestDivisorAtMost(1000, 256), 250u);
  EXPECT_EQ(largestDivisorAtMost(1024, 256), 256u);
  EXPECT_EQ(largestDivisorAtMost(1009, 256), 1u); // prime
  EXPECT_EQ(largestDivisorAtMost(17, 256), 17u);
}

TEST(CudaGeometry, NdRangeReversesDimensions) {
  Geometry g;
  // dpk (rows=64, cols=128) with local (2, 32): CUDA block (32, 2), grid (4, 32).
  ASSERT_EQ(computeGeometry(config(2, {64, 128}, {2, 32}), h100Like(), g), "");
  EXPECT_EQ(g.block[0], 32u);
  EXPECT_EQ(g.block[1], 2u);
  EXPECT_EQ(g.block[2], 1u);
  EXPECT_EQ(g.grid[0], 4u);
  EXPECT_EQ(g.grid[1], 32u);
  EXPECT_EQ(g.grid[2], 1u);
}

TEST(CudaGeometry, ThreeDimensions) {
  Geometry g;
  ASSERT_EQ(computeGeometry(config(3, {8, 16, 32}, {2, 4, 8}), h100Like(), g), "");
  EXPECT_EQ(g.block[0], 8u);
  EXPECT_EQ(g.block[1], 4u);
  EXPECT_EQ(g.block[2], 2u);
  EXPECT_EQ(g.grid[0], 4u);
  EXPECT_EQ(g.grid[1], 4u);
  EXPECT_EQ(g.grid[2], 4u);
}

TEST(CudaGeometry, RangeFillsXFirstWithExactDivisors) {
  Geometry g;
  ASSERT_EQ(computeGeometry(config(1, {1 << 20}), h100Like(), g), "");
  EXPECT_EQ(g.block[0], 256u);
  EXPECT_EQ(g.grid[0], 4096u);
  ASSERT_EQ(computeGeometry(config(2, {300, 1000}), h100Like(), g), "");
  EXPECT_EQ(g.block[0], 250u); // columns (dpk dim 1) on x
  EXPECT_EQ(g.block[1], 1u);   // budget 256/250 = 1 left for y
  EXPECT_EQ(g.grid[0], 4u);
  EXPECT_EQ(g.grid[1], 300u);
  ASSERT_EQ(computeGeometry(config(2, {512, 8}), h100Like(), g), "");
  EXPECT_EQ(g.block[0], 8u);
  EXPECT_EQ(g.block[1], 32u); // the rest of the budget goes to y
}

TEST(CudaGeometry, RangeRespectsKernelLimit) {
  BlockLimits limits = h100Like();
  limits.maxThreads = 128; // a register-heavy kernel
  Geometry g;
  ASSERT_EQ(computeGeometry(config(1, {4096}), limits, g), "");
  EXPECT_EQ(g.block[0], 128u);
}

TEST(CudaGeometry, TooLargeWorkGroupIsRefused) {
  Geometry g;
  std::string why = computeGeometry(config(1, {4096}, {2048}), h100Like(), g);
  EXPECT_NE(why.find("exceeds"), std::string::npos) << why;
  why = computeGeometry(config(2, {64, 64}, {64, 32}), h100Like(), g);
  EXPECT_NE(why.find("work-group of 2048 work-items (64x32)"), std::string::npos) << why;
  // dpk dim 0 of a 3-D launch is CUDA z, limited to 64.
  why = computeGeometry(config(3, {128, 1, 1}, {128, 1, 1}), h100Like(), g);
  EXPECT_NE(why.find("dimension 0"), std::string::npos) << why;
  EXPECT_NE(why.find("block dimension z"), std::string::npos) << why;
}

// Malformed configurations (no dimension, an empty one, local sizes that do not divide) never
// reach the plugin: the core's validation layer refuses them (tests/plugin_abi).
TEST(CudaGeometry, TooManyBlocksIsRefused) {
  Geometry g;
  // 2^20 rows of 1 column, one row per block: more blocks than CUDA y allows.
  EXPECT_NE(
      computeGeometry(config(2, {1 << 20, 1}, {1, 1}), h100Like(), g).find("grid dimension y"),
      std::string::npos);
}

// dpk's PTX indexes CUDA y and z in 32 bits; a device with grid limits beyond today's 65535 must
// get a clear refusal instead of wrapped ids.
TEST(CudaGeometry, YAndZGlobalSizesStayWithin32Bits) {
  BlockLimits limits = h100Like();
  limits.maxGrid[1] = 2147483647;
  Geometry geometry;
  std::string why = computeGeometry(config(2, {uint64_t(1) << 33, 4}, {1024, 1}), limits, geometry);
  EXPECT_NE(why.find("exceeds 2^32 - 1"), std::string::npos) << why;
  EXPECT_NE(why.find("CUDA dimension y"), std::string::npos) << why;
  EXPECT_EQ(computeGeometry(config(2, {65535u * 1024u, 4}, {1024, 1}), h100Like(), geometry), "");
}

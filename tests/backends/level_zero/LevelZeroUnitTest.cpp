// LevelZeroUnitTest.cpp - the Level Zero backend's pure parts: result names and mapping,
// dimension reversal, group counts and argument marshalling.
#include "arguments.hpp"
#include "common.hpp"
#include "geometry.hpp"

#include <gtest/gtest.h>

using namespace dpk::level_zero;

TEST(LevelZeroErrors, MappingTable) {
  struct Row {
    ze_result_t result;
    dpk_status_t status;
    const char *name;
  };
  const Row rows[] = {
      {ZE_RESULT_SUCCESS, DPK_SUCCESS, "ZE_RESULT_SUCCESS"},
      {ZE_RESULT_ERROR_UNINITIALIZED, DPK_ERROR_NO_DEVICE, "ZE_RESULT_ERROR_UNINITIALIZED"},
      {ZE_RESULT_ERROR_DEVICE_LOST, DPK_ERROR_DEVICE, "ZE_RESULT_ERROR_DEVICE_LOST"},
      {ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, DPK_ERROR_OUT_OF_DEVICE_MEMORY,
       "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"},
      {ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, DPK_ERROR_OUT_OF_HOST_MEMORY,
       "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY"},
      {ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, DPK_ERROR_COMPILE,
       "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE"},
      {ZE_RESULT_ERROR_MODULE_LINK_FAILURE, DPK_ERROR_COMPILE,
       "ZE_RESULT_ERROR_MODULE_LINK_FAILURE"},
      {ZE_RESULT_ERROR_INVALID_KERNEL_NAME, DPK_ERROR_NOT_FOUND,
       "ZE_RESULT_ERROR_INVALID_KERNEL_NAME"},
      {ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, DPK_ERROR_INVALID_RANGE,
       "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION"},
      {ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE, DPK_ERROR_INVALID_ARGUMENT,
       "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE"},
      {ZE_RESULT_ERROR_INVALID_NULL_HANDLE, DPK_ERROR_INVALID_HANDLE,
       "ZE_RESULT_ERROR_INVALID_NULL_HANDLE"},
      {ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, DPK_ERROR_UNSUPPORTED,
       "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE"},
      {ZE_RESULT_ERROR_UNKNOWN, DPK_ERROR_GENERIC, "ZE_RESULT_ERROR_UNKNOWN"},
  };
  for (const Row &row : rows) {
    EXPECT_EQ(mapZeResult(row.result), row.status) << row.name;
    EXPECT_STREQ(zeResultName(row.result), row.name);
  }
  // A value from a newer API version still gets a name and a status.
  auto future = static_cast<ze_result_t>(0x7800ffff);
  EXPECT_EQ(mapZeResult(future), DPK_ERROR_GENERIC);
  EXPECT_STREQ(zeResultName(future), "ZE_RESULT_<unknown>");
}

TEST(LevelZeroErrors, MessagesCarryNameAndCode) {
  EXPECT_EQ(describeZeResult(ZE_RESULT_ERROR_UNINITIALIZED),
            "ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)");
  EXPECT_EQ(checkZe(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "zeModuleCreate", "log text"),
            DPK_ERROR_COMPILE);
  int32_t code = 0;
  EXPECT_STREQ(dpk::plugin::lastError(&code),
               "zeModuleCreate: ZE_RESULT_ERROR_MODULE_BUILD_FAILURE (0x70000004): log text");
  EXPECT_EQ(code, static_cast<int32_t>(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE));
  EXPECT_EQ(checkZe(ZE_RESULT_SUCCESS, "zeInit"), DPK_SUCCESS);
}

namespace {

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

GroupLimits pvcLike() {
  GroupLimits l;
  l.maxTotal = 1024;
  l.maxSize[0] = l.maxSize[1] = l.maxSize[2] = 1024;
  l.maxCount[0] = l.maxCount[1] = l.maxCount[2] = 0xffffffffu;
  return l;
}

} // namespace

TEST(LevelZeroGeometry, ReversesDimensions) {
  ApiRange r;
  ASSERT_EQ(toApiOrder(config(3, {2, 3, 4}, {1, 3, 2}), r), "");
  EXPECT_FALSE(r.range);
  EXPECT_EQ(r.global[0], 4u); // dpk's last dimension is x
  EXPECT_EQ(r.global[1], 3u);
  EXPECT_EQ(r.global[2], 2u);
  EXPECT_EQ(r.local[0], 2u);
  EXPECT_EQ(r.local[1], 3u);
  EXPECT_EQ(r.local[2], 1u);
  ASSERT_EQ(toApiOrder(config(2, {10, 20}), r), "");
  EXPECT_TRUE(r.range);
  EXPECT_EQ(r.global[0], 20u);
  EXPECT_EQ(r.global[1], 10u);
  EXPECT_EQ(r.global[2], 1u);
}

// Malformed shapes never reach the plugin (the core's validation layer, tests/plugin_abi); what
// is left is the API's 32-bit sizes.
TEST(LevelZeroGeometry, RejectsSizesBeyond32Bits) {
  ApiRange r;
  EXPECT_NE(toApiOrder(config(1, {1ull << 33}), r).find("2^32"), std::string::npos);
  EXPECT_NE(toApiOrder(config(2, {8, 8}, {1ull << 33, 1}), r).find("2^32"), std::string::npos);
}

TEST(LevelZeroGeometry, GroupCounts) {
  ApiRange r;
  ASSERT_EQ(toApiOrder(config(2, {64, 128}, {4, 32}), r), "");
  uint32_t group[3] = {r.local[0], r.local[1], r.local[2]};
  uint32_t counts[3];
  ASSERT_EQ(groupCounts(r, group, pvcLike(), 2, counts), "");
  EXPECT_EQ(counts[0], 4u);  // 128 / 32 along x
  EXPECT_EQ(counts[1], 16u); // 64 / 4 along y
  EXPECT_EQ(counts[2], 1u);
}

TEST(LevelZeroGeometry, GroupErrorsNameDpkDimensions) {
  ApiRange r;
  uint32_t counts[3];
  ASSERT_EQ(toApiOrder(config(2, {64, 100}, {1, 64}), r), "");
  uint32_t group[3] = {r.local[0], r.local[1], r.local[2]};
  std::string why = groupCounts(r, group, pvcLike(), 2, counts);
  EXPECT_NE(why.find("does not divide global size 100 in dimension 1"), std::string::npos) << why;
  ASSERT_EQ(toApiOrder(config(2, {64, 64}, {32, 64}), r), "");
  uint32_t big[3] = {r.local[0], r.local[1], r.local[2]};
  why = groupCounts(r, big, pvcLike(), 2, counts);
  EXPECT_NE(why.find("work-group of 2048 work-items exceeds"), std::string::npos) << why;
  GroupLimits small = pvcLike();
  small.maxSize[2] = 64;
  ASSERT_EQ(toApiOrder(config(3, {128, 1, 1}, {128, 1, 1}), r), "");
  uint32_t tall[3] = {r.local[0], r.local[1], r.local[2]};
  why = groupCounts(r, tall, small, 3, counts);
  EXPECT_NE(why.find("in dimension 0 exceeds"), std::string::npos) << why;
}

TEST(LevelZeroArguments, EveryKind) {
  void *ptr = reinterpret_cast<void *>(0x1000);
  int32_t i = 7;
  double d = 2.5;
  dpk_kernel_arg_t args[] = {{DPK_ARG_POINTER, sizeof(void *), &ptr},
                             {DPK_ARG_SCALAR, sizeof(i), &i},
                             {DPK_ARG_LOCAL, 4096, nullptr},
                             {DPK_ARG_SCALAR, sizeof(d), &d}};
  std::vector<ZeArgument> out;
  ASSERT_EQ(marshalArguments(4, args, 4, out), "");
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].index, 0u);
  EXPECT_EQ(out[0].size, sizeof(void *));
  EXPECT_EQ(out[0].value, &ptr); // the address of the pointer, as zeKernelSetArgumentValue wants
  EXPECT_EQ(out[1].size, 4u);
  EXPECT_EQ(out[1].value, &i);
  EXPECT_EQ(out[2].size, 4096u);
  EXPECT_EQ(out[2].value, nullptr); // local memory: size with a NULL value
  EXPECT_EQ(out[3].index, 3u);
  EXPECT_EQ(out[3].size, 8u);
}

// Kinds, values and sizes are the core's to check (tests/plugin_abi); the count is the kernel's.
TEST(LevelZeroArguments, CountMustMatchTheKernel) {
  int32_t i = 7;
  std::vector<ZeArgument> out;
  dpk_kernel_arg_t one[] = {{DPK_ARG_SCALAR, sizeof(i), &i}};
  EXPECT_NE(marshalArguments(1, one, 2, out).find("takes 2 arguments, 1 given"), std::string::npos);
  EXPECT_EQ(marshalArguments(1, one, 0, out), ""); // count unknown
  EXPECT_EQ(out.size(), 1u);
}

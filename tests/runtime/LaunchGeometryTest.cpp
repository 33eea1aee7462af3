// LaunchGeometryTest.cpp - the work-group shapes the core picks for Range launches and the
// device limits every range is checked against (runtime/LaunchRange.h), on made-up devices
// shaped like PoCL, a CUDA GPU, the host and a 32-bit OpenCL device.
#include "runtime/LaunchRange.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace dpk::runtime {
namespace {

dpk_device_props_t cpuLikePocl() {
  dpk_device_props_t props{};
  props.struct_size = sizeof props;
  props.type = DPK_DEVICE_TYPE_CPU;
  props.max_work_group_size = 4096;
  props.max_work_item_sizes[0] = props.max_work_item_sizes[1] = props.max_work_item_sizes[2] =
      4096;
  props.max_total_groups = UINT32_MAX;
  return props;
}

dpk_device_props_t gpuLikeCuda() {
  dpk_device_props_t props{};
  props.struct_size = sizeof props;
  props.type = DPK_DEVICE_TYPE_GPU;
  props.max_work_group_size = 1024;
  props.max_work_item_sizes[0] = 64; // z
  props.max_work_item_sizes[1] = 1024;
  props.max_work_item_sizes[2] = 1024;
  props.max_num_groups[0] = 65535; // z
  props.max_num_groups[1] = 65535;
  props.max_num_groups[2] = 2147483647; // x
  return props;
}

dpk_launch_config_t range(std::initializer_list<uint64_t> sizes) {
  dpk_launch_config_t config{};
  for (uint64_t size : sizes)
    config.global_size[config.dims++] = size;
  return config;
}

std::string shape(const uint64_t local[3], uint32_t dims) {
  std::string text;
  for (uint32_t d = 0; d < dims; ++d)
    text += (d ? "x" : "") + std::to_string(local[d]);
  return text;
}

TEST(RangeShape, PaddedOneDimensionalLaunchesShareOneShape) {
  // One shape for every 1-D size: the OpenCL implementation compiles one work-group function.
  for (const dpk_device_props_t &props : {cpuLikePocl(), gpuLikeCuda()}) {
    std::set<std::string> shapes;
    for (uint64_t n = 1; n <= 5000; ++n) {
      uint64_t local[3];
      pickRangeLocal(range({n}), props, /*padded=*/true, local);
      shapes.insert(shape(local, 1));
    }
    EXPECT_EQ(shapes.size(), 1u);
    uint64_t local[3];
    pickRangeLocal(range({1000003}), props, true, local);
    EXPECT_EQ(local[0], props.type == DPK_DEVICE_TYPE_CPU ? kRangeGroupItemsCpu : kRangeGroupItems);
  }
}

TEST(RangeShape, PaddedShapesAreFewAndFitTheDevice) {
  dpk_device_props_t props = gpuLikeCuda();
  std::set<std::string> shapes;
  for (uint64_t a = 1; a <= 300; a += 7) {
    for (uint64_t b = 1; b <= 300; b += 5) {
      uint64_t local[3];
      pickRangeLocal(range({a, b}), props, true, local);
      uint64_t items = local[0] * local[1];
      EXPECT_LE(items, kRangeGroupItems);
      EXPECT_EQ(items & (items - 1), 0u) << "sides are powers of two";
      // Padding never more than doubles a dimension other than the first.
      EXPECT_LT(local[1], 2 * b);
      shapes.insert(shape(local, 2));
    }
  }
  EXPECT_LE(shapes.size(), 9u); // one per power of two of the last side
  uint64_t local[3];
  pickRangeLocal(range({5, 5, 5}), props, true, local);
  EXPECT_LE(local[0], 64u) << "CUDA z holds at most 64";
  EXPECT_EQ(shape(local, 3), "4x8x8");
}

TEST(RangeShape, UnpaddedShapesDivide) {
  for (uint64_t n : {1ull, 7ull, 256ull, 1000ull, 1000003ull, 1ull << 40}) {
    uint64_t local[3];
    pickRangeLocal(range({n}), gpuLikeCuda(), /*padded=*/false, local);
    EXPECT_EQ(n % local[0], 0u) << n;
    EXPECT_LE(local[0], kRangeGroupItems);
  }
  uint64_t local[3];
  pickRangeLocal(range({12, 1000}), cpuLikePocl(), false, local);
  EXPECT_EQ(shape(local, 2), "1x1000");
}

TEST(RangeShape, PrivateMemoryShrinksCpuWorkGroups) {
  dpk_device_props_t cpu = cpuLikePocl();
  EXPECT_EQ(groupItemsFor(0, cpu), 0u);
  EXPECT_EQ(groupItemsFor(16 << 10, cpu), kCpuPrivateBytesPerGroup / (16 << 10));
  EXPECT_EQ(groupItemsFor(uint64_t(1) << 30, cpu), 1u);
  EXPECT_EQ(groupItemsFor(16 << 10, gpuLikeCuda()), 0u) << "GPUs keep private memory elsewhere";
  uint64_t local[3];
  pickRangeLocal(range({100003}), cpu, /*padded=*/true, local, groupItemsFor(16 << 10, cpu));
  EXPECT_EQ(local[0], 32u);
  pickRangeLocal(range({100003}), cpu, /*padded=*/true, local, 1000);
  EXPECT_EQ(local[0], 512u) << "padded shapes stay powers of two";
}

TEST(RangeLimits, EveryDeviceRefusesWhatItCannotRun) {
  dpk_device_props_t pocl = cpuLikePocl();
  // 2^42 items in groups of 1024 are 2^32 groups: one more than PoCL counts.
  dpk_launch_config_t padded = range({uint64_t(1) << 42});
  padded.local_size[0] = 1024;
  std::string problem = deviceRangeProblem(padded, uint64_t(1) << 42, pocl);
  EXPECT_NE(problem.find("4294967296 work-groups"), std::string::npos) << problem;
  EXPECT_NE(problem.find("4294967295"), std::string::npos) << problem;
  padded.global_size[0] = (uint64_t(1) << 42) - 1024;
  EXPECT_EQ(deviceRangeProblem(padded, padded.global_size[0], pocl), "");

  // CPUs: at most 2^44 work-items, whoever picks the shape.
  dpk_device_props_t host{};
  host.type = DPK_DEVICE_TYPE_CPU;
  dpk_launch_config_t big = range({(uint64_t(1) << 44) + 1});
  EXPECT_NE(deviceRangeProblem(big, big.global_size[0], host).find("2^44"), std::string::npos);
  big.global_size[0] = uint64_t(1) << 44;
  EXPECT_EQ(deviceRangeProblem(big, big.global_size[0], host), "");

  // CUDA: blocks per grid dimension; a Range is refused only when no block shape fits.
  dpk_device_props_t cuda = gpuLikeCuda();
  dpk_launch_config_t nd = range({65536 * 2, 32});
  nd.local_size[0] = 1;
  nd.local_size[1] = 32;
  problem = deviceRangeProblem(nd, 65536 * 64, cuda);
  EXPECT_NE(problem.find("131072 work-groups in dimension 0"), std::string::npos) << problem;
  EXPECT_NE(problem.find("65535"), std::string::npos) << problem;
  dpk_launch_config_t wide = range({uint64_t(1) << 45});
  problem = deviceRangeProblem(wide, uint64_t(1) << 45, cuda);
  EXPECT_NE(problem.find("2147483647"), std::string::npos) << problem;
  wide.global_size[0] = uint64_t(1) << 40;
  EXPECT_EQ(deviceRangeProblem(wide, uint64_t(1) << 40, cuda), "");

  // A device with a 32-bit size_t.
  dpk_device_props_t small{};
  small.type = DPK_DEVICE_TYPE_GPU;
  small.max_total_items = UINT32_MAX;
  dpk_launch_config_t over = range({uint64_t(1) << 32});
  EXPECT_NE(deviceRangeProblem(over, uint64_t(1) << 32, small).find("4294967295"),
            std::string::npos);
}

TEST(RangeLimits, WorkGroupLimitsKeepTheirMessages) {
  dpk_device_props_t cuda = gpuLikeCuda();
  dpk_launch_config_t nd = range({128, 2048});
  nd.local_size[0] = 1;
  nd.local_size[1] = 2048;
  EXPECT_NE(deviceRangeProblem(nd, 128 * 2048, cuda).find("exceeds the device's maximum of 1024"),
            std::string::npos);
  nd.local_size[0] = 2;
  nd.local_size[1] = 1024;
  EXPECT_NE(deviceRangeProblem(nd, 128 * 2048, cuda).find("maximum work-group size of 1024"),
            std::string::npos);
}

} // namespace
} // namespace dpk::runtime

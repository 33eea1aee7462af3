// HostBarrierTest.cpp - barrier splitting on the host: values across barriers, 3-D groups,
// uniform break and return around barriers, barriers inside device functions.
#include "HostHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dpk::test {
namespace {

class HostBarriers : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    module_ = parse(readKernelFile("barriers.dpkir"));
    ASSERT_TRUE(module_);
  }
  HostKernels compile(std::array<uint64_t, 3> local, unsigned dims) {
    return compileForHost(*module_, GetParam() ? local : std::array<uint64_t, 3>{0, 0, 0}, dims);
  }
  std::unique_ptr<ir::Module> module_;
};

TEST_P(HostBarriers, ValueCrossesBarrier) {
  const uint64_t L = 32, n = 128;
  auto k = compile({L, 0, 0}, 1);
  std::vector<float> in(n), out(n, -1.0f);
  for (uint64_t i = 0; i < n; ++i) in[i] = float(i) * 0.5f;
  void *pin = in.data(), *pout = out.data();
  runGroups(k.lookup("reverse_in_group"), 1, {n, 1, 1}, {L, 1, 1}, {&pin, &pout});
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t g = i / L, l = i % L;
    ASSERT_EQ(out[i], 2.0f * in[g * L + (L - 1 - l)] + float(l)) << i;
  }
}

TEST_P(HostBarriers, ThreeDimensions) {
  const std::array<uint64_t, 3> global{4, 6, 8}, local{2, 3, 4};
  auto k = compile(local, 3);
  const uint64_t total = global[0] * global[1] * global[2];
  std::vector<int64_t> out(total, -1);
  void *pout = out.data();
  runGroups(k.lookup("grid3"), 3, global, local, {&pout});
  const uint64_t items = local[0] * local[1] * local[2];
  for (uint64_t g0 = 0; g0 < global[0]; ++g0)
    for (uint64_t g1 = 0; g1 < global[1]; ++g1)
      for (uint64_t g2 = 0; g2 < global[2]; ++g2) {
        uint64_t l0 = g0 % local[0], l1 = g1 % local[1], l2 = g2 % local[2];
        uint64_t mirror = items - 1 - ((l0 * local[1] + l1) * local[2] + l2);
        uint64_t m2 = mirror % local[2], m1 = (mirror / local[2]) % local[1];
        uint64_t m0 = mirror / (local[1] * local[2]);
        uint64_t h0 = g0 - l0 + m0, h1 = g1 - l1 + m1, h2 = g2 - l2 + m2;
        uint64_t self = (g0 * global[1] + g1) * global[2] + g2;
        ASSERT_EQ(out[self], int64_t((h0 * global[1] + h1) * global[2] + h2)) << self;
      }
}

TEST_P(HostBarriers, UniformBreakFromBarrierLoop) {
  const uint64_t L = 16, n = 64;
  auto k = compile({L, 0, 0}, 1);
  for (int64_t limit : {0, 7, 100, 250}) {
    std::vector<int64_t> out(n, -1);
    void *pout = out.data();
    runGroups(k.lookup("loop_break"), 1, {n, 1, 1}, {L, 1, 1}, {&pout, &limit});
    for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], std::min<int64_t>(limit, 100)) << limit;
  }
}

TEST_P(HostBarriers, BarrierInDeviceFunction) {
  const uint64_t L = 64, n = 256;
  auto k = compile({L, 0, 0}, 1);
  std::vector<int64_t> out(n, -1);
  void *pout = out.data();
  runGroups(k.lookup("barrier_in_func"), 1, {n, 1, 1}, {L, 1, 1}, {&pout});
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], int64_t(i / L * L + (L - 1 - i % L))) << i;
}

TEST_P(HostBarriers, BarrierFunctionReturnsPerItemValue) {
  // Regression: the result of a call to a function with a barrier was work-item 0's for all.
  const uint64_t L = 64, n = 256;
  auto k = compile({L, 0, 0}, 1);
  std::vector<int64_t> out(n, -1);
  void *pout = out.data();
  runGroups(k.lookup("barrier_func_value"), 1, {n, 1, 1}, {L, 1, 1}, {&pout});
  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], int64_t(i / L * L + (L - 1 - i % L)) * 2 + int64_t(i % L)) << i;
}

TEST_P(HostBarriers, UniformReturnBeforeBarrier) {
  const uint64_t L = 32, n = 128;
  auto k = compile({L, 0, 0}, 1);
  std::vector<int64_t> out(n, -1);
  void *pout = out.data();
  int64_t skip = 2;
  runGroups(k.lookup("uniform_return"), 1, {n, 1, 1}, {L, 1, 1}, {&pout, &skip});
  for (uint64_t i = 0; i < n; ++i) {
    int64_t expect = i / L == uint64_t(skip) ? -1 : int64_t(i / L * L + (L - 1 - i % L));
    ASSERT_EQ(out[i], expect) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, HostBarriers, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "Specialized" : "Generic";
                         });

} // namespace
} // namespace dpk::test

namespace dpk::test {
namespace {

TEST(HostScalars, HalfStorageAndBoolParameter) {
  auto m = parse(readKernelFile("scalars.dpkir"));
  ASSERT_TRUE(m);
  auto k = compileForHost(*m);
  // f16 bit patterns of small integers: 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 5.0 = 0x4500.
  std::vector<uint16_t> in{0x3c00, 0x4000, 0x0000, 0xbc00}, out(4, 0xffff);
  void *pin = in.data(), *pout = out.data();
  bool flag = true;
  runGroups(k.lookup("half_scale"), 1, {4, 1, 1}, {4, 1, 1}, {&pin, &pout, &flag});
  EXPECT_EQ(out, (std::vector<uint16_t>{0x4200, 0x4500, 0x3c00, 0xbc00})); // 3, 5, 1, -1
  flag = false;
  runGroups(k.lookup("half_scale"), 1, {4, 1, 1}, {2, 1, 1}, {&pin, &pout, &flag});
  EXPECT_EQ(out, (std::vector<uint16_t>{0x4000, 0x4400, 0x0000, 0xc000})); // 2, 4, 0, -2
}

TEST(HostScalars, WhileBreakContinue) {
  auto m = parse(readKernelFile("scalars.dpkir"));
  ASSERT_TRUE(m);
  auto k = compileForHost(*m);
  const uint64_t n = 200;
  std::vector<uint32_t> out(n, 12345);
  void *pout = out.data();
  runGroups(k.lookup("collatz"), 1, {n, 1, 1}, {8, 1, 1}, {&pout});
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t v = uint32_t(i + 1), steps = 0;
    while (v != 1 && steps < 1000) {
      ++steps;
      v = (v % 2 == 0) ? v / 2 : 3 * v + 1;
    }
    ASSERT_EQ(out[i], steps) << i;
  }
}

} // namespace
} // namespace dpk::test

namespace dpk::test {
namespace {

TEST(HostLocalArgument, RotateThroughLocalParameter) {
  auto m = parse(readKernelFile("local_param.dpkir"));
  ASSERT_TRUE(m);
  auto k = compileForHost(*m);
  const uint64_t L = 16, n = 64;
  std::vector<float> in(n), out(n, -1.0f), scratch(L);
  for (uint64_t i = 0; i < n; ++i) in[i] = float(i);
  void *pin = in.data(), *pout = out.data(), *pscratch = scratch.data();
  runGroups(k.lookup("rotate_local"), 1, {n, 1, 1}, {L, 1, 1}, {&pin, &pout, &pscratch});
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i / L * L + (i % L + 1) % L]) << i;
}

} // namespace
} // namespace dpk::test

namespace dpk::test {
namespace {

TEST(HostLoops, DivergentReturnBeforeUniformLoop) {
  auto m = parse(readKernelFile("guarded_loop.dpkir"));
  ASSERT_TRUE(m);
  for (std::array<uint64_t, 3> local : {std::array<uint64_t, 3>{0, 0, 0}, {32, 0, 0}}) {
    auto k = compileForHost(*m, local, 1);
    const int64_t n = 100, cols = 7;
    std::vector<float> x(n * cols), out(128, -1.0f), out2(n, -1.0f);
    for (int64_t i = 0; i < n * cols; ++i) x[i] = float(i % 10);
    void *px = x.data(), *pout = out.data(), *pout2 = out2.data();
    int64_t nn = n, mm = cols;
    runGroups(k.lookup("guarded_rowsum"), 1, {128, 1, 1}, {32, 1, 1}, {&px, &pout, &nn, &mm});
    runGroups(k.lookup("rowsum"), 1, {96, 1, 1}, {32, 1, 1}, {&px, &pout2, &mm});
    for (int64_t i = 0; i < 128; ++i) {
      float expect = -1.0f;
      if (i < n) {
        expect = 0.0f;
        for (int64_t c = 0; c < cols; ++c) expect += x[i * cols + c];
      }
      ASSERT_EQ(out[i], expect) << i;
      if (i < 96) {
        ASSERT_EQ(out2[i], expect) << i;
      }
    }
  }
}

} // namespace
} // namespace dpk::test

// MemoryTest.cpp - memory kinds, copies host<->device<->device (also across devices), fills.
#include "DpkTest.h"

#include <cstring>
#include <vector>

namespace {

class Memory : public ::testing::TestWithParam<dpk_mem_kind_t> {};

std::vector<int32_t> sequence(size_t n, int32_t start) {
  std::vector<int32_t> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = start + static_cast<int32_t>(i);
  return values;
}

} // namespace

TEST_P(Memory, CopiesRoundTripOnTheHostDevice) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, DPK_QUEUE_IN_ORDER));
  const size_t n = 1000;
  std::vector<int32_t> in = sequence(n, 7), out(n, 0);
  void *a = nullptr, *b = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&a, host, GetParam(), n * sizeof(int32_t)));
  DPK_ASSERT_OK(dpk_mem_alloc(&b, host, GetParam(), n * sizeof(int32_t)));
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, queue, a, in.data(), n * sizeof(int32_t), 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, queue, b, a, n * sizeof(int32_t), 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, queue, out.data(), b, n * sizeof(int32_t), 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  EXPECT_EQ(in, out);
  DPK_ASSERT_OK(dpk_mem_free(a));
  DPK_ASSERT_OK(dpk_mem_free(b));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST_P(Memory, FillsWithPatternsOfSeveralSizes) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, DPK_QUEUE_IN_ORDER));
  const size_t bytes = 256;
  void *buffer = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&buffer, host, GetParam(), bytes));
  for (size_t patternSize : {1u, 2u, 4u, 8u, 16u}) {
    std::vector<uint8_t> pattern(patternSize);
    for (size_t i = 0; i < patternSize; ++i)
      pattern[i] = static_cast<uint8_t>(0x10 + i);
    DPK_ASSERT_OK(dpk_enqueue_fill(nullptr, queue, buffer, pattern.data(), patternSize, bytes, 0,
                                   nullptr));
    std::vector<uint8_t> out(bytes);
    DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, queue, out.data(), buffer, bytes, 0, nullptr));
    DPK_ASSERT_OK(dpk_queue_wait(queue));
    for (size_t i = 0; i < bytes; ++i)
      ASSERT_EQ(out[i], pattern[i % patternSize]) << "pattern size " << patternSize << " at " << i;
  }
  DPK_ASSERT_OK(dpk_mem_free(buffer));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

INSTANTIATE_TEST_SUITE_P(Kinds, Memory,
                         ::testing::Values(DPK_MEM_DEVICE, DPK_MEM_SHARED, DPK_MEM_HOST),
                         [](const ::testing::TestParamInfo<dpk_mem_kind_t> &info) {
                           switch (info.param) {
                           case DPK_MEM_DEVICE: return std::string("device");
                           case DPK_MEM_SHARED: return std::string("shared");
                           case DPK_MEM_HOST: return std::string("host");
                           }
                           return std::string("unknown");
                         });

TEST(MemoryAcrossDevices, DeviceToDeviceCopyIsStagedThroughTheHost) {
  DPK_REQUIRE_DEVICE(host, "host");
  DPK_REQUIRE_DEVICE(fault, "fault");
  dpk_queue_t hostQueue, faultQueue;
  DPK_ASSERT_OK(dpk_queue_create(&hostQueue, host, 0));
  DPK_ASSERT_OK(dpk_queue_create(&faultQueue, fault, 0));
  const size_t n = 4096;
  std::vector<int32_t> in = sequence(n, -100), out(n, 0);
  void *onHost = nullptr, *onFault = nullptr, *onFault2 = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&onHost, host, DPK_MEM_DEVICE, n * sizeof(int32_t)));
  DPK_ASSERT_OK(dpk_mem_alloc(&onFault, fault, DPK_MEM_DEVICE, n * sizeof(int32_t)));
  DPK_ASSERT_OK(dpk_mem_alloc(&onFault2, fault, DPK_MEM_DEVICE, n * sizeof(int32_t)));
  // host memory -> fault device -> (fault device memory, on the host queue) host device.
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, faultQueue, onFault, in.data(), n * 4, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(faultQueue));
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, hostQueue, onHost, onFault, n * 4, 0, nullptr));
  // host device -> fault device, through the fault queue (the source is foreign there).
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, faultQueue, onFault2, onHost, n * 4, 0, nullptr));
  DPK_ASSERT_OK(dpk_enqueue_copy(nullptr, faultQueue, out.data(), onFault2, n * 4, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(faultQueue));
  DPK_ASSERT_OK(dpk_queue_wait(hostQueue));
  EXPECT_EQ(in, out);
  for (void *p : {onHost, onFault, onFault2})
    DPK_ASSERT_OK(dpk_mem_free(p));
  DPK_ASSERT_OK(dpk_queue_release(hostQueue));
  DPK_ASSERT_OK(dpk_queue_release(faultQueue));
}

TEST(MemoryErrors, OverrunsAndBadPatternsAreRejected) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  void *buffer = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&buffer, host, DPK_MEM_DEVICE, 64));
  std::vector<uint8_t> big(128);
  DPK_EXPECT_STATUS(dpk_enqueue_copy(nullptr, queue, buffer, big.data(), 128, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(dpk::test::lastErrorHas("overruns its allocation of 64 bytes"));
  uint32_t pattern = 0;
  DPK_EXPECT_STATUS(dpk_enqueue_fill(nullptr, queue, buffer, &pattern, 3, 63, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  DPK_EXPECT_STATUS(dpk_enqueue_fill(nullptr, queue, buffer, &pattern, 4, 62, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  DPK_EXPECT_STATUS(dpk_mem_free(static_cast<char *>(buffer) + 8), DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(dpk::test::lastErrorHas("inside an allocation"));
  DPK_ASSERT_OK(dpk_mem_free(buffer));
  DPK_EXPECT_STATUS(dpk_mem_free(buffer), DPK_ERROR_INVALID_ARGUMENT);
  DPK_EXPECT_STATUS(dpk_mem_alloc(&buffer, host, static_cast<dpk_mem_kind_t>(9), 64),
                    DPK_ERROR_INVALID_ARGUMENT);
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST(MemoryErrors, OutOfDeviceMemoryCarriesTheNativeCode) {
  DPK_REQUIRE_DEVICE(fault, "fault");
  ::setenv("DPK_FAULT_INJECT", "oom", 1);
  void *buffer = nullptr;
  dpk_status_t status = dpk_mem_alloc(&buffer, fault, DPK_MEM_DEVICE, 1 << 20);
  ::unsetenv("DPK_FAULT_INJECT");
  EXPECT_EQ(status, DPK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(dpk_last_error_native_code(), 2);
  EXPECT_TRUE(dpk::test::lastErrorHas("fault:gpu:0")) << dpk_last_error();
  EXPECT_EQ(buffer, nullptr); // out-parameters untouched on failure
}

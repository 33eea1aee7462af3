// AllocationTest.cpp - allocations the device cannot hold are DPK_ERROR_OUT_OF_DEVICE_MEMORY on
// every device, never a small block (issue 15, I: dpk_mem_alloc(SIZE_MAX) used to succeed on the
// host, and a 16 MiB fill of the result then wrote past it).
#include "DpkTest.h"

#include <cstdint>

using namespace dpk::test;

TEST(Allocation, MoreThanTheDeviceHoldsIsOutOfMemoryOnEveryDevice) {
  uint32_t count = 0;
  DPK_ASSERT_OK(dpk_device_count(&count));
  for (uint32_t i = 0; i < count; ++i) {
    dpk_device_t device;
    DPK_ASSERT_OK(dpk_device_get(&device, i));
    for (size_t size : {SIZE_MAX, SIZE_MAX - 62, SIZE_MAX / 2 + 1}) {
      for (dpk_mem_kind_t kind : {DPK_MEM_DEVICE, DPK_MEM_SHARED, DPK_MEM_HOST}) {
        void *ptr = reinterpret_cast<void *>(uintptr_t(0x1234));
        DPK_EXPECT_STATUS(dpk_mem_alloc(&ptr, device, kind, size),
                          DPK_ERROR_OUT_OF_DEVICE_MEMORY);
        EXPECT_EQ(ptr, reinterpret_cast<void *>(uintptr_t(0x1234))) << "out-parameter touched";
        EXPECT_TRUE(lastErrorHas(std::to_string(size))) << dpk_last_error();
      }
    }
  }
}

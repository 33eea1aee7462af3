// NativeQueueTest.cpp - dpk_queue_get_native through the C API: the handles of a host queue,
// the struct_size contract, argument and handle errors, and a native extension's ordering rule
// on the host (wait for the queue, then run) against launches before and after it.
#include "DpkTest.h"
#include "HostKernels.h"

#include <cstddef>
#include <cstring>

using namespace dpk::test;

TEST(NativeQueue, HostQueueHasNoNativeQueueAndNamesItsArena) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  dpk_native_queue_t native{};
  native.struct_size = sizeof native;
  DPK_ASSERT_OK(dpk_queue_get_native(&native, queue));
  EXPECT_EQ(native.struct_size, sizeof native);
  EXPECT_EQ(native.api, DPK_NATIVE_API_HOST);
  EXPECT_EQ(native.memory, DPK_NATIVE_MEMORY_HOST);
  EXPECT_EQ(native.order, DPK_NATIVE_ORDER_WAIT_THEN_RUN);
  EXPECT_EQ(native.queue, nullptr);
  EXPECT_NE(native.arena, nullptr);
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST(NativeQueue, ArgumentsAndHandlesAreChecked) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  DPK_EXPECT_STATUS(dpk_queue_get_native(nullptr, queue), DPK_ERROR_INVALID_ARGUMENT);
  dpk_native_queue_t unsized{};
  DPK_EXPECT_STATUS(dpk_queue_get_native(&unsized, queue), DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("struct_size")) << dpk_last_error();
  dpk_native_queue_t native{};
  native.struct_size = sizeof native;
  DPK_EXPECT_STATUS(dpk_queue_get_native(&native, nullptr), DPK_ERROR_INVALID_HANDLE);
  DPK_ASSERT_OK(dpk_queue_release(queue));
  DPK_EXPECT_STATUS(dpk_queue_get_native(&native, queue), DPK_ERROR_INVALID_HANDLE);
}

TEST(NativeQueue, OlderCallersGetTheirPrefix) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  dpk_native_queue_t shorter;
  std::memset(&shorter, 0x33, sizeof shorter);
  shorter.struct_size = offsetof(dpk_native_queue_t, order);
  DPK_ASSERT_OK(dpk_queue_get_native(&shorter, queue));
  EXPECT_EQ(shorter.api, DPK_NATIVE_API_HOST);
  EXPECT_EQ(shorter.memory, DPK_NATIVE_MEMORY_HOST);
  unsigned char untouched[sizeof shorter.order];
  std::memset(untouched, 0x33, sizeof untouched);
  EXPECT_EQ(std::memcmp(&shorter.order, untouched, sizeof untouched), 0);
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

// The host rule as an extension applies it: launch (async on the host queue's dispatcher),
// wait for the queue, host work, launch again; the host work sees the first launch's result
// and the second launch sees the host work's.
TEST(NativeQueue, WaitThenRunOrdersHostWorkBetweenLaunches) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  dpk_program_t program;
  DPK_ASSERT_OK(dpk_program_create_from_host(&program, TestKernels, NumTestKernels));
  dpk_kernel_t iota, add;
  DPK_ASSERT_OK(dpk_kernel_get(&iota, program, "iota"));
  DPK_ASSERT_OK(dpk_kernel_get(&add, program, "add"));
  const int n = 4096;
  void *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&x, host, DPK_MEM_SHARED, n * sizeof(int32_t)));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(n);
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, iota, &range, 1, &arg, 0, nullptr));

  dpk_native_queue_t native{};
  native.struct_size = sizeof native;
  DPK_ASSERT_OK(dpk_queue_get_native(&native, queue));
  ASSERT_EQ(native.order, DPK_NATIVE_ORDER_WAIT_THEN_RUN);
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  auto *values = static_cast<int32_t *>(x);
  for (int i = 0; i < n; ++i)
    values[i] *= 2; // the "extension": needs iota's result

  int32_t k = 5;
  dpk_arg_t addArgs[] = {arg, scalarArg(&k)};
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, add, &range, 2, addArgs, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(values[i], 2 * i + 5) << i;
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_kernel_release(iota));
  DPK_ASSERT_OK(dpk_kernel_release(add));
  DPK_ASSERT_OK(dpk_program_release(program));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

// dpk_queue_create_from_native through the C API: the host and OpenCL answers, and the argument
// checks. (This suite sees the host and test plugins; what each real plugin does, CUDA's adopted
// streams included, is tests/plugin_abi/NativeQueueTest.cpp.)
TEST(ForeignQueue, HostAndOpenCLDoNotAdoptNativeQueues) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_native_queue_t native{};
  native.struct_size = sizeof native;
  native.api = DPK_NATIVE_API_HOST;
  int notAQueue = 0;
  native.queue = &notAQueue;
  dpk_queue_t adopted = nullptr;
  DPK_EXPECT_STATUS(dpk_queue_create_from_native(&adopted, host, &native), DPK_ERROR_UNSUPPORTED);
  EXPECT_TRUE(lastErrorHas("host backend has no native queues")) << dpk_last_error();
  EXPECT_EQ(adopted, nullptr);

  dpk_device_t opencl = findDevice("opencl:cpu");
  if (!opencl)
    return;
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, opencl, 0));
  dpk_native_queue_t own{};
  own.struct_size = sizeof own;
  DPK_ASSERT_OK(dpk_queue_get_native(&own, queue));
  DPK_EXPECT_STATUS(dpk_queue_create_from_native(&adopted, opencl, &own), DPK_ERROR_UNSUPPORTED);
  EXPECT_TRUE(lastErrorHas("cl_context")) << dpk_last_error();
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST(ForeignQueue, ArgumentsAreChecked) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_native_queue_t native{};
  native.struct_size = sizeof native;
  dpk_queue_t adopted = nullptr;
  DPK_EXPECT_STATUS(dpk_queue_create_from_native(nullptr, host, &native),
                    DPK_ERROR_INVALID_ARGUMENT);
  DPK_EXPECT_STATUS(dpk_queue_create_from_native(&adopted, host, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  dpk_native_queue_t tooShort{};
  tooShort.struct_size = offsetof(dpk_native_queue_t, queue);
  DPK_EXPECT_STATUS(dpk_queue_create_from_native(&adopted, host, &tooShort),
                    DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("struct_size")) << dpk_last_error();
  DPK_EXPECT_STATUS(dpk_queue_create_from_native(&adopted, host, &native),
                    DPK_ERROR_INVALID_ARGUMENT);  // no queue handle: the validation layer
  EXPECT_TRUE(lastErrorHas("native->queue is NULL")) << dpk_last_error();
  DPK_EXPECT_STATUS(dpk_queue_create_from_native(&adopted, nullptr, &native),
                    DPK_ERROR_INVALID_HANDLE);
}

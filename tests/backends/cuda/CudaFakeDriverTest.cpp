// CudaFakeDriverTest.cpp - the real CUDA plugin, through its dispatch table, over the fake
// driver (fake_driver/): discovery, properties, PTX modules, launches and the errors the plugin
// itself reports (parameter count and sizes, local memory, block limits, driver failures,
// asynchronous faults), on any machine. What the fake cannot check (kernels computing the
// right thing) is CudaPluginTest's, on a GPU.
#include "FakeDriverTestSupport.h"

#include "LoadedPlugin.h"
#include "dpk/plugin.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using fake_driver_test::FakeDriver;

namespace {

// Four pointers, like bench/kernels/empty.dpkir; and one parameter of each kind the plugin
// marshals: two pointers, a 4-byte scalar and two LOCAL offsets.
const char *const Ptx = R"(.version 7.5
.target sm_90
.address_size 64
// .globl empty4
.visible .entry empty4(
	.param .u64 empty4_param_0,
	.param .u64 empty4_param_1,
	.param .u64 empty4_param_2,
	.param .u64 empty4_param_3
)
{
	ret;
}
.visible .entry mixed(
	.param .u64 mixed_param_0,
	.param .u64 mixed_param_1,
	.param .u32 mixed_param_2,
	.param .u64 mixed_param_3,
	.param .u64 mixed_param_4
)
{
	ret;
}
)";

/// The plugin, loaded and initialized once per process (it loads the fake driver).
struct Plugin : dpk::test::LoadedPlugin {
  static Plugin &get() {
    static Plugin plugin;
    return plugin;
  }
  Plugin() : LoadedPlugin(DPK_CUDA_PLUGIN_PATH) {}
};

std::string lastError() { return Plugin::get().lastError(); }

// CUresult codes the fake is asked to fail with (the driver's values).
constexpr int CudaErrorIllegalAddress = 700;
constexpr int CudaErrorLaunchOutOfResources = 701;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

const char *const DeviceLabel = "CUDA device 0 (Fake NVIDIA H100 80GB HBM3 (dpk test driver))";

/// A context, an in-order queue and the test module on the fake device.
class FakeCuda : public ::testing::Test {
protected:
  const dpk_plugin_dispatch_t &t = Plugin::get().t;
  FakeDriver driver;
  dpk_pl_context_t context = nullptr;
  dpk_pl_queue_t queue = nullptr;
  dpk_pl_program_t program = nullptr;
  dpk_pl_kernel_t empty4 = nullptr;
  dpk_pl_kernel_t mixed = nullptr;
  void *buffers[4] = {};

  void SetUp() override {
    Plugin &p = Plugin::get();
    ASSERT_EQ(p.loadError, "");
    ASSERT_EQ(p.devices.size(), 1u) << p.t.no_device_reason();
    driver = FakeDriver::find();
    ASSERT_TRUE(driver.loaded()) << "the plugin did not load " DPK_FAKE_CUDA_PATH;
    ASSERT_EQ(t.context_create(&context, p.devices[0]), DPK_SUCCESS) << lastError();
    ASSERT_EQ(t.queue_create(&queue, context, DPK_PL_QUEUE_IN_ORDER), DPK_SUCCESS) << lastError();
    ASSERT_EQ(t.program_create(&program, context, DPK_FORMAT_PTX, Ptx, std::strlen(Ptx), nullptr),
              DPK_SUCCESS)
        << lastError();
    ASSERT_EQ(t.kernel_create(&empty4, program, "empty4"), DPK_SUCCESS) << lastError();
    ASSERT_EQ(t.kernel_create(&mixed, program, "mixed"), DPK_SUCCESS) << lastError();
    for (void *&buffer : buffers)
      ASSERT_EQ(t.mem_alloc(&buffer, context, DPK_MEM_DEVICE, 256, 0), DPK_SUCCESS) << lastError();
  }

  void TearDown() override {
    for (void *buffer : buffers)
      if (buffer)
        t.mem_free(context, buffer);
    for (dpk_pl_kernel_t kernel : {empty4, mixed})
      if (kernel)
        t.kernel_release(kernel);
    if (program)
      t.program_release(program);
    if (queue)
      t.queue_release(queue);
    if (context)
      t.context_release(context);
  }

  std::vector<dpk_kernel_arg_t> pointerArgs(uint32_t count) {
    std::vector<dpk_kernel_arg_t> args;
    for (uint32_t i = 0; i < count; ++i)
      args.push_back({DPK_ARG_POINTER, sizeof(void *), &buffers[i % 4]});
    return args;
  }

  static dpk_launch_config_t range(uint64_t n) { return {1, {n, 1, 1}, {0, 0, 0}}; }

  dpk_status_t launch(dpk_pl_kernel_t kernel, const dpk_launch_config_t &config,
                      const std::vector<dpk_kernel_arg_t> &args, dpk_pl_event_t *event = nullptr) {
    return t.enqueue_launch(event, queue, kernel, &config, static_cast<uint32_t>(args.size()),
                            args.data(), 0, nullptr);
  }
};

TEST(CudaFakeDriver, DiscoversOneH100LikeDevice) {
  Plugin &p = Plugin::get();
  ASSERT_EQ(p.loadError, "");
  ASSERT_EQ(p.devices.size(), 1u) << p.t.no_device_reason();
  dpk_device_props_t props{};
  props.struct_size = sizeof(props);
  ASSERT_EQ(p.t.device_get_props(&props, p.devices[0]), DPK_SUCCESS) << lastError();
  EXPECT_STREQ(props.name, "Fake NVIDIA H100 80GB HBM3 (dpk test driver)");
  EXPECT_STREQ(props.target_id, "sm_90");
  EXPECT_STREQ(props.driver_version, "CUDA 12.8");
  EXPECT_EQ(props.type, DPK_DEVICE_TYPE_GPU);
  EXPECT_EQ(props.compute_units, 132u);
  EXPECT_EQ(props.max_work_group_size, 1024u);
  EXPECT_EQ(props.local_mem_size, 227u * 1024);
  // dpk order: z, y, x.
  EXPECT_EQ(props.max_work_item_sizes[0], 64u);
  EXPECT_EQ(props.max_work_item_sizes[2], 1024u);
  EXPECT_EQ(props.max_num_groups[2], 2147483647u);
  EXPECT_EQ(props.formats, (uint32_t)DPK_FORMAT_PTX);
  EXPECT_TRUE(props.aspects & DPK_ASPECT_USM_SHARED);
  EXPECT_TRUE(props.aspects & DPK_ASPECT_PEER_COPY);
  EXPECT_TRUE(contains(props.extra, "compute_capability=9.0")) << props.extra;
  EXPECT_TRUE(contains(props.extra, "sm_count=132")) << props.extra;
}

TEST_F(FakeCuda, RangeLaunchReachesTheDriverWithItsGeometryAndArguments) {
  ASSERT_EQ(launch(empty4, range(1000), pointerArgs(4)), DPK_SUCCESS) << lastError();
  ASSERT_EQ(t.queue_finish(queue), DPK_SUCCESS) << lastError();
  FakeCudaLaunch last = driver.lastLaunch();
  EXPECT_STREQ(last.function, "empty4");
  EXPECT_EQ(last.num_params, 4u);
  // The largest divisor of 1000 up to 256 threads: 250 x 4, nothing partial.
  EXPECT_EQ(last.block[0], 250u);
  EXPECT_EQ(last.grid[0], 4u);
  EXPECT_EQ(last.grid[1] * last.grid[2] * last.block[1] * last.block[2], 1u);
  EXPECT_EQ(last.shared_bytes, 0u);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(last.param_values[i], reinterpret_cast<uintptr_t>(buffers[i]));

  // The same launch again (a launch the plugin has seen) and another shape after it.
  unsigned long long before = last.count;
  ASSERT_EQ(launch(empty4, range(1000), pointerArgs(4)), DPK_SUCCESS) << lastError();
  dpk_launch_config_t twoD{2, {6, 1024, 1}, {0, 0, 0}}; // dpk dimension 1 is CUDA x
  ASSERT_EQ(launch(empty4, twoD, pointerArgs(4)), DPK_SUCCESS) << lastError();
  last = driver.lastLaunch();
  EXPECT_EQ(last.count, before + 2);
  EXPECT_EQ(last.block[0], 256u);
  EXPECT_EQ(last.grid[0], 4u);
  EXPECT_EQ(last.block[1], 1u);
  EXPECT_EQ(last.grid[1], 6u);
}

TEST_F(FakeCuda, ScalarsAndLocalMemoryAreMarshalledAsTheKernelAbiSays) {
  uint32_t scalar = 0xC0FFEE;
  std::vector<dpk_kernel_arg_t> args = pointerArgs(2);
  args.push_back({DPK_ARG_SCALAR, sizeof(scalar), &scalar});
  args.push_back({DPK_ARG_LOCAL, 100, nullptr});
  args.push_back({DPK_ARG_LOCAL, 64, nullptr});
  ASSERT_EQ(launch(mixed, range(64), args), DPK_SUCCESS) << lastError();
  FakeCudaLaunch last = driver.lastLaunch();
  EXPECT_STREQ(last.function, "mixed");
  EXPECT_EQ(last.param_values[2], 0xC0FFEEu);
  EXPECT_EQ(last.param_values[3], 0u);   // byte offsets into dynamic shared memory,
  EXPECT_EQ(last.param_values[4], 112u); // each aligned to 16
  EXPECT_EQ(last.shared_bytes, 176u);
  // Past the default 48 KiB the plugin raises the kernel's limit (the fake refuses otherwise).
  args[4].size = 100 * 1024;
  ASSERT_EQ(launch(mixed, range(64), args), DPK_SUCCESS) << lastError();
  EXPECT_EQ(driver.lastLaunch().shared_bytes, 112u + 100 * 1024);
}

TEST_F(FakeCuda, WrongArgumentCountIsRefusedWithTheKernelAndDevice) {
  EXPECT_EQ(launch(empty4, range(8), pointerArgs(3)), DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), std::string("enqueue_launch: kernel 'empty4' on ") + DeviceLabel +
                             " takes 4 arguments, 3 given");
  // After a successful launch of the same kernel too.
  ASSERT_EQ(launch(empty4, range(8), pointerArgs(4)), DPK_SUCCESS) << lastError();
  EXPECT_EQ(launch(empty4, range(8), pointerArgs(5)), DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), std::string("enqueue_launch: kernel 'empty4' on ") + DeviceLabel +
                             " takes 4 arguments, 5 given");
}

TEST_F(FakeCuda, ArgumentOfTheWrongSizeIsRefusedWithItsKind) {
  ASSERT_EQ(launch(empty4, range(8), pointerArgs(4)), DPK_SUCCESS) << lastError();
  uint32_t small = 1;
  std::vector<dpk_kernel_arg_t> args = pointerArgs(4);
  args[1] = {DPK_ARG_SCALAR, sizeof(small), &small};
  EXPECT_EQ(launch(empty4, range(8), args), DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), std::string("enqueue_launch: scalar argument 1 of kernel 'empty4' on ") +
                             DeviceLabel + " is 4 bytes, the kernel's parameter is 8");
  // A pointer where the kernel takes 4 bytes.
  std::vector<dpk_kernel_arg_t> mixedArgs = pointerArgs(3);
  mixedArgs.push_back({DPK_ARG_LOCAL, 16, nullptr});
  mixedArgs.push_back({DPK_ARG_LOCAL, 16, nullptr});
  EXPECT_EQ(launch(mixed, range(8), mixedArgs), DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), std::string("enqueue_launch: pointer argument 2 of kernel 'mixed' on ") +
                             DeviceLabel + " is 8 bytes, the kernel's parameter is 4");
}

TEST_F(FakeCuda, LimitsOnlyTheDeviceKnowsAreRangeErrors) {
  uint32_t scalar = 0;
  std::vector<dpk_kernel_arg_t> args = pointerArgs(2);
  args.push_back({DPK_ARG_SCALAR, sizeof(scalar), &scalar});
  args.push_back({DPK_ARG_LOCAL, 200 * 1024, nullptr});
  args.push_back({DPK_ARG_LOCAL, 64 * 1024, nullptr});
  EXPECT_EQ(launch(mixed, range(64), args), DPK_ERROR_INVALID_RANGE);
  EXPECT_EQ(lastError(), std::string("enqueue_launch: kernel 'mixed' on ") + DeviceLabel +
                             " needs 270336 bytes of local memory; the device allows 232448 "
                             "(plus 0 bytes of static)");

  ASSERT_EQ(launch(empty4, range(8), pointerArgs(4)), DPK_SUCCESS) << lastError();
  dpk_launch_config_t tooWide{1, {4096, 1, 1}, {2048, 0, 0}};
  EXPECT_EQ(launch(empty4, tooWide, pointerArgs(4)), DPK_ERROR_INVALID_RANGE);
  EXPECT_EQ(lastError(), std::string("enqueue_launch: kernel 'empty4' on ") + DeviceLabel +
                             ": local size 2048 in dimension 0 exceeds the device's limit of "
                             "1024 (CUDA block dimension x)");
  dpk_launch_config_t tooManyGroups{2, {70000, 1, 1}, {1, 1, 0}};
  EXPECT_EQ(launch(empty4, tooManyGroups, pointerArgs(4)), DPK_ERROR_INVALID_RANGE);
  EXPECT_EQ(lastError(), std::string("enqueue_launch: kernel 'empty4' on ") + DeviceLabel +
                             ": 70000 work-groups in dimension 0 exceed the device's limit of "
                             "65535 (CUDA grid dimension y)");
}

TEST_F(FakeCuda, DriverRefusalAtLaunchIsALaunchErrorNamingTheKernel) {
  driver.failNext("cuLaunchKernel", CudaErrorLaunchOutOfResources);
  EXPECT_EQ(launch(empty4, range(8), pointerArgs(4)), DPK_ERROR_LAUNCH);
  EXPECT_EQ(lastError(), std::string("cuLaunchKernel: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (701): "
                                     "too many resources requested for launch: kernel 'empty4' "
                                     "on ") +
                             DeviceLabel);
  EXPECT_EQ(launch(empty4, range(8), pointerArgs(4)), DPK_SUCCESS) << lastError();
}

// The driver reports a kernel's fault at the next synchronization without naming the kernel:
// the plugin names the last kernel launched on the queue.
TEST_F(FakeCuda, AsynchronousFaultNamesTheLastKernelOfTheQueue) {
  uint32_t scalar = 0;
  std::vector<dpk_kernel_arg_t> mixedArgs = pointerArgs(2);
  mixedArgs.push_back({DPK_ARG_SCALAR, sizeof(scalar), &scalar});
  mixedArgs.push_back({DPK_ARG_LOCAL, 16, nullptr});
  mixedArgs.push_back({DPK_ARG_LOCAL, 16, nullptr});
  std::string suffix = std::string("CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access "
                                   "was encountered: on ") +
                       DeviceLabel;
  for (dpk_pl_kernel_t kernel : {empty4, mixed, empty4}) {
    bool isMixed = kernel == mixed;
    ASSERT_EQ(launch(kernel, range(8), isMixed ? mixedArgs : pointerArgs(4)), DPK_SUCCESS)
        << lastError();
    ASSERT_EQ(launch(kernel, range(8), isMixed ? mixedArgs : pointerArgs(4)), DPK_SUCCESS)
        << lastError();
    driver.failNext("cuStreamSynchronize", CudaErrorIllegalAddress);
    EXPECT_EQ(t.queue_finish(queue), DPK_ERROR_DEVICE);
    EXPECT_EQ(lastError(), "cuStreamSynchronize: " + suffix + ", after kernel '" +
                               (isMixed ? "mixed" : "empty4") +
                               "' (the last kernel launched on this queue)");
  }
  // The name outlives the kernel's handle.
  ASSERT_EQ(t.kernel_release(mixed), DPK_SUCCESS);
  mixed = nullptr;
  dpk_pl_kernel_t again = nullptr;
  ASSERT_EQ(t.kernel_create(&again, program, "mixed"), DPK_SUCCESS) << lastError();
  ASSERT_EQ(launch(again, range(8), mixedArgs), DPK_SUCCESS) << lastError();
  ASSERT_EQ(t.kernel_release(again), DPK_SUCCESS);
  driver.failNext("cuStreamSynchronize", CudaErrorIllegalAddress);
  EXPECT_EQ(t.queue_finish(queue), DPK_ERROR_DEVICE);
  EXPECT_TRUE(contains(lastError(), "after kernel 'mixed'")) << lastError();
  // A copy after a kernel names the kernel too, when its event fails.
  dpk_pl_event_t event = nullptr;
  ASSERT_EQ(t.enqueue_copy(&event, queue, buffers[0], buffers[1], 64, 0, nullptr), DPK_SUCCESS)
      << lastError();
  driver.failNext("cuEventSynchronize", CudaErrorIllegalAddress);
  EXPECT_EQ(t.event_wait(1, &event), DPK_ERROR_DEVICE);
  EXPECT_TRUE(contains(lastError(), "(after kernel 'mixed')")) << lastError();
  t.event_release(event);
}

TEST_F(FakeCuda, EventsOfLaunchesWaitAndTimeOnProfilingQueues) {
  dpk_pl_event_t event = nullptr;
  ASSERT_EQ(launch(empty4, range(8), pointerArgs(4), &event), DPK_SUCCESS) << lastError();
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(t.event_wait(1, &event), DPK_SUCCESS) << lastError();
  dpk_event_status_t status = DPK_EVENT_ERROR;
  EXPECT_EQ(t.event_status(&status, event), DPK_SUCCESS);
  EXPECT_EQ(status, DPK_EVENT_COMPLETE);
  uint64_t ns = 0;
  EXPECT_EQ(t.event_elapsed_ns(&ns, event), DPK_ERROR_UNSUPPORTED);
  driver.failNext("cuEventSynchronize", CudaErrorIllegalAddress);
  EXPECT_EQ(t.event_wait(1, &event), DPK_ERROR_DEVICE);
  EXPECT_TRUE(contains(lastError(), std::string("kernel 'empty4' on ") + DeviceLabel + " failed"))
      << lastError();
  t.event_release(event);

  dpk_pl_queue_t profiling = nullptr;
  ASSERT_EQ(t.queue_create(&profiling, context, DPK_PL_QUEUE_IN_ORDER | DPK_PL_QUEUE_PROFILING),
            DPK_SUCCESS);
  std::vector<dpk_kernel_arg_t> args = pointerArgs(4);
  dpk_launch_config_t config = range(8);
  ASSERT_EQ(t.enqueue_launch(&event, profiling, empty4, &config, 4, args.data(), 0, nullptr),
            DPK_SUCCESS)
      << lastError();
  EXPECT_EQ(t.event_elapsed_ns(&ns, event), DPK_SUCCESS) << lastError();
  EXPECT_EQ(ns, 1000u); // the fake's every command takes a microsecond
  t.event_release(event);
  t.queue_release(profiling);
}

TEST_F(FakeCuda, CopiesAndFillsOfEveryStrategyLandInMemory) {
  const size_t bytes = 200000; // past the doubling fill's 64 KiB staging chunk
  void *dev = nullptr;
  ASSERT_EQ(t.mem_alloc(&dev, context, DPK_MEM_DEVICE, bytes + 8, 0), DPK_SUCCESS);
  std::vector<unsigned char> got(bytes);
  for (size_t patternSize : {1, 2, 4, 8, 16}) {
    std::vector<unsigned char> pattern(patternSize);
    for (size_t i = 0; i < patternSize; ++i)
      pattern[i] = static_cast<unsigned char>(0x21 * (i + 1) + patternSize);
    for (size_t offset : {size_t(0), size_t(2)}) {
      unsigned char *dst = static_cast<unsigned char *>(dev) + offset;
      ASSERT_EQ(t.enqueue_fill(nullptr, queue, dst, pattern.data(), patternSize, bytes, 0, nullptr),
                DPK_SUCCESS)
          << lastError();
      ASSERT_EQ(t.enqueue_copy(nullptr, queue, got.data(), dst, bytes, 0, nullptr), DPK_SUCCESS);
      ASSERT_EQ(t.queue_finish(queue), DPK_SUCCESS);
      size_t bad = bytes;
      for (size_t i = 0; i < bytes && bad == bytes; ++i)
        if (got[i] != pattern[i % patternSize])
          bad = i;
      EXPECT_EQ(bad, bytes) << "pattern size " << patternSize << " offset " << offset;
    }
  }
  EXPECT_EQ(t.mem_free(context, dev), DPK_SUCCESS);
  int local = 0;
  EXPECT_EQ(t.mem_free(context, &local), DPK_ERROR_INVALID_ARGUMENT);
}

TEST_F(FakeCuda, SmallReadsBehindRunningWorkGoThroughTheCopyKernel) {
  // Reads of up to 4 KiB of device memory into pageable memory while the stream may still be
  // busy (commands submitted since the plugin last synchronized it; a borrowed stream is asked
  // with cuStreamQuery) launch the plugin's copy kernel, which the fake runs as a byte copy; the
  // bytes land in place on return, as a copy to pageable memory does. Idle streams, larger
  // reads, pinned destinations and device-to-device copies keep the copy engine.
  const size_t size = 8192;
  void *dev = nullptr;
  ASSERT_EQ(t.mem_alloc(&dev, context, DPK_MEM_DEVICE, size, 0), DPK_SUCCESS) << lastError();
  std::vector<unsigned char> source(size);
  for (size_t i = 0; i < size; ++i)
    source[i] = static_cast<unsigned char>(i * 7 + 3);
  ASSERT_EQ(t.enqueue_copy(nullptr, queue, dev, source.data(), size, 0, nullptr), DPK_SUCCESS);
  auto launches = [&] { return driver.lastLaunch().count; };
  auto busy = [&] { ASSERT_EQ(launch(empty4, range(8), pointerArgs(4)), DPK_SUCCESS); };
  auto *bytes = static_cast<unsigned char *>(dev);
  for (size_t offset : {size_t(0), size_t(3)}) {
    for (size_t n : {size_t(1), size_t(4), size_t(16), size_t(1000), size_t(4096)}) {
      busy();
      std::vector<unsigned char> got(n, 0xEE);
      unsigned long long before = launches();
      dpk_pl_event_t event = nullptr;
      ASSERT_EQ(t.enqueue_copy(&event, queue, got.data(), bytes + offset, n, 0, nullptr),
                DPK_SUCCESS)
          << lastError();
      EXPECT_EQ(launches(), before + 1) << n << " bytes at offset " << offset;
      EXPECT_STREQ(driver.lastLaunch().function, "dpk_cuda_small_read");
      EXPECT_EQ(std::memcmp(got.data(), source.data() + offset, n), 0)
          << n << " bytes at offset " << offset;
      EXPECT_EQ(t.event_wait(1, &event), DPK_SUCCESS) << lastError();
      t.event_release(event);
    }
  }
  // Not small reads: too large, into pinned memory, device to device, host to device.
  void *pinned = nullptr;
  ASSERT_EQ(t.mem_alloc(&pinned, context, DPK_MEM_HOST, 64, 0), DPK_SUCCESS);
  std::vector<unsigned char> large(4097);
  busy();
  unsigned long long before = launches();
  EXPECT_EQ(t.enqueue_copy(nullptr, queue, large.data(), dev, large.size(), 0, nullptr),
            DPK_SUCCESS);
  EXPECT_EQ(t.enqueue_copy(nullptr, queue, pinned, dev, 64, 0, nullptr), DPK_SUCCESS);
  EXPECT_EQ(t.enqueue_copy(nullptr, queue, bytes + 4096, dev, 64, 0, nullptr), DPK_SUCCESS);
  EXPECT_EQ(t.enqueue_copy(nullptr, queue, dev, large.data(), 64, 0, nullptr), DPK_SUCCESS);
  EXPECT_EQ(launches(), before);
  EXPECT_EQ(std::memcmp(large.data(), source.data(), large.size()), 0);
  EXPECT_EQ(std::memcmp(pinned, source.data(), 64), 0);
  EXPECT_EQ(t.mem_free(context, pinned), DPK_SUCCESS);
  // A fault of earlier work surfaces at the read, naming the last kernel; nothing is written.
  busy();
  std::vector<unsigned char> got(4, 0xEE);
  driver.failNext("cuStreamSynchronize", CudaErrorIllegalAddress);
  EXPECT_EQ(t.enqueue_copy(nullptr, queue, got.data(), dev, 4, 0, nullptr), DPK_ERROR_DEVICE);
  EXPECT_TRUE(contains(lastError(), "reading 4 bytes on " + std::string(DeviceLabel) +
                                        ", after kernel 'empty4'"))
      << lastError();
  EXPECT_EQ(got, std::vector<unsigned char>(4, 0xEE));
  // Synchronized, the stream is idle: the copy engine.
  busy();
  ASSERT_EQ(t.queue_finish(queue), DPK_SUCCESS) << lastError();
  before = launches();
  EXPECT_EQ(t.enqueue_copy(nullptr, queue, got.data(), dev, 4, 0, nullptr), DPK_SUCCESS);
  EXPECT_EQ(launches(), before);
  EXPECT_EQ(std::memcmp(got.data(), source.data(), 4), 0);
  // A borrowed stream (another library's work may be on it): the driver says whether it is busy.
  dpk_native_queue_t native{};
  native.struct_size = sizeof native;
  ASSERT_EQ(t.queue_get_native(&native, queue), DPK_SUCCESS) << lastError();
  dpk_pl_queue_t borrowed = nullptr;
  ASSERT_EQ(t.queue_create_from_native(&borrowed, context, &native), DPK_SUCCESS) << lastError();
  for (int streamBusy : {0, 1}) {
    driver.setStreamsBusy(streamBusy);
    std::fill(got.begin(), got.end(), 0xEE);
    before = launches();
    EXPECT_EQ(t.enqueue_copy(nullptr, borrowed, got.data(), bytes + 5, 4, 0, nullptr),
              DPK_SUCCESS);
    EXPECT_EQ(launches(), before + streamBusy);
    EXPECT_EQ(std::memcmp(got.data(), source.data() + 5, 4), 0);
  }
  driver.setStreamsBusy(0);
  EXPECT_EQ(t.queue_release(borrowed), DPK_SUCCESS);
  EXPECT_EQ(t.mem_free(context, dev), DPK_SUCCESS);
}

TEST_F(FakeCuda, ModuleAndFunctionErrorsCarryTheDriversStory) {
  const char *notPtx = "this is not PTX";
  dpk_pl_program_t bad = nullptr;
  EXPECT_EQ(t.program_create(&bad, context, DPK_FORMAT_PTX, notPtx, std::strlen(notPtx), nullptr),
            DPK_ERROR_COMPILE);
  EXPECT_EQ(bad, nullptr);
  std::string message = lastError();
  EXPECT_TRUE(contains(message, "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (218)")) << message;
  EXPECT_TRUE(contains(message, std::string("PTX JIT for ") + DeviceLabel + " failed\nptxas"))
      << message;
  dpk_pl_kernel_t missing = nullptr;
  EXPECT_EQ(t.kernel_create(&missing, program, "nope"), DPK_ERROR_NOT_FOUND);
  EXPECT_TRUE(contains(lastError(), "cuModuleGetFunction: CUDA_ERROR_NOT_FOUND (500)"))
      << lastError();
  EXPECT_TRUE(contains(lastError(), "no kernel 'nope' in program")) << lastError();
}

// Threads launching on one queue at once, the two kernels in turn, with twelve configurations
// between them (more than the geometry memo's eight slots): what a launch remembers (the
// geometry per configuration, the queue's last kernel) is shared, so this is the test that
// ThreadSanitizer checks it with.
TEST_F(FakeCuda, ConcurrentLaunchesOnOneQueue) {
  uint32_t scalar = 0;
  std::vector<dpk_kernel_arg_t> mixedArgs = pointerArgs(2);
  mixedArgs.push_back({DPK_ARG_SCALAR, sizeof(scalar), &scalar});
  mixedArgs.push_back({DPK_ARG_LOCAL, 16, nullptr});
  mixedArgs.push_back({DPK_ARG_LOCAL, 16, nullptr});
  std::vector<dpk_kernel_arg_t> emptyArgs = pointerArgs(4);
  unsigned long long before = driver.lastLaunch().count;
  constexpr int Threads = 4, Launches = 200;
  std::vector<std::thread> threads;
  std::vector<int> failures(Threads, 0);
  for (int thread = 0; thread < Threads; ++thread)
    threads.emplace_back([&, thread] {
      for (int i = 0; i < Launches; ++i) {
        bool isMixed = i % 2 != 0;
        dpk_launch_config_t config = range(64 * (1 + (thread + i) % 12)); // 12 configurations
        if (launch(isMixed ? mixed : empty4, config, isMixed ? mixedArgs : emptyArgs) !=
            DPK_SUCCESS)
          ++failures[thread];
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int thread = 0; thread < Threads; ++thread)
    EXPECT_EQ(failures[thread], 0) << "thread " << thread;
  EXPECT_EQ(t.queue_finish(queue), DPK_SUCCESS) << lastError();
  EXPECT_EQ(driver.lastLaunch().count, before + Threads * Launches);
  // Every remembered geometry is the one computed: 64 * k work-items in blocks that divide it.
  for (uint64_t k = 1; k <= 12; ++k) {
    ASSERT_EQ(launch(empty4, range(64 * k), emptyArgs), DPK_SUCCESS) << lastError();
    FakeCudaLaunch last = driver.lastLaunch();
    EXPECT_EQ(uint64_t(last.grid[0]) * last.block[0], 64 * k);
    EXPECT_LE(last.block[0], 256u);
  }
}

// Every entry runs inside the plugin's guard: what the C++ library throws inside comes back as
// a status with a message, never as an exception through the C ABI.
TEST_F(FakeCuda, NoExceptionCrossesThePluginBoundary) {
  dpk_pl_program_t huge = nullptr;
  // The plugin copies the PTX into a std::string of this size: std::length_error inside.
  EXPECT_EQ(t.program_create(&huge, context, DPK_FORMAT_PTX, Ptx, SIZE_MAX, nullptr),
            DPK_ERROR_GENERIC);
  EXPECT_EQ(huge, nullptr);
  EXPECT_TRUE(contains(lastError(), "program_create: ")) << lastError();
  // Nothing is left broken: the next entry works.
  EXPECT_EQ(launch(empty4, range(8), pointerArgs(4)), DPK_SUCCESS) << lastError();
}

} // namespace

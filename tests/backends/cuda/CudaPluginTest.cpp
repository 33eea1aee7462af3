// CudaPluginTest.cpp - the CUDA plugin through its dispatch table: device discovery (with and
// without a driver), managed and pinned memory, the fill strategies, PTX modules, launches and
// the errors only the device and the kernel can report. The contract every plugin shares
// (argument checks, allocations, copy round trips, fills of every pattern size, events) is
// tests/plugin_abi's, which runs on the GPU machine too.
//
// The plugin comes from DPK_TEST_PLUGIN (else the build tree) and the PTX test kernels from
// DPK_TEST_PTX_DIR (else the build tree), so the executable can run on a machine that has only
// the NVIDIA driver.
#include "LoadedPlugin.h"
#include "dpk/plugin.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char *pluginPath() {
  const char *env = std::getenv("DPK_TEST_PLUGIN");
  return env && *env ? env : DPK_CUDA_PLUGIN_PATH;
}

std::string ptxPath(const char *name) {
  const char *env = std::getenv("DPK_TEST_PTX_DIR");
  return std::string(env && *env ? env : DPK_CUDA_PTX_DIR) + "/" + name + ".ptx";
}

/// The plugin, loaded and initialized once per process.
struct Plugin : dpk::test::LoadedPlugin {
  static Plugin &get() {
    static Plugin plugin;
    return plugin;
  }
  Plugin() : LoadedPlugin(pluginPath()) {}
};

std::string lastError() { return Plugin::get().lastError(); }

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return {};
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A context and a queue on device 0, and helpers the device tests share.
class CudaDevice : public ::testing::Test {
protected:
  const dpk_plugin_dispatch_t &t = Plugin::get().t;
  dpk_pl_context_t context = nullptr;
  dpk_pl_queue_t queue = nullptr;

  void SetUp() override {
    Plugin &p = Plugin::get();
    ASSERT_EQ(p.loadError, "");
    if (p.devices.empty())
      GTEST_SKIP() << "no CUDA device: " << p.t.no_device_reason();
    ASSERT_EQ(t.context_create(&context, p.devices[0]), DPK_SUCCESS) << lastError();
    ASSERT_EQ(t.queue_create(&queue, context, DPK_PL_QUEUE_IN_ORDER), DPK_SUCCESS) << lastError();
  }

  void TearDown() override {
    if (queue)
      t.queue_release(queue);
    if (context)
      t.context_release(context);
  }

  void *alloc(dpk_mem_kind_t kind, size_t bytes) {
    void *p = nullptr;
    EXPECT_EQ(t.mem_alloc(&p, context, kind, bytes, 0), DPK_SUCCESS) << lastError();
    return p;
  }

  void copy(void *dst, const void *src, size_t bytes) {
    ASSERT_EQ(t.enqueue_copy(nullptr, queue, dst, src, bytes, 0, nullptr), DPK_SUCCESS)
        << lastError();
  }

  void finish() { ASSERT_EQ(t.queue_finish(queue), DPK_SUCCESS) << lastError(); }

  /// Loads tests/backends/cuda/kernels/<name>.cu as PTX; skips when nvcc did not build it.
  dpk_pl_program_t program(const char *name) {
    std::string ptx = readFile(ptxPath(name));
    if (ptx.empty())
      return nullptr;
    dpk_pl_program_t prog = nullptr;
    EXPECT_EQ(
        t.program_create(&prog, context, DPK_FORMAT_PTX, ptx.c_str(), ptx.size() + 1, nullptr),
        DPK_SUCCESS)
        << lastError();
    return prog;
  }

  static dpk_kernel_arg_t ptrArg(void *const &p) { return {DPK_ARG_POINTER, sizeof(void *), &p}; }
  template <typename T> static dpk_kernel_arg_t scalarArg(const T &v) {
    return {DPK_ARG_SCALAR, sizeof(T), &v};
  }
  static dpk_kernel_arg_t localArg(size_t bytes) { return {DPK_ARG_LOCAL, bytes, nullptr}; }
};

#define LOAD_PROGRAM(var, name)                                                                    \
  dpk_pl_program_t var = program(name);                                                            \
  if (!var)                                                                                        \
  GTEST_SKIP() << "no PTX for " name " (nvcc was not found at build time): " << ptxPath(name)

// ---- without a device -------------------------------------------------------------------------

TEST(CudaPlugin, LoadsAndReportsDevicesOrAReason) {
  Plugin &p = Plugin::get();
  ASSERT_EQ(p.loadError, "");
  EXPECT_STREQ(p.t.backend, "cuda");
  EXPECT_EQ(p.t.struct_size, sizeof(dpk_plugin_dispatch_t));
  if (p.devices.empty()) {
    std::string reason = p.t.no_device_reason();
    EXPECT_FALSE(reason.empty());
    EXPECT_TRUE(reason.find("libcuda.so.1") != std::string::npos ||
                reason.find("cuInit") != std::string::npos ||
                reason.find("cuDeviceGetCount") != std::string::npos)
        << reason;
    std::printf("no CUDA device: %s\n", reason.c_str());
  }
}

// A fresh process whose driver library cannot be found must still load the plugin and report
// zero devices with the reason (the machine-without-CUDA path, checked on any machine).
TEST(CudaPluginDeathTest, MissingDriverMeansZeroDevicesAndAReason) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("DPK_CUDA_LIBRARY", "libdpk_no_such_cuda.so.1", 1);
        Plugin &p = Plugin::get();
        uint32_t count = 99;
        bool ok = p.loadError.empty() && p.t.get_devices(&count, nullptr) == DPK_SUCCESS;
        std::fprintf(stderr, "count=%u reason=%s\n", count, ok ? p.t.no_device_reason() : "");
        std::exit(ok && count == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "count=0 reason=libdpk_no_such_cuda.so.1 not found");
}

// ---- with a device ----------------------------------------------------------------------------

TEST_F(CudaDevice, Properties) {
  dpk_device_props_t props{};
  props.struct_size = sizeof(props);
  ASSERT_EQ(t.device_get_props(&props, Plugin::get().devices[0]), DPK_SUCCESS) << lastError();
  std::printf(
      "device: %s | %s | target %s | %u SMs | %llu bytes | max wg %llu | "
      "local %llu | max items %llu,%llu,%llu\n%s\n",
      props.name, props.driver_version, props.target_id, props.compute_units,
      (unsigned long long)props.global_mem_size, (unsigned long long)props.max_work_group_size,
      (unsigned long long)props.local_mem_size, (unsigned long long)props.max_work_item_sizes[0],
      (unsigned long long)props.max_work_item_sizes[1],
      (unsigned long long)props.max_work_item_sizes[2], props.extra);
  EXPECT_EQ(props.type, DPK_DEVICE_TYPE_GPU);
  EXPECT_EQ(std::strncmp(props.target_id, "sm_", 3), 0);
  EXPECT_GT(props.compute_units, 0u);
  EXPECT_GT(props.global_mem_size, 0u);
  EXPECT_GE(props.max_work_group_size, 256u);
  EXPECT_EQ(props.formats, (uint32_t)DPK_FORMAT_PTX);
  EXPECT_NE(std::strstr(props.extra, "compute_capability="), nullptr);
  // dpk order: the last entry is CUDA x, which is never smaller than z.
  EXPECT_GE(props.max_work_item_sizes[2], props.max_work_item_sizes[0]);
}

// Managed and pinned host memory are dereferenceable on the host, and a pointer the context did
// not allocate is refused by mem_free. (Copies between every pair of kinds: tests/plugin_abi.)
TEST_F(CudaDevice, ManagedAndPinnedMemoryAreHostVisible) {
  const size_t n = 1 << 16;
  std::vector<uint32_t> in(n), out(n, 0);
  for (size_t i = 0; i < n; ++i)
    in[i] = static_cast<uint32_t>(i * 2654435761u);
  const size_t bytes = n * sizeof(uint32_t);
  void *dev = alloc(DPK_MEM_DEVICE, bytes);
  void *shared = alloc(DPK_MEM_SHARED, bytes);
  void *host = alloc(DPK_MEM_HOST, bytes);
  ASSERT_TRUE(dev && shared && host);
  copy(dev, in.data(), bytes); // pageable host -> device
  copy(shared, dev, bytes);    // device -> managed
  copy(host, shared, bytes);   // managed -> pinned host
  finish();
  EXPECT_EQ(std::memcmp(host, in.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(shared, in.data(), bytes), 0);
  static_cast<uint32_t *>(host)[7] = 77; // written on the host, read by the copy engine
  copy(out.data(), host, bytes);
  finish();
  EXPECT_EQ(out[7], 77u);
  for (void *p : {dev, shared, host})
    EXPECT_EQ(t.mem_free(context, p), DPK_SUCCESS) << lastError();
  int local = 0;
  EXPECT_EQ(t.mem_free(context, &local), DPK_ERROR_INVALID_ARGUMENT);
}

// cuMemsetD8/16/32 where they apply, doubling copies for larger patterns and misaligned
// destinations: past the 64 KiB staging chunk, at an aligned and a misaligned offset.
TEST_F(CudaDevice, FillStrategiesForEveryPatternSizeAndOffset) {
  const size_t bytes = (1 << 20) + 256; // past the 64 KiB staging chunk, not a power of two
  void *dev = alloc(DPK_MEM_DEVICE, bytes + 16);
  std::vector<unsigned char> got(bytes);
  for (size_t patternSize : {1, 2, 4, 8, 16, 32, 64, 128}) {
    std::vector<unsigned char> pattern(patternSize);
    for (size_t i = 0; i < patternSize; ++i)
      pattern[i] = static_cast<unsigned char>(0x11 * (i + 1) + patternSize);
    for (size_t offset : {size_t(0), size_t(2)}) { // offset 2: the misaligned path
      unsigned char *dst = static_cast<unsigned char *>(dev) + offset;
      ASSERT_EQ(t.enqueue_fill(nullptr, queue, dst, pattern.data(), patternSize, bytes, 0, nullptr),
                DPK_SUCCESS)
          << lastError();
      copy(got.data(), dst, bytes);
      finish();
      size_t bad = bytes;
      for (size_t i = 0; i < bytes && bad == bytes; ++i)
        if (got[i] != pattern[i % patternSize])
          bad = i;
      EXPECT_EQ(bad, bytes) << "pattern size " << patternSize << " offset " << offset;
    }
  }
  t.mem_free(context, dev);
}

TEST_F(CudaDevice, SmallReadsBehindRunningWorkSeeTheWorkBeforeThem) {
  // A read of a few bytes into pageable memory right behind running work (a 256 MiB fill)
  // goes through the plugin's copy kernel (small_read.hpp): it must see every command before it
  // (the small fill that follows the large one) at any size and alignment up to 4 KiB.
  const size_t large = size_t(256) << 20;
  void *dev = alloc(DPK_MEM_DEVICE, large);
  auto *bytes = static_cast<unsigned char *>(dev);
  unsigned round = 0;
  for (size_t offset : {size_t(0), size_t(3)}) {
    for (size_t n : {size_t(1), size_t(4), size_t(13), size_t(1024), size_t(4096)}) {
      ++round;
      unsigned char big = static_cast<unsigned char>(round);
      unsigned char mark = static_cast<unsigned char>(0xA0 + round);
      ASSERT_EQ(t.enqueue_fill(nullptr, queue, dev, &big, 1, large, 0, nullptr), DPK_SUCCESS);
      ASSERT_EQ(t.enqueue_fill(nullptr, queue, bytes + offset, &mark, 1, n, 0, nullptr),
                DPK_SUCCESS);
      std::vector<unsigned char> got(n + 1, 0xEE);
      copy(got.data(), bytes + offset, n);
      EXPECT_EQ(std::count(got.begin(), got.end() - 1, mark), static_cast<long>(n))
          << n << " bytes at offset " << offset;
      EXPECT_EQ(got[n], 0xEE) << "past the read, " << n << " bytes at offset " << offset;
    }
  }
  finish();
  t.mem_free(context, dev);
}

TEST_F(CudaDevice, OutOfDeviceMemory) {
  dpk_device_props_t props{};
  props.struct_size = sizeof(props);
  ASSERT_EQ(t.device_get_props(&props, Plugin::get().devices[0]), DPK_SUCCESS);
  void *p = nullptr;
  EXPECT_EQ(t.mem_alloc(&p, context, DPK_MEM_DEVICE, props.global_mem_size * 2, 0),
            DPK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(p, nullptr);
  std::string message = lastError();
  EXPECT_NE(message.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << message;
  std::printf("out of memory: %s\n", message.c_str());
  // Managed memory beyond the device is refused before the driver sees it.
  EXPECT_EQ(t.mem_alloc(&p, context, DPK_MEM_SHARED, props.global_mem_size * 2, 0),
            DPK_ERROR_OUT_OF_DEVICE_MEMORY);
}

TEST_F(CudaDevice, BadPtxIsACompileErrorWithTheJitLog) {
  const char *bad = ".version 7.0\n.target sm_75\n.address_size 64\n"
                    ".visible .entry broken(.param .u64 p)\n{\n  not_an_instruction %r1;\n}\n";
  dpk_pl_program_t prog = nullptr;
  EXPECT_EQ(t.program_create(&prog, context, DPK_FORMAT_PTX, bad, std::strlen(bad), nullptr),
            DPK_ERROR_COMPILE);
  EXPECT_EQ(prog, nullptr);
  int32_t code = 0;
  std::string message = Plugin::get().t.last_error(&code);
  std::printf("bad PTX: %s\n", message.c_str());
  EXPECT_NE(message.find("cuModuleLoadDataEx"), std::string::npos) << message;
  EXPECT_NE(message.find("ptxas"), std::string::npos) << message; // the JIT's own log
  EXPECT_NE(code, 0);
  EXPECT_EQ(t.program_create(&prog, context, DPK_FORMAT_SPIRV, bad, std::strlen(bad), nullptr),
            DPK_ERROR_UNSUPPORTED);
}

TEST_F(CudaDevice, VectorAddRangeLaunch) {
  LOAD_PROGRAM(prog, "vadd");
  dpk_pl_kernel_t kernel = nullptr;
  ASSERT_EQ(t.kernel_create(&kernel, prog, "vadd"), DPK_SUCCESS) << lastError();
  uint64_t maxWg = 0;
  ASSERT_EQ(t.kernel_max_work_group_size(&maxWg, kernel), DPK_SUCCESS);
  EXPECT_GE(maxWg, 256u);
  // 3000: block 250; 1009 (prime): block 1; 1 << 20: block 256.
  for (long long n : {3000LL, 1009LL, 1LL << 20}) {
    std::vector<float> a(n), b(n), c(n, 0.0f);
    for (long long i = 0; i < n; ++i) {
      a[i] = static_cast<float>(i);
      b[i] = static_cast<float>(2 * i + 1);
    }
    size_t bytes = n * sizeof(float);
    void *da = alloc(DPK_MEM_DEVICE, bytes), *db = alloc(DPK_MEM_DEVICE, bytes),
         *dc = alloc(DPK_MEM_DEVICE, bytes);
    copy(da, a.data(), bytes);
    copy(db, b.data(), bytes);
    dpk_kernel_arg_t args[] = {ptrArg(da), ptrArg(db), ptrArg(dc), scalarArg(n)};
    dpk_launch_config_t config{};
    config.dims = 1;
    config.global_size[0] = n;
    dpk_pl_event_t done = nullptr;
    ASSERT_EQ(t.enqueue_launch(&done, queue, kernel, &config, 4, args, 0, nullptr), DPK_SUCCESS)
        << lastError();
    ASSERT_EQ(t.event_wait(1, &done), DPK_SUCCESS) << lastError();
    dpk_event_status_t status;
    EXPECT_EQ(t.event_status(&status, done), DPK_SUCCESS);
    EXPECT_EQ(status, DPK_EVENT_COMPLETE);
    uint64_t ns = 0;
    EXPECT_EQ(t.event_elapsed_ns(&ns, done), DPK_ERROR_UNSUPPORTED); // not a profiling queue
    t.event_release(done);
    copy(c.data(), dc, bytes);
    finish();
    long long wrong = -1;
    for (long long i = 0; i < n && wrong < 0; ++i)
      if (c[i] != a[i] + b[i])
        wrong = i;
    EXPECT_EQ(wrong, -1) << "n = " << n;
    for (void *p : {da, db, dc})
      t.mem_free(context, p);
  }
  // Wrong argument lists are refused before the launch.
  void *none = nullptr;
  long long n = 16;
  dpk_kernel_arg_t three[] = {ptrArg(none), ptrArg(none), ptrArg(none)};
  dpk_launch_config_t config{};
  config.dims = 1;
  config.global_size[0] = 16;
  dpk_status_t st = t.enqueue_launch(nullptr, queue, kernel, &config, 3, three, 0, nullptr);
  EXPECT_EQ(st, DPK_ERROR_INVALID_ARGUMENT);
  std::printf("3 args for vadd: %s\n", lastError().c_str());
  dpk_kernel_arg_t narrow[] = {ptrArg(none), ptrArg(none), ptrArg(none), scalarArg(int(n))};
  st = t.enqueue_launch(nullptr, queue, kernel, &config, 4, narrow, 0, nullptr);
  EXPECT_EQ(st, DPK_ERROR_INVALID_ARGUMENT);
  std::printf("int for long long: %s\n", lastError().c_str());
  t.kernel_release(kernel);
  t.program_release(prog);
}

TEST_F(CudaDevice, TooLargeWorkGroupIsAClearError) {
  LOAD_PROGRAM(prog, "vadd");
  dpk_pl_kernel_t kernel = nullptr;
  ASSERT_EQ(t.kernel_create(&kernel, prog, "vadd"), DPK_SUCCESS) << lastError();
  void *p = nullptr;
  long long n = 4096;
  dpk_kernel_arg_t args[] = {ptrArg(p), ptrArg(p), ptrArg(p), scalarArg(n)};
  dpk_launch_config_t config{};
  config.dims = 1;
  config.global_size[0] = 4096;
  config.local_size[0] = 2048;
  EXPECT_EQ(t.enqueue_launch(nullptr, queue, kernel, &config, 4, args, 0, nullptr),
            DPK_ERROR_INVALID_RANGE);
  std::string message = lastError();
  std::printf("too large (1-D): %s\n", message.c_str());
  EXPECT_NE(message.find("vadd"), std::string::npos) << message;
  EXPECT_NE(message.find("exceeds"), std::string::npos) << message;
  // Each side within the block limits, the product over the kernel's limit.
  dpk_launch_config_t square{};
  square.dims = 2;
  square.global_size[0] = square.global_size[1] = 64;
  square.local_size[0] = 32;
  square.local_size[1] = 64;
  EXPECT_EQ(t.enqueue_launch(nullptr, queue, kernel, &square, 4, args, 0, nullptr),
            DPK_ERROR_INVALID_RANGE);
  message = lastError();
  std::printf("too large (2-D): %s\n", message.c_str());
  EXPECT_NE(message.find("work-group of 2048 work-items (32x64)"), std::string::npos) << message;
  EXPECT_EQ(t.kernel_create(&kernel, prog, "no_such_kernel"), DPK_ERROR_NOT_FOUND);
  t.kernel_release(kernel);
  t.program_release(prog);
}

TEST_F(CudaDevice, TwoDimensionalLaunchReversesDimensions) {
  LOAD_PROGRAM(prog, "index2d");
  dpk_pl_kernel_t kernel = nullptr;
  ASSERT_EQ(t.kernel_create(&kernel, prog, "index2d"), DPK_SUCCESS) << lastError();
  const long long rows = 48, cols = 80;
  size_t bytes = rows * cols * sizeof(int);
  void *ids = alloc(DPK_MEM_DEVICE, bytes), *lin = alloc(DPK_MEM_DEVICE, bytes);
  dpk_kernel_arg_t args[] = {ptrArg(ids), ptrArg(lin), scalarArg(rows), scalarArg(cols)};
  for (bool ndrange : {true, false}) {
    t.enqueue_fill(nullptr, queue, ids, "\xff", 1, bytes, 0, nullptr);
    dpk_launch_config_t config{};
    config.dims = 2;
    config.global_size[0] = rows;
    config.global_size[1] = cols;
    if (ndrange) {
      config.local_size[0] = 4;  // work-group rows
      config.local_size[1] = 16; // work-group columns
    }
    ASSERT_EQ(t.enqueue_launch(nullptr, queue, kernel, &config, 4, args, 0, nullptr), DPK_SUCCESS)
        << lastError();
    std::vector<int> got(rows * cols), linear(rows * cols);
    copy(got.data(), ids, bytes);
    copy(linear.data(), lin, bytes);
    finish();
    int wrong = 0;
    for (long long r = 0; r < rows; ++r)
      for (long long c = 0; c < cols; ++c) {
        if (got[r * cols + c] != r * 1000 + c)
          ++wrong;
        // Row-major local linear id (local row * 16 + local column).
        if (ndrange && linear[r * cols + c] != (r % 4) * 16 + (c % 16))
          ++wrong;
      }
    EXPECT_EQ(wrong, 0) << (ndrange ? "NdRange" : "Range");
  }
  t.mem_free(context, ids);
  t.mem_free(context, lin);
  t.kernel_release(kernel);
  t.program_release(prog);
}

TEST_F(CudaDevice, LocalMemoryArgumentsAndBarrier) {
  LOAD_PROGRAM(prog, "local_reverse");
  dpk_pl_kernel_t kernel = nullptr;
  ASSERT_EQ(t.kernel_create(&kernel, prog, "local_reverse"), DPK_SUCCESS) << lastError();
  const uint64_t groups = 64, wg = 256, n = groups * wg;
  std::vector<float> in(n), out(n);
  for (uint64_t i = 0; i < n; ++i)
    in[i] = static_cast<float>(i);
  void *din = alloc(DPK_MEM_DEVICE, n * 4), *dout = alloc(DPK_MEM_DEVICE, n * 4);
  copy(din, in.data(), n * 4);
  // 20 bytes of scratch puts the tile at offset 32; 80 KiB of scratch needs the opt-in past
  // 48 KiB of dynamic shared memory.
  for (size_t scratchBytes : {size_t(20), size_t(80 * 1024)}) {
    dpk_kernel_arg_t args[] = {ptrArg(din), ptrArg(dout), localArg(scratchBytes),
                               localArg(wg * sizeof(float))};
    dpk_launch_config_t config{};
    config.dims = 1;
    config.global_size[0] = n;
    config.local_size[0] = wg;
    ASSERT_EQ(t.enqueue_launch(nullptr, queue, kernel, &config, 4, args, 0, nullptr), DPK_SUCCESS)
        << lastError();
    copy(out.data(), dout, n * 4);
    finish();
    int wrong = 0;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t g = i / wg, l = i % wg;
      float expect = in[g * wg + (wg - 1 - l)] + static_cast<float>((l % 5) * 7);
      if (out[i] != expect)
        ++wrong;
    }
    EXPECT_EQ(wrong, 0) << "scratch " << scratchBytes;
  }
  // More local memory than the device has is refused with the numbers.
  dpk_kernel_arg_t huge[] = {ptrArg(din), ptrArg(dout), localArg(1 << 20), localArg(16)};
  dpk_launch_config_t config{};
  config.dims = 1;
  config.global_size[0] = n;
  config.local_size[0] = wg;
  EXPECT_EQ(t.enqueue_launch(nullptr, queue, kernel, &config, 4, huge, 0, nullptr),
            DPK_ERROR_INVALID_RANGE);
  std::printf("too much local memory: %s\n", lastError().c_str());
  t.mem_free(context, din);
  t.mem_free(context, dout);
  t.kernel_release(kernel);
  t.program_release(prog);
}

TEST_F(CudaDevice, ScalarArgumentsOfEverySize) {
  LOAD_PROGRAM(prog, "scalars");
  dpk_pl_kernel_t kernel = nullptr;
  ASSERT_EQ(t.kernel_create(&kernel, prog, "scalars"), DPK_SUCCESS) << lastError();
  void *out = alloc(DPK_MEM_SHARED, 6 * sizeof(double));
  signed char c = -7;
  short s = -30000;
  int i = 2000000000;
  long long l = -(1LL << 40);
  float f = 1.5f;
  double d = 3.25;
  dpk_kernel_arg_t args[] = {ptrArg(out),  scalarArg(c), scalarArg(s), scalarArg(i),
                             scalarArg(l), scalarArg(f), scalarArg(d)};
  dpk_launch_config_t config{};
  config.dims = 1;
  config.global_size[0] = 1;
  ASSERT_EQ(t.enqueue_launch(nullptr, queue, kernel, &config, 7, args, 0, nullptr), DPK_SUCCESS)
      << lastError();
  finish();
  const double *got = static_cast<const double *>(out);
  EXPECT_EQ(got[0], -7.0);
  EXPECT_EQ(got[1], -30000.0);
  EXPECT_EQ(got[2], 2000000000.0);
  EXPECT_EQ(got[3], static_cast<double>(l));
  EXPECT_EQ(got[4], 1.5);
  EXPECT_EQ(got[5], 3.25);
  t.mem_free(context, out);
  t.kernel_release(kernel);
  t.program_release(prog);
}

TEST_F(CudaDevice, EventsOrderCommandsAcrossQueuesAndProfile) {
  dpk_pl_queue_t profiled = nullptr;
  ASSERT_EQ(t.queue_create(&profiled, context, DPK_PL_QUEUE_OUT_OF_ORDER | DPK_PL_QUEUE_PROFILING),
            DPK_SUCCESS)
      << lastError();
  const size_t bytes = 64 << 20;
  void *a = alloc(DPK_MEM_DEVICE, bytes), *b = alloc(DPK_MEM_DEVICE, bytes);
  uint32_t pattern = 0xdecafbad;
  dpk_pl_event_t filled = nullptr, copied = nullptr;
  ASSERT_EQ(t.enqueue_fill(&filled, queue, a, &pattern, 4, bytes, 0, nullptr), DPK_SUCCESS)
      << lastError();
  // The copy on the other queue must see the whole fill.
  ASSERT_EQ(t.enqueue_copy(&copied, profiled, b, a, bytes, 1, &filled), DPK_SUCCESS) << lastError();
  ASSERT_EQ(t.event_wait(1, &copied), DPK_SUCCESS) << lastError();
  std::vector<uint32_t> tail(1024);
  ASSERT_EQ(t.enqueue_copy(nullptr, profiled, tail.data(), static_cast<char *>(b) + bytes - 4096, 4096, 0,
                           nullptr),
            DPK_SUCCESS);
  ASSERT_EQ(t.queue_finish(profiled), DPK_SUCCESS) << lastError();
  for (uint32_t v : tail)
    ASSERT_EQ(v, pattern);
  uint64_t ns = 0;
  EXPECT_EQ(t.event_elapsed_ns(&ns, copied), DPK_SUCCESS) << lastError();
  std::printf("64 MiB device copy: %llu ns\n", (unsigned long long)ns);
  t.event_release(filled);
  t.event_release(copied);
  t.mem_free(context, a);
  t.mem_free(context, b);
  t.queue_release(profiled);
}

// Events of non-profiling queues are recycled once released; a dependency already enqueued on
// a released event must still hold. Two queues ping-pong through one buffer, each command
// depending on the other queue's previous one, and every event is released right after use.
TEST_F(CudaDevice, RecycledEventsKeepDependencies) {
  dpk_pl_queue_t other = nullptr;
  ASSERT_EQ(t.queue_create(&other, context, DPK_PL_QUEUE_IN_ORDER), DPK_SUCCESS) << lastError();
  const int rounds = 200;
  const size_t bytes = 4 << 20; // big enough that the fill is still running when B is enqueued
  void *buffer = alloc(DPK_MEM_DEVICE, bytes);
  void *slots = alloc(DPK_MEM_DEVICE, rounds * sizeof(uint32_t));
  dpk_pl_event_t copied = nullptr;
  for (int i = 0; i < rounds; ++i) {
    uint32_t value = 1000u + i;
    dpk_pl_event_t filled = nullptr;
    ASSERT_EQ(t.enqueue_fill(&filled, queue, buffer, &value, 4, bytes, copied ? 1 : 0, &copied),
              DPK_SUCCESS)
        << lastError();
    if (copied)
      t.event_release(copied);
    // The slot takes the buffer's last word: it must be this round's value.
    ASSERT_EQ(t.enqueue_copy(&copied, other, static_cast<uint32_t *>(slots) + i,
                             static_cast<char *>(buffer) + bytes - 4, 4, 1, &filled),
              DPK_SUCCESS)
        << lastError();
    t.event_release(filled);
  }
  ASSERT_EQ(t.event_wait(1, &copied), DPK_SUCCESS) << lastError();
  t.event_release(copied);
  std::vector<uint32_t> got(rounds);
  copy(got.data(), slots, rounds * sizeof(uint32_t));
  finish();
  int wrong = 0;
  for (int i = 0; i < rounds; ++i)
    wrong += got[i] != 1000u + i;
  EXPECT_EQ(wrong, 0);
  t.mem_free(context, buffer);
  t.mem_free(context, slots);
  t.queue_release(other);
}

// A trap leaves the CUDA context unusable for the rest of the process, so the kernel runs in a
// fresh process (gtest's threadsafe death test re-executes this binary).
TEST_F(CudaDevice, AsyncErrorIsReportedAtWaitWithDeviceKernelAndCause) {
  if (readFile(ptxPath("trap")).empty())
    GTEST_SKIP() << "no PTX for trap (nvcc was not found at build time)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The child's messages, shown by the parent (a passing death test hides the child's output).
  const char *tmp = std::getenv("TMPDIR");
  std::string trapLog = std::string(tmp && *tmp ? tmp : "/tmp") + "/dpk_cuda_trap_message.txt";
  std::remove(trapLog.c_str());
  EXPECT_EXIT(
      {
        dpk_pl_program_t prog = program("trap");
        dpk_pl_kernel_t kernel = nullptr;
        t.kernel_create(&kernel, prog, "trap_kernel");
        void *flag = alloc(DPK_MEM_DEVICE, 4);
        dpk_kernel_arg_t args[] = {ptrArg(flag)};
        dpk_launch_config_t config{};
        config.dims = 1;
        config.global_size[0] = 32;
        dpk_pl_event_t done = nullptr;
        dpk_status_t launched =
            t.enqueue_launch(&done, queue, kernel, &config, 1, args, 0, nullptr);
        dpk_status_t waited = done ? t.event_wait(1, &done) : launched;
        dpk_event_status_t status = DPK_EVENT_QUEUED;
        if (done)
          t.event_status(&status, done);
        std::string waitMessage = lastError();
        std::fprintf(stderr, "launch=%d wait=%d status=%d: %s\n", launched, waited, status,
                     waitMessage.c_str());
        dpk_status_t finished = t.queue_finish(queue);
        std::fprintf(stderr, "finish=%d: %s\n", finished, lastError().c_str());
        if (FILE *f = std::fopen(trapLog.c_str(), "w")) {
          std::fprintf(f, "event_wait -> %d: %s\n", waited, waitMessage.c_str());
          std::fprintf(f, "queue_finish -> %d: %s\n", finished, lastError().c_str());
          std::fclose(f);
        }
        std::exit(waited == DPK_ERROR_DEVICE && status == DPK_EVENT_ERROR ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "wait=-10 status=3: cuEventSynchronize: CUDA_ERROR_[A-Z_]+ \\([0-9]+\\).*"
      "kernel 'trap_kernel' on CUDA device 0");
  std::printf("async error, from the child process:\n%s", readFile(trapLog).c_str());
  std::remove(trapLog.c_str());
}

} // namespace

// ---- PTX from dpk's own codegen (dpkc --emit=ptx) ----------------------------------------------
namespace {

class CudaDpkc : public CudaDevice {
protected:
  dpk_pl_kernel_t kernel(dpk_pl_program_t prog, const char *name) {
    dpk_pl_kernel_t k = nullptr;
    EXPECT_EQ(t.kernel_create(&k, prog, name), DPK_SUCCESS) << lastError();
    return k;
  }
};

TEST_F(CudaDpkc, VectorAddRange) {
  LOAD_PROGRAM(prog, "dpkc_vector_add");
  dpk_pl_kernel_t k = kernel(prog, "vector_add");
  for (size_t n : {size_t(1) << 20, size_t(1000)}) {
    std::vector<float> a(n), b(n), c(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = float(i);
      b[i] = float(3 * i);
    }
    void *da = alloc(DPK_MEM_DEVICE, n * 4), *db = alloc(DPK_MEM_DEVICE, n * 4),
         *dc = alloc(DPK_MEM_DEVICE, n * 4);
    copy(da, a.data(), n * 4);
    copy(db, b.data(), n * 4);
    dpk_kernel_arg_t args[] = {ptrArg(da), ptrArg(db), ptrArg(dc)};
    dpk_launch_config_t config{};
    config.dims = 1;
    config.global_size[0] = n;
    ASSERT_EQ(t.enqueue_launch(nullptr, queue, k, &config, 3, args, 0, nullptr), DPK_SUCCESS)
        << lastError();
    copy(c.data(), dc, n * 4);
    finish();
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i)
      wrong += c[i] != a[i] + b[i];
    EXPECT_EQ(wrong, 0u) << "n = " << n;
    for (void *p : {da, db, dc})
      t.mem_free(context, p);
  }
  t.kernel_release(k);
  t.program_release(prog);
}

TEST_F(CudaDpkc, TiledMatmulNdRange2D) {
  LOAD_PROGRAM(prog, "dpkc_tiled_matmul");
  dpk_pl_kernel_t k = kernel(prog, "tiled_matmul");
  const long long n = 64;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (long long i = 0; i < n * n; ++i) {
    a[i] = float(i % 7);
    b[i] = float(i % 5);
  }
  size_t bytes = n * n * 4;
  void *da = alloc(DPK_MEM_DEVICE, bytes), *db = alloc(DPK_MEM_DEVICE, bytes),
       *dc = alloc(DPK_MEM_DEVICE, bytes);
  copy(da, a.data(), bytes);
  copy(db, b.data(), bytes);
  dpk_kernel_arg_t args[] = {ptrArg(da), ptrArg(db), ptrArg(dc), scalarArg(n)};
  dpk_launch_config_t config{};
  config.dims = 2;
  config.global_size[0] = config.global_size[1] = n;
  config.local_size[0] = config.local_size[1] = 16;
  ASSERT_EQ(t.enqueue_launch(nullptr, queue, k, &config, 4, args, 0, nullptr), DPK_SUCCESS)
      << lastError();
  copy(c.data(), dc, bytes);
  finish();
  int wrong = 0;
  for (long long r = 0; r < n; ++r)
    for (long long col = 0; col < n; ++col) {
      float sum = 0;
      for (long long i = 0; i < n; ++i)
        sum += a[r * n + i] * b[i * n + col];
      wrong += c[r * n + col] != sum;
    }
  EXPECT_EQ(wrong, 0);
  for (void *p : {da, db, dc})
    t.mem_free(context, p);
  t.kernel_release(k);
  t.program_release(prog);
}

TEST_F(CudaDpkc, LocalPointerParametersAndBarrier) {
  LOAD_PROGRAM(prog, "dpkc_local_reverse");
  dpk_pl_kernel_t k = kernel(prog, "dpk_local_reverse");
  const uint64_t wg = 128, n = 32 * wg;
  std::vector<float> in(n), out(n);
  for (uint64_t i = 0; i < n; ++i)
    in[i] = float(i);
  void *din = alloc(DPK_MEM_DEVICE, n * 4), *dout = alloc(DPK_MEM_DEVICE, n * 4);
  copy(din, in.data(), n * 4);
  for (size_t scratchBytes : {size_t(20), size_t(100 * 1024)}) {
    dpk_kernel_arg_t args[] = {ptrArg(din), ptrArg(dout), localArg(scratchBytes), localArg(wg * 4)};
    dpk_launch_config_t config{};
    config.dims = 1;
    config.global_size[0] = n;
    config.local_size[0] = wg;
    ASSERT_EQ(t.enqueue_launch(nullptr, queue, k, &config, 4, args, 0, nullptr), DPK_SUCCESS)
        << lastError();
    copy(out.data(), dout, n * 4);
    finish();
    int wrong = 0;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t g = i / wg, l = i % wg;
      wrong += out[i] != in[g * wg + (wg - 1 - l)] + float((l % 5) * 7);
    }
    EXPECT_EQ(wrong, 0) << "scratch " << scratchBytes;
  }
  t.mem_free(context, din);
  t.mem_free(context, dout);
  t.kernel_release(k);
  t.program_release(prog);
}

// The core asks for no event when the caller wants none (issue 6), so queue_finish alone must
// report a fault of a launch that had no event, naming the kernel and the device.
TEST_F(CudaDevice, AsyncErrorOfALaunchWithoutAnEventIsReportedAtQueueFinish) {
  if (readFile(ptxPath("trap")).empty())
    GTEST_SKIP() << "no PTX for trap (nvcc was not found at build time)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        dpk_pl_program_t prog = program("trap");
        dpk_pl_kernel_t kernel = nullptr;
        t.kernel_create(&kernel, prog, "trap_kernel");
        void *flag = alloc(DPK_MEM_DEVICE, 4);
        dpk_kernel_arg_t args[] = {ptrArg(flag)};
        dpk_launch_config_t config{};
        config.dims = 1;
        config.global_size[0] = 32;
        dpk_status_t launched = t.enqueue_launch(nullptr, queue, kernel, &config, 1, args, 0, nullptr);
        dpk_status_t finished = t.queue_finish(queue);
        std::fprintf(stderr, "launch=%d finish=%d: %s\n", launched, finished, lastError().c_str());
        std::exit(launched == DPK_SUCCESS && finished == DPK_ERROR_DEVICE ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "finish=-10: cuStreamSynchronize: CUDA_ERROR_[A-Z_]+ \\([0-9]+\\).*"
      "on CUDA device 0.*after kernel 'trap_kernel'");
}

} // namespace

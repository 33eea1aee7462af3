// OpenCLBackendTest.cpp - the OpenCL plugin through its dispatch table on every OpenCL device
// the ICD loader offers, once per memory strategy (DPK_OPENCL_MEMORY=usm|svm|buffer, and the
// device's own choice): devices, memory and copies, fills, OpenCL C and SPIR-V launches, the
// index mapping, local memory with barriers, events and dependencies, and the errors only the
// device, the kernel or the memory strategy can report. The contract every plugin shares
// (argument checks, round trips under the default strategy, events) is tests/plugin_abi's.
#include "dpk/plugin.h"

#include <gtest/gtest.h>

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>

#include <cstddef>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

dpk_plugin_dispatch_t Table{};

const char *const VectorAddSource = R"CL(
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, float s) {
  size_t i = get_global_id(0);
  c[i] = a[i] + s * b[i];
}
// out[row][col] with dpk dimension 0 = rows: OpenCL dimension 1 must be the row.
__kernel void grid(__global int *out) {
  size_t col = get_global_id(0), row = get_global_id(1);
  out[row * get_global_size(0) + col] = (int)(row * 1000 + col);
}
// Work-group sums through local memory and barriers (a tree reduction).
__kernel void groupSum(__global const int *in, __global int *sums, __local int *scratch) {
  size_t l = get_local_id(0), n = get_local_size(0);
  scratch[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t stride = n / 2; stride > 0; stride /= 2) {
    if (l < stride)
      scratch[l] += scratch[l + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    sums[get_group_id(0)] = scratch[0];
}
__kernel void addOne(__global int *data) { data[get_global_id(0)] += 1; }
)CL";

std::string lastError() {
  int32_t code = 0;
  return Table.last_error(&code);
}

std::string extraValue(const dpk_device_props_t &props, const std::string &key) {
  std::string extra = props.extra;
  size_t at = extra.find(key + "=");
  if (at == std::string::npos)
    return {};
  at += key.size() + 1;
  return extra.substr(at, extra.find('\n', at) - at);
}

/// The plugin, loaded once; each test re-enumerates under its strategy.
class OpenClBackend : public ::testing::TestWithParam<const char *> {
protected:
  static void SetUpTestSuite() {
    void *handle = dlopen(DPK_OPENCL_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    auto entry =
        reinterpret_cast<dpk_plugin_get_dispatch_fn>(dlsym(handle, DPK_PLUGIN_ENTRY_SYMBOL));
    ASSERT_NE(entry, nullptr);
    Table.struct_size = sizeof Table;
    ASSERT_EQ(entry(DPK_PLUGIN_ABI_VERSION, &Table), DPK_SUCCESS);
  }

  void SetUp() override {
    ASSERT_NE(Table.init, nullptr);
    std::string strategy = GetParam();
    if (strategy == "default")
      unsetenv("DPK_OPENCL_MEMORY");
    else
      setenv("DPK_OPENCL_MEMORY", strategy.c_str(), 1);
    Table.shutdown(); // forget the devices so they are enumerated under this strategy
    ASSERT_EQ(Table.init(nullptr), DPK_SUCCESS) << lastError();
    uint32_t count = 0;
    ASSERT_EQ(Table.get_devices(&count, nullptr), DPK_SUCCESS);
    if (count == 0)
      GTEST_SKIP() << "no OpenCL device: " << Table.no_device_reason();
    std::vector<dpk_pl_device_t> all(count);
    ASSERT_EQ(Table.get_devices(&count, all.data()), DPK_SUCCESS);
    for (dpk_pl_device_t device : all) {
      dpk_device_props_t props{};
      props.struct_size = sizeof props;
      ASSERT_EQ(Table.device_get_props(&props, device), DPK_SUCCESS);
      // A device that cannot give the forced strategy is tested under "default" already.
      if (extraValue(props, "memory").find("not available") != std::string::npos)
        continue;
      devices.push_back({device, props});
    }
    if (devices.empty())
      GTEST_SKIP() << "no OpenCL device offers memory strategy " << strategy;
  }

  void TearDown() override { unsetenv("DPK_OPENCL_MEMORY"); }

  struct Device {
    dpk_pl_device_t handle;
    dpk_device_props_t props;
  };

  /// One device's context and queue for a test body.
  struct Session {
    dpk_pl_context_t context = nullptr;
    dpk_pl_queue_t queue = nullptr;
    Session(const Device &device, uint32_t flags = DPK_PL_QUEUE_IN_ORDER) {
      EXPECT_EQ(Table.context_create(&context, device.handle), DPK_SUCCESS) << lastError();
      EXPECT_EQ(Table.queue_create(&queue, context, flags), DPK_SUCCESS) << lastError();
    }
    ~Session() {
      if (queue)
        Table.queue_release(queue);
      if (context)
        Table.context_release(context);
    }
    void *alloc(size_t bytes, dpk_mem_kind_t kind = DPK_MEM_DEVICE) {
      void *ptr = nullptr;
      EXPECT_EQ(Table.mem_alloc(&ptr, context, kind, bytes, 0), DPK_SUCCESS) << lastError();
      return ptr;
    }
    template <typename T> void upload(void *dst, const std::vector<T> &src) {
      EXPECT_EQ(
          Table.enqueue_copy(nullptr, queue, dst, src.data(), src.size() * sizeof(T), 0, nullptr),
          DPK_SUCCESS)
          << lastError();
    }
    template <typename T> std::vector<T> download(const void *src, size_t count) {
      std::vector<T> out(count);
      EXPECT_EQ(Table.enqueue_copy(nullptr, queue, out.data(), src, count * sizeof(T), 0, nullptr),
                DPK_SUCCESS)
          << lastError();
      EXPECT_EQ(Table.queue_finish(queue), DPK_SUCCESS) << lastError();
      return out;
    }
    dpk_pl_kernel_t kernel(const char *name) {
      dpk_pl_program_t program = nullptr;
      EXPECT_EQ(Table.program_create(&program, context, DPK_FORMAT_OPENCL_C, VectorAddSource,
                                     std::strlen(VectorAddSource), nullptr),
                DPK_SUCCESS)
          << lastError();
      dpk_pl_kernel_t kernel = nullptr;
      if (program) {
        EXPECT_EQ(Table.kernel_create(&kernel, program, name), DPK_SUCCESS) << lastError();
        Table.program_release(program); // the kernel keeps the program alive
      }
      return kernel;
    }
  };

  static dpk_kernel_arg_t pointerArg(void *const &ptr) {
    return {DPK_ARG_POINTER, sizeof ptr, &ptr};
  }

  std::vector<Device> devices;
};

TEST_P(OpenClBackend, DevicesDescribeThemselves) {
  std::set<std::string> targets;
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    EXPECT_TRUE(device.props.formats & DPK_FORMAT_OPENCL_C);
    EXPECT_TRUE(device.props.aspects & DPK_ASPECT_USM_DEVICE);
    EXPECT_FALSE(extraValue(device.props, "memory").empty()) << device.props.extra;
    EXPECT_FALSE(extraValue(device.props, "opencl_version").empty()) << device.props.extra;
    EXPECT_GT(device.props.max_work_group_size, 0u);
    bool spirv = extraValue(device.props, "il_versions").find("SPIR-V") != std::string::npos;
    EXPECT_EQ(spirv, (device.props.formats & DPK_FORMAT_SPIRV) != 0);
    EXPECT_TRUE(targets.insert(device.props.target_id).second)
        << "two devices share target_id " << device.props.target_id;
  }
}

TEST_P(OpenClBackend, EveryMemoryKindCopiesAndFills) {
  for (const Device &device : devices) {
    SCOPED_TRACE(std::string(device.props.name) + " [" + extraValue(device.props, "memory") + "]");
    Session session(device);
    const dpk_mem_kind_t kinds[] = {DPK_MEM_DEVICE, DPK_MEM_SHARED, DPK_MEM_HOST};
    const uint32_t aspects[] = {DPK_ASPECT_USM_DEVICE, DPK_ASPECT_USM_SHARED, DPK_ASPECT_USM_HOST};
    for (int k = 0; k < 3; ++k) {
      SCOPED_TRACE("kind " + std::to_string(kinds[k]));
      void *ptr = nullptr;
      dpk_status_t status = Table.mem_alloc(&ptr, session.context, kinds[k], 4096 * 4, 64);
      if (!(device.props.aspects & aspects[k])) {
        EXPECT_EQ(status, DPK_ERROR_UNSUPPORTED) << lastError();
        continue;
      }
      ASSERT_EQ(status, DPK_SUCCESS) << lastError();
      EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
      // host -> device, fill a window, device -> device, device -> host.
      std::vector<int> values(4096);
      std::iota(values.begin(), values.end(), 0);
      session.upload(ptr, values);
      int pattern = -7;
      ASSERT_EQ(Table.enqueue_fill(nullptr, session.queue, static_cast<int *>(ptr) + 100, &pattern,
                                   sizeof pattern, 50 * sizeof(int), 0, nullptr),
                DPK_SUCCESS)
          << lastError();
      void *copy = session.alloc(4096 * 4);
      ASSERT_EQ(Table.enqueue_copy(nullptr, session.queue, copy, ptr, 4096 * 4, 0, nullptr),
                DPK_SUCCESS)
          << lastError();
      std::vector<int> back = session.download<int>(copy, 4096);
      for (int i = 0; i < 4096; ++i)
        ASSERT_EQ(back[i], i >= 100 && i < 150 ? -7 : i) << "at " << i;
      // A copy out of the middle of an allocation.
      std::vector<int> middle = session.download<int>(static_cast<int *>(copy) + 1000, 10);
      EXPECT_EQ(middle[0], 1000);
      EXPECT_EQ(middle[9], 1009);
      if (kinds[k] != DPK_MEM_DEVICE) { // host-dereferenceable kinds
        EXPECT_EQ(static_cast<int *>(ptr)[3], 3);
      }
      EXPECT_EQ(Table.mem_free(session.context, copy), DPK_SUCCESS) << lastError();
      EXPECT_EQ(Table.mem_free(session.context, ptr), DPK_SUCCESS) << lastError();
    }
  }
}

TEST_P(OpenClBackend, FillPatternsOfEverySize) {
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device);
    void *ptr = session.alloc(1024);
    for (size_t patternSize : {1, 2, 4, 8, 16, 32, 64, 128}) {
      std::vector<unsigned char> pattern(patternSize);
      std::iota(pattern.begin(), pattern.end(), static_cast<unsigned char>(patternSize));
      ASSERT_EQ(Table.enqueue_fill(nullptr, session.queue, ptr, pattern.data(), patternSize, 1024, 0,
                                   nullptr),
                DPK_SUCCESS)
          << lastError();
      std::vector<unsigned char> back = session.download<unsigned char>(ptr, 1024);
      for (size_t i = 0; i < 1024; ++i)
        ASSERT_EQ(back[i], pattern[i % patternSize]) << "pattern " << patternSize << " at " << i;
    }
    Table.mem_free(session.context, ptr);
  }
}

TEST_P(OpenClBackend, VectorAddFromOpenClC) {
  constexpr size_t N = 1024;
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device);
    dpk_pl_kernel_t kernel = session.kernel("vadd");
    ASSERT_NE(kernel, nullptr);
    std::vector<float> a(N), b(N);
    for (size_t i = 0; i < N; ++i) {
      a[i] = float(i);
      b[i] = float(2 * i);
    }
    void *da = session.alloc(N * 4), *db = session.alloc(N * 4), *dc = session.alloc(N * 4);
    session.upload(da, a);
    session.upload(db, b);
    float scale = 0.5f;
    dpk_kernel_arg_t args[] = {
        pointerArg(da), pointerArg(db), pointerArg(dc), {DPK_ARG_SCALAR, sizeof scale, &scale}};
    for (uint64_t local : {uint64_t(0), uint64_t(64)}) { // a Range launch, then an NdRange one
      SCOPED_TRACE("local " + std::to_string(local));
      dpk_launch_config_t config{1, {N, 0, 0}, {local, 0, 0}};
      ASSERT_EQ(Table.enqueue_launch(nullptr, session.queue, kernel, &config, 4, args, 0, nullptr),
                DPK_SUCCESS)
          << lastError();
      std::vector<float> c = session.download<float>(dc, N);
      for (size_t i = 0; i < N; ++i)
        ASSERT_EQ(c[i], a[i] + 0.5f * b[i]) << "at " << i;
    }
    uint64_t maxGroup = 0;
    EXPECT_EQ(Table.kernel_max_work_group_size(&maxGroup, kernel), DPK_SUCCESS);
    EXPECT_GT(maxGroup, 0u);
    Table.kernel_release(kernel);
    for (void *ptr : {da, db, dc})
      Table.mem_free(session.context, ptr);
  }
}

TEST_P(OpenClBackend, VectorAddFromSpirv) {
#ifndef DPK_OPENCL_VADD_SPV
  GTEST_SKIP() << "spirv-as was not found at configure time: no SPIR-V kernel to run";
#else
  std::ifstream file(DPK_OPENCL_VADD_SPV, std::ios::binary);
  ASSERT_TRUE(file) << DPK_OPENCL_VADD_SPV;
  std::vector<char> spirv((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  constexpr size_t N = 4096;
  int ran = 0;
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device);
    dpk_pl_program_t program = nullptr;
    dpk_status_t status = Table.program_create(&program, session.context, DPK_FORMAT_SPIRV, spirv.data(),
                                               spirv.size(), nullptr);
    if (!(device.props.formats & DPK_FORMAT_SPIRV)) {
      EXPECT_EQ(status, DPK_ERROR_UNSUPPORTED) << lastError();
      continue;
    }
    ASSERT_EQ(status, DPK_SUCCESS) << lastError();
    dpk_pl_kernel_t kernel = nullptr;
    ASSERT_EQ(Table.kernel_create(&kernel, program, "vadd"), DPK_SUCCESS) << lastError();
    std::vector<float> a(N), b(N);
    for (size_t i = 0; i < N; ++i) {
      a[i] = float(i) * 0.25f;
      b[i] = float(N - i);
    }
    void *da = session.alloc(N * 4), *db = session.alloc(N * 4), *dc = session.alloc(N * 4);
    session.upload(da, a);
    session.upload(db, b);
    dpk_kernel_arg_t args[] = {pointerArg(da), pointerArg(db), pointerArg(dc)};
    dpk_launch_config_t config{1, {N, 0, 0}, {128, 0, 0}};
    ASSERT_EQ(Table.enqueue_launch(nullptr, session.queue, kernel, &config, 3, args, 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    std::vector<float> c = session.download<float>(dc, N);
    for (size_t i = 0; i < N; ++i)
      ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
    ++ran;
    Table.kernel_release(kernel);
    Table.program_release(program);
    for (void *ptr : {da, db, dc})
      Table.mem_free(session.context, ptr);
  }
  if (ran == 0)
    GTEST_SKIP() << "no device here takes SPIR-V (run scripts/setup-intel-opencl.sh for Intel's "
                    "OpenCL CPU runtime)";
#endif
}

TEST_P(OpenClBackend, TwoDimensionalLaunchReversesDimensions) {
  constexpr uint64_t Rows = 24, Cols = 40;
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device);
    dpk_pl_kernel_t kernel = session.kernel("grid");
    ASSERT_NE(kernel, nullptr);
    void *out = session.alloc(Rows * Cols * 4);
    dpk_kernel_arg_t args[] = {pointerArg(out)};
    for (uint64_t localRows : {uint64_t(0), uint64_t(4)}) {
      dpk_launch_config_t config{2, {Rows, Cols, 0}, {localRows, localRows ? 8u : 0u, 0}};
      ASSERT_EQ(Table.enqueue_launch(nullptr, session.queue, kernel, &config, 1, args, 0, nullptr),
                DPK_SUCCESS)
          << lastError();
      std::vector<int> values = session.download<int>(out, Rows * Cols);
      for (uint64_t r = 0; r < Rows; ++r)
        for (uint64_t c = 0; c < Cols; ++c)
          ASSERT_EQ(values[r * Cols + c], int(r * 1000 + c)) << "row " << r << " col " << c;
    }
    Table.kernel_release(kernel);
    Table.mem_free(session.context, out);
  }
}

TEST_P(OpenClBackend, LocalMemoryAndBarriers) {
  constexpr size_t Groups = 16, Local = 64;
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device);
    dpk_pl_kernel_t kernel = session.kernel("groupSum");
    ASSERT_NE(kernel, nullptr);
    std::vector<int> in(Groups * Local);
    std::iota(in.begin(), in.end(), 1);
    void *din = session.alloc(in.size() * 4), *dsums = session.alloc(Groups * 4);
    session.upload(din, in);
    dpk_kernel_arg_t args[] = {
        pointerArg(din), pointerArg(dsums), {DPK_ARG_LOCAL, Local * 4, nullptr}};
    dpk_launch_config_t config{1, {Groups * Local, 0, 0}, {Local, 0, 0}};
    ASSERT_EQ(Table.enqueue_launch(nullptr, session.queue, kernel, &config, 3, args, 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    std::vector<int> sums = session.download<int>(dsums, Groups);
    for (size_t g = 0; g < Groups; ++g) {
      int expected = 0;
      for (size_t l = 0; l < Local; ++l)
        expected += in[g * Local + l];
      EXPECT_EQ(sums[g], expected) << "group " << g;
    }
    Table.kernel_release(kernel);
    Table.mem_free(session.context, din);
    Table.mem_free(session.context, dsums);
  }
}

TEST_P(OpenClBackend, OutOfOrderQueueFollowsDependencies) {
  constexpr size_t N = 1 << 16;
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device, DPK_PL_QUEUE_OUT_OF_ORDER | DPK_PL_QUEUE_PROFILING);
    dpk_pl_kernel_t kernel = session.kernel("addOne");
    ASSERT_NE(kernel, nullptr);
    void *data = session.alloc(N * 4);
    int zero = 0;
    dpk_pl_event_t filled = nullptr, first = nullptr, second = nullptr, copied = nullptr;
    ASSERT_EQ(Table.enqueue_fill(&filled, session.queue, data, &zero, 4, N * 4, 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    dpk_kernel_arg_t args[] = {pointerArg(data)};
    dpk_launch_config_t config{1, {N, 0, 0}, {0, 0, 0}};
    ASSERT_EQ(Table.enqueue_launch(&first, session.queue, kernel, &config, 1, args, 1, &filled),
              DPK_SUCCESS)
        << lastError();
    ASSERT_EQ(Table.enqueue_launch(&second, session.queue, kernel, &config, 1, args, 1, &first),
              DPK_SUCCESS)
        << lastError();
    std::vector<int> out(N, -1);
    ASSERT_EQ(Table.enqueue_copy(&copied, session.queue, out.data(), data, N * 4, 1, &second),
              DPK_SUCCESS)
        << lastError();
    ASSERT_EQ(Table.event_wait(1, &copied), DPK_SUCCESS) << lastError();
    dpk_event_status_t status = DPK_EVENT_QUEUED;
    EXPECT_EQ(Table.event_status(&status, first), DPK_SUCCESS);
    EXPECT_EQ(status, DPK_EVENT_COMPLETE);
    for (size_t i = 0; i < N; ++i)
      ASSERT_EQ(out[i], 2) << "at " << i;
    uint64_t ns = 0;
    EXPECT_EQ(Table.event_elapsed_ns(&ns, second), DPK_SUCCESS) << lastError();
    for (dpk_pl_event_t event : {filled, first, second, copied})
      EXPECT_EQ(Table.event_release(event), DPK_SUCCESS);
    Table.kernel_release(kernel);
    Table.mem_free(session.context, data);
  }
}

TEST_P(OpenClBackend, ElapsedTimeNeedsProfiling) {
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device); // no DPK_PL_QUEUE_PROFILING
    void *data = session.alloc(256);
    int zero = 0;
    dpk_pl_event_t filled = nullptr;
    ASSERT_EQ(Table.enqueue_fill(&filled, session.queue, data, &zero, 4, 256, 0, nullptr),
              DPK_SUCCESS);
    ASSERT_EQ(Table.event_wait(1, &filled), DPK_SUCCESS);
    uint64_t ns = 0;
    EXPECT_EQ(Table.event_elapsed_ns(&ns, filled), DPK_ERROR_UNSUPPORTED);
    EXPECT_NE(lastError().find("CL_PROFILING_INFO_NOT_AVAILABLE"), std::string::npos)
        << lastError();
    Table.event_release(filled);
    Table.mem_free(session.context, data);
  }
}

TEST_P(OpenClBackend, BuildFailureCarriesTheLog) {
  const char *broken = "__kernel void broken(__global int *x) { x[0] = undeclared_name; }";
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device);
    dpk_pl_program_t program = nullptr;
    EXPECT_EQ(Table.program_create(&program, session.context, DPK_FORMAT_OPENCL_C, broken,
                                   std::strlen(broken), nullptr),
              DPK_ERROR_COMPILE);
    EXPECT_EQ(program, nullptr);
    int32_t code = 0;
    std::string message = Table.last_error(&code);
    EXPECT_EQ(code, -11);
    EXPECT_NE(message.find("clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)"), std::string::npos)
        << message;
    EXPECT_NE(message.find("undeclared_name"), std::string::npos) << message;
  }
}

TEST_P(OpenClBackend, LaunchErrors) {
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device);
    dpk_pl_kernel_t kernel = session.kernel("addOne");
    ASSERT_NE(kernel, nullptr);
    void *data = session.alloc(1000 * 4);
    dpk_kernel_arg_t args[] = {pointerArg(data), pointerArg(data)};
    dpk_launch_config_t config{1, {1000, 0, 0}, {0, 0, 0}};
    EXPECT_EQ(Table.enqueue_launch(nullptr, session.queue, kernel, &config, 2, args, 0, nullptr),
              DPK_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(lastError().find("takes 1 arguments, 2 given"), std::string::npos) << lastError();
    dpk_pl_program_t program = nullptr;
    ASSERT_EQ(Table.program_create(&program, session.context, DPK_FORMAT_OPENCL_C, VectorAddSource,
                                   std::strlen(VectorAddSource), nullptr),
              DPK_SUCCESS);
    dpk_pl_kernel_t missing = nullptr;
    EXPECT_EQ(Table.kernel_create(&missing, program, "noSuchKernel"), DPK_ERROR_NOT_FOUND);
    EXPECT_NE(lastError().find("CL_INVALID_KERNEL_NAME"), std::string::npos) << lastError();
    Table.program_release(program);
    EXPECT_EQ(Table.program_create(&program, session.context, DPK_FORMAT_PTX, "x", 1, nullptr),
              DPK_ERROR_UNSUPPORTED);
    Table.kernel_release(kernel);
    EXPECT_EQ(Table.mem_free(session.context, static_cast<char *>(data) + 4),
              DPK_ERROR_INVALID_ARGUMENT);
    Table.mem_free(session.context, data);
  }
}

// The buffer strategy's address translation: host pointers are not kernel arguments, pointers
// into an allocation become sub-buffers when aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN.
TEST_P(OpenClBackend, BufferStrategyTranslatesPointers) {
  if (std::string(GetParam()) != "buffer")
    GTEST_SKIP() << "buffer strategy only";
  constexpr size_t N = 4096;
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device);
    dpk_pl_kernel_t kernel = session.kernel("addOne");
    ASSERT_NE(kernel, nullptr);
    void *data = session.alloc(N * 4);
    void *shared = nullptr;
    EXPECT_EQ(Table.mem_alloc(&shared, session.context, DPK_MEM_SHARED, 64, 0),
              DPK_ERROR_UNSUPPORTED);
    std::vector<int> zeros(N, 0);
    session.upload(data, zeros);
    size_t align = std::stoul(extraValue(device.props, "mem_base_addr_align_bytes"));
    ASSERT_LT(align, N);
    void *aligned = static_cast<char *>(data) + align;
    dpk_kernel_arg_t args[] = {pointerArg(aligned)};
    dpk_launch_config_t config{1, {16, 0, 0}, {0, 0, 0}};
    ASSERT_EQ(Table.enqueue_launch(nullptr, session.queue, kernel, &config, 1, args, 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    std::vector<int> back = session.download<int>(data, N);
    for (size_t i = 0; i < N; ++i)
      ASSERT_EQ(back[i], i >= align / 4 && i < align / 4 + 16 ? 1 : 0) << "at " << i;
    void *misaligned = static_cast<char *>(data) + 4;
    args[0] = pointerArg(misaligned);
    EXPECT_EQ(Table.enqueue_launch(nullptr, session.queue, kernel, &config, 1, args, 0, nullptr),
              DPK_ERROR_UNSUPPORTED);
    EXPECT_NE(lastError().find("CL_DEVICE_MEM_BASE_ADDR_ALIGN"), std::string::npos) << lastError();
    void *host = zeros.data();
    args[0] = pointerArg(host);
    EXPECT_EQ(Table.enqueue_launch(nullptr, session.queue, kernel, &config, 1, args, 0, nullptr),
              DPK_ERROR_INVALID_ARGUMENT);
    // A copy that runs past the end of its allocation is refused.
    EXPECT_EQ(Table.enqueue_copy(nullptr, session.queue, static_cast<char *>(data) + 8, zeros.data(), N * 4,
                                 0, nullptr),
              DPK_ERROR_INVALID_ARGUMENT);
    Table.kernel_release(kernel);
    Table.mem_free(session.context, data);
  }
}

// Two threads launching one kernel: argument setting and enqueue must not interleave.
TEST_P(OpenClBackend, ConcurrentLaunchesOfOneKernel) {
  constexpr size_t N = 4096, Rounds = 50;
  for (const Device &device : devices) {
    SCOPED_TRACE(device.props.name);
    Session session(device);
    dpk_pl_kernel_t kernel = session.kernel("addOne");
    ASSERT_NE(kernel, nullptr);
    void *first = session.alloc(N * 4), *second = session.alloc(N * 4);
    std::vector<int> zeros(N, 0);
    session.upload(first, zeros);
    session.upload(second, zeros);
    ASSERT_EQ(Table.queue_finish(session.queue), DPK_SUCCESS);
    auto launchMany = [&](void *data, dpk_status_t *result) {
      dpk_pl_queue_t queue = nullptr;
      *result = Table.queue_create(&queue, session.context, DPK_PL_QUEUE_IN_ORDER);
      dpk_kernel_arg_t args[] = {pointerArg(data)};
      dpk_launch_config_t config{1, {N, 0, 0}, {0, 0, 0}};
      for (size_t r = 0; r < Rounds && *result == DPK_SUCCESS; ++r)
        *result = Table.enqueue_launch(nullptr, queue, kernel, &config, 1, args, 0, nullptr);
      if (queue) {
        Table.queue_finish(queue);
        Table.queue_release(queue);
      }
    };
    dpk_status_t firstStatus = DPK_SUCCESS, secondStatus = DPK_SUCCESS;
    std::thread other(launchMany, second, &secondStatus);
    launchMany(first, &firstStatus);
    other.join();
    ASSERT_EQ(firstStatus, DPK_SUCCESS);
    ASSERT_EQ(secondStatus, DPK_SUCCESS);
    for (void *data : {first, second}) {
      std::vector<int> back = session.download<int>(data, N);
      for (size_t i = 0; i < N; ++i)
        ASSERT_EQ(back[i], int(Rounds)) << "at " << i;
    }
    Table.kernel_release(kernel);
    Table.mem_free(session.context, first);
    Table.mem_free(session.context, second);
  }
}

// queue_get_native: the handles are the queue's own, the memory field names the strategy, and
// a kernel enqueued natively on the in-order queue runs between the plugin's commands (the
// ordering rule native extensions rely on, docs/extensions.md).
TEST_P(OpenClBackend, NativeQueueHandlesAndOrdering) {
  for (const Device &device : devices) {
    std::string memory = extraValue(device.props, "memory");
    SCOPED_TRACE(std::string(device.props.name) + " [" + memory + "]");
    Session session(device);
    dpk_native_queue_t native{};
    native.struct_size = sizeof native;
    ASSERT_EQ(Table.queue_get_native(&native, session.queue), DPK_SUCCESS) << lastError();
    EXPECT_EQ(native.struct_size, sizeof native);
    EXPECT_EQ(native.api, DPK_NATIVE_API_OPENCL);
    EXPECT_EQ(native.order, DPK_NATIVE_ORDER_IN_ORDER);
    EXPECT_EQ(native.arena, nullptr);
    auto queue = static_cast<cl_command_queue>(native.queue);
    ASSERT_NE(queue, nullptr);
    cl_context context = nullptr;
    cl_device_id deviceId = nullptr;
    ASSERT_EQ(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof deviceId, &deviceId, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(context, native.context);
    EXPECT_EQ(deviceId, native.device);
    cl_platform_id platform = nullptr;
    ASSERT_EQ(clGetDeviceInfo(deviceId, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(platform, native.platform);
    dpk_native_memory_t expectedMemory = DPK_NATIVE_MEMORY_CL_BUFFER;
    if (memory.rfind("usm", 0) == 0)
      expectedMemory = DPK_NATIVE_MEMORY_CL_USM;
    else if (memory.rfind("svm", 0) == 0)
      expectedMemory = DPK_NATIVE_MEMORY_CL_SVM;
    EXPECT_EQ(native.memory, expectedMemory);

    // A caller built against a shorter struct gets its prefix and nothing past it.
    dpk_native_queue_t shorter;
    std::memset(&shorter, 0xAB, sizeof shorter);
    shorter.struct_size = offsetof(dpk_native_queue_t, platform);
    ASSERT_EQ(Table.queue_get_native(&shorter, session.queue), DPK_SUCCESS) << lastError();
    EXPECT_EQ(shorter.struct_size, offsetof(dpk_native_queue_t, platform));
    EXPECT_EQ(shorter.api, DPK_NATIVE_API_OPENCL);
    unsigned char untouched[sizeof(void *)];
    std::memset(untouched, 0xAB, sizeof untouched);
    EXPECT_EQ(std::memcmp(&shorter.platform, untouched, sizeof untouched), 0);

    if (native.memory == DPK_NATIVE_MEMORY_CL_BUFFER)
      continue; // an address is no kernel argument there; the ordering is the same queue's
    // plugin fill (7) -> native kernel (x3) -> plugin launch (+1), no events anywhere.
    const size_t n = 1024;
    void *data = session.alloc(n * sizeof(int));
    ASSERT_NE(data, nullptr);
    int seven = 7;
    ASSERT_EQ(Table.enqueue_fill(nullptr, session.queue, data, &seven, sizeof seven,
                                 n * sizeof(int), 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    const char *source = "__kernel void triple(__global int *p) { p[get_global_id(0)] *= 3; }";
    cl_int rc = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &rc);
    ASSERT_EQ(rc, CL_SUCCESS);
    ASSERT_EQ(clBuildProgram(program, 1, &deviceId, "", nullptr, nullptr), CL_SUCCESS);
    cl_kernel triple = clCreateKernel(program, "triple", &rc);
    ASSERT_EQ(rc, CL_SUCCESS);
    if (native.memory == DPK_NATIVE_MEMORY_CL_SVM) {
      ASSERT_EQ(clSetKernelArgSVMPointer(triple, 0, data), CL_SUCCESS);
    } else {
      using SetMemPointer = cl_int (*)(cl_kernel, cl_uint, const void *);
      auto setMemPointer = reinterpret_cast<SetMemPointer>(
          clGetExtensionFunctionAddressForPlatform(platform, "clSetKernelArgMemPointerINTEL"));
      ASSERT_NE(setMemPointer, nullptr);
      ASSERT_EQ(setMemPointer(triple, 0, data), CL_SUCCESS);
    }
    size_t global = n;
    ASSERT_EQ(clEnqueueNDRangeKernel(queue, triple, 1, nullptr, &global, nullptr, 0, nullptr,
                                     nullptr),
              CL_SUCCESS);
    dpk_pl_kernel_t addOne = session.kernel("addOne");
    ASSERT_NE(addOne, nullptr);
    dpk_launch_config_t range{1, {n, 1, 1}, {0, 0, 0}};
    dpk_kernel_arg_t arg = pointerArg(data);
    ASSERT_EQ(Table.enqueue_launch(nullptr, session.queue, addOne, &range, 1, &arg, 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    std::vector<int> back = session.download<int>(data, n);
    EXPECT_EQ(back[0], 22);
    EXPECT_EQ(back[n - 1], 22);
    Table.kernel_release(addOne);
    clReleaseKernel(triple);
    clReleaseProgram(program);
    EXPECT_EQ(Table.mem_free(session.context, data), DPK_SUCCESS) << lastError();
  }
}

INSTANTIATE_TEST_SUITE_P(Memory, OpenClBackend,
                         ::testing::Values("default", "usm", "svm", "buffer"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           return std::string(info.param);
                         });

} // namespace

// Run by CTest with OCL_ICD_VENDORS pointing at an empty folder (see CMakeLists.txt): no
// platform means zero devices and a reason, never a failure.
TEST(OpenClBackendWithoutPlatforms, ReportsZeroDevicesAndWhy) {
  if (!std::getenv("DPK_OPENCL_EXPECT_NO_PLATFORM"))
    GTEST_SKIP() << "needs OCL_ICD_VENDORS pointing at an empty folder";
  void *handle = dlopen(DPK_OPENCL_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto entry = reinterpret_cast<dpk_plugin_get_dispatch_fn>(dlsym(handle, DPK_PLUGIN_ENTRY_SYMBOL));
  dpk_plugin_dispatch_t table{};
  table.struct_size = sizeof table;
  ASSERT_EQ(entry(DPK_PLUGIN_ABI_VERSION, &table), DPK_SUCCESS);
  ASSERT_EQ(table.init(nullptr), DPK_SUCCESS);
  uint32_t count = 99;
  ASSERT_EQ(table.get_devices(&count, nullptr), DPK_SUCCESS);
  EXPECT_EQ(count, 0u);
  EXPECT_NE(std::string(table.no_device_reason()).find("clGetPlatformIDs"), std::string::npos)
      << table.no_device_reason();
  table.shutdown();
}

// NativeQueueTest.cpp - queue_get_native on every plugin with a device: the API matches the
// backend, the handles a native extension needs are there for that API, the ordering rule and
// memory form are known values, and struct_size bounds what is written (docs/extensions.md).
#include "PluginAbi.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace dpk::plugin_abi {
namespace {

dpk_native_api_t expectedApi(const std::string &backend) {
  if (backend == "opencl")
    return DPK_NATIVE_API_OPENCL;
  if (backend == "level_zero")
    return DPK_NATIVE_API_LEVEL_ZERO;
  if (backend == "cuda")
    return DPK_NATIVE_API_CUDA;
  return DPK_NATIVE_API_HOST; // host, and the fault plugin, which runs kernels on the host
}

} // namespace

TEST_P(PluginAbiDevice, NativeQueueHandlesMatchTheBackend) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device);
    ASSERT_NE(session.queue, nullptr);
    dpk_native_queue_t native{};
    native.struct_size = sizeof native;
    ASSERT_EQ(table().queue_get_native(&native, session.queue), DPK_SUCCESS) << lastError();
    EXPECT_EQ(native.struct_size, sizeof native);
    dpk_native_api_t api = expectedApi(backend());
    EXPECT_EQ(native.api, api);
    switch (api) {
    case DPK_NATIVE_API_HOST:
      EXPECT_EQ(native.order, DPK_NATIVE_ORDER_WAIT_THEN_RUN);
      EXPECT_EQ(native.memory, DPK_NATIVE_MEMORY_HOST);
      EXPECT_EQ(native.queue, nullptr);
      EXPECT_EQ(native.context, nullptr);
      if (backend() == "host")
        EXPECT_NE(native.arena, nullptr) << "the host plugin names its task arena";
      break;
    case DPK_NATIVE_API_OPENCL:
      EXPECT_EQ(native.order, DPK_NATIVE_ORDER_IN_ORDER); // an in-order queue was asked for
      EXPECT_TRUE(native.memory == DPK_NATIVE_MEMORY_CL_USM ||
                  native.memory == DPK_NATIVE_MEMORY_CL_SVM ||
                  native.memory == DPK_NATIVE_MEMORY_CL_BUFFER)
          << native.memory;
      EXPECT_NE(native.platform, nullptr);
      EXPECT_NE(native.device, nullptr);
      EXPECT_NE(native.context, nullptr);
      EXPECT_NE(native.queue, nullptr);
      break;
    case DPK_NATIVE_API_LEVEL_ZERO:
      EXPECT_EQ(native.order, DPK_NATIVE_ORDER_BARRIERS);
      EXPECT_EQ(native.memory, DPK_NATIVE_MEMORY_POINTER);
      EXPECT_NE(native.platform, nullptr);
      EXPECT_NE(native.device, nullptr);
      EXPECT_NE(native.context, nullptr);
      EXPECT_NE(native.queue, nullptr);
      break;
    case DPK_NATIVE_API_CUDA:
      EXPECT_EQ(native.order, DPK_NATIVE_ORDER_IN_ORDER);
      EXPECT_EQ(native.memory, DPK_NATIVE_MEMORY_POINTER);
      EXPECT_NE(native.context, nullptr);
      EXPECT_NE(native.queue, nullptr); // dpk's streams are never the legacy default stream
      break;
    }

    // Another queue of the same context has its own native queue (where there is one) and the
    // same context.
    dpk_pl_queue_t second = nullptr;
    ASSERT_EQ(table().queue_create(&second, session.context, 0), DPK_SUCCESS) << lastError();
    dpk_native_queue_t other{};
    other.struct_size = sizeof other;
    ASSERT_EQ(table().queue_get_native(&other, second), DPK_SUCCESS) << lastError();
    EXPECT_EQ(other.context, native.context);
    if (native.queue)
      EXPECT_NE(other.queue, native.queue);
    EXPECT_EQ(table().queue_release(second), DPK_SUCCESS) << lastError();
  });
}

TEST_P(PluginAbiDevice, NativeQueueWritesNoMoreThanStructSize) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device);
    ASSERT_NE(session.queue, nullptr);
    // A caller built when the struct ended before `platform`.
    const size_t shortSize = offsetof(dpk_native_queue_t, platform);
    dpk_native_queue_t shorter;
    std::memset(&shorter, 0x5A, sizeof shorter);
    shorter.struct_size = shortSize;
    ASSERT_EQ(table().queue_get_native(&shorter, session.queue), DPK_SUCCESS) << lastError();
    EXPECT_EQ(shorter.struct_size, shortSize);
    EXPECT_EQ(shorter.api, expectedApi(backend()));
    const auto *tail = reinterpret_cast<const unsigned char *>(&shorter) + shortSize;
    for (size_t i = 0; i < sizeof shorter - shortSize; ++i)
      ASSERT_EQ(tail[i], 0x5A) << "byte " << shortSize + i << " written past struct_size";
  });
}

// queue_create_from_native: CUDA adopts a stream of its context (here another queue's, as it
// would CuPy's): commands on the two plugin queues run in the stream's order, and releasing the
// adopted queue leaves the stream working. Every other backend answers DPK_ERROR_UNSUPPORTED.
TEST_P(PluginAbiDevice, ForeignQueueOverANativeQueue) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device);
    ASSERT_NE(session.queue, nullptr);
    dpk_native_queue_t native{};
    native.struct_size = sizeof native;
    ASSERT_EQ(table().queue_get_native(&native, session.queue), DPK_SUCCESS) << lastError();
    int placeholder = 0;
    if (!native.queue)
      native.queue = &placeholder; // the host has none; the validation layer wants one
    dpk_pl_queue_t adopted = nullptr;
    dpk_status_t status = table().queue_create_from_native(&adopted, session.context, &native);
    if (backend() != "cuda") {
      EXPECT_EQ(status, DPK_ERROR_UNSUPPORTED) << lastError();
      EXPECT_NE(std::string(lastError()).find("queue_create_from_native"), std::string::npos)
          << lastError();
      return;
    }
    ASSERT_EQ(status, DPK_SUCCESS) << lastError();
    dpk_native_queue_t seen{};
    seen.struct_size = sizeof seen;
    ASSERT_EQ(table().queue_get_native(&seen, adopted), DPK_SUCCESS) << lastError();
    EXPECT_EQ(seen.queue, native.queue);

    constexpr size_t n = 1 << 20;
    void *buffer = session.alloc(n * sizeof(uint32_t));
    const uint32_t pattern = 0xC0FFEEu;
    ASSERT_EQ(table().enqueue_fill(nullptr, adopted, buffer, &pattern, sizeof pattern,
                                   n * sizeof(uint32_t), 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    std::vector<uint32_t> host(n, 0);
    // No event between them: the stream orders the copy after the fill.
    ASSERT_EQ(table().enqueue_copy(nullptr, session.queue, host.data(), buffer,
                                   n * sizeof(uint32_t), 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    ASSERT_EQ(table().queue_finish(session.queue), DPK_SUCCESS) << lastError();
    EXPECT_EQ(std::count(host.begin(), host.end(), pattern), static_cast<long>(n));
    ASSERT_EQ(table().queue_release(adopted), DPK_SUCCESS) << lastError();
    // Borrowed: the stream is still the first queue's.
    ASSERT_EQ(table().enqueue_fill(nullptr, session.queue, buffer, &pattern, sizeof pattern, 4, 0,
                                   nullptr),
              DPK_SUCCESS)
        << lastError();
    EXPECT_EQ(table().queue_finish(session.queue), DPK_SUCCESS) << lastError();
  });
}

} // namespace dpk::plugin_abi

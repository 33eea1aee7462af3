// EventTest.cpp - events (wait, status, dependencies, profiling, early release) and the
// last_error contract after a failure the plugin itself reports, on every plugin with a device.
#include "PluginAbi.h"

#include <cstdint>

namespace dpk::plugin_abi {

TEST_P(PluginAbiDevice, EventsCompleteAndOrderCommands) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device, DPK_PL_QUEUE_OUT_OF_ORDER);
    ASSERT_NE(session.queue, nullptr);
    const size_t n = 1 << 16;
    void *ptr = session.alloc(n * sizeof(uint32_t));
    ASSERT_NE(ptr, nullptr);
    uint32_t pattern = 0xC0FFEE11u;
    dpk_pl_event_t filled = nullptr, copied = nullptr;
    ASSERT_EQ(table().enqueue_fill(&filled, session.queue, ptr, &pattern, sizeof pattern,
                                   n * sizeof(uint32_t), 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    ASSERT_NE(filled, nullptr);
    // Out of order: only the dependency orders the copy after the fill.
    std::vector<uint32_t> back(n, 0);
    ASSERT_EQ(table().enqueue_copy(&copied, session.queue, back.data(), ptr, n * sizeof(uint32_t), 1,
                                   &filled),
              DPK_SUCCESS)
        << lastError();
    dpk_pl_event_t both[] = {filled, copied};
    ASSERT_EQ(table().event_wait(2, both), DPK_SUCCESS) << lastError();
    for (dpk_pl_event_t event : both) {
      dpk_event_status_t status = DPK_EVENT_QUEUED;
      EXPECT_EQ(table().event_status(&status, event), DPK_SUCCESS) << lastError();
      EXPECT_EQ(status, DPK_EVENT_COMPLETE);
    }
    EXPECT_EQ(back[0], pattern);
    EXPECT_EQ(back[n - 1], pattern);
    EXPECT_EQ(table().event_wait(0, nullptr), DPK_SUCCESS) << lastError(); // nothing to wait for
    for (dpk_pl_event_t event : both)
      EXPECT_EQ(table().event_release(event), DPK_SUCCESS) << lastError();
    EXPECT_EQ(table().mem_free(session.context, ptr), DPK_SUCCESS) << lastError();
  });
}

// Empty commands still order and signal; an event may be released before its command ran.
TEST_P(PluginAbiDevice, EmptyCommandsAndEarlyRelease) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device);
    ASSERT_NE(session.queue, nullptr);
    void *ptr = session.alloc(4096);
    ASSERT_NE(ptr, nullptr);
    uint64_t pattern = 7;
    dpk_pl_event_t filled = nullptr, copied = nullptr;
    ASSERT_EQ(table().enqueue_fill(&filled, session.queue, ptr, &pattern, sizeof pattern, 0, 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    ASSERT_EQ(table().enqueue_copy(&copied, session.queue, ptr, ptr, 0, 1, &filled), DPK_SUCCESS)
        << lastError();
    ASSERT_EQ(table().event_wait(1, &copied), DPK_SUCCESS) << lastError();
    EXPECT_EQ(table().event_release(filled), DPK_SUCCESS) << lastError();
    EXPECT_EQ(table().event_release(copied), DPK_SUCCESS) << lastError();
    dpk_pl_event_t early = nullptr;
    ASSERT_EQ(table().enqueue_fill(&early, session.queue, ptr, &pattern, sizeof pattern, 4096, 0, nullptr),
              DPK_SUCCESS)
        << lastError();
    EXPECT_EQ(table().event_release(early), DPK_SUCCESS) << lastError();
    EXPECT_EQ(table().queue_finish(session.queue), DPK_SUCCESS) << lastError();
    EXPECT_EQ(table().mem_free(session.context, ptr), DPK_SUCCESS) << lastError();
  });
}

// Nanoseconds on a profiling queue, or DPK_ERROR_UNSUPPORTED where the plugin cannot time.
TEST_P(PluginAbiDevice, ElapsedTimeOnAProfilingQueue) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device, DPK_PL_QUEUE_PROFILING);
    ASSERT_NE(session.queue, nullptr);
    void *ptr = session.alloc(1 << 20);
    ASSERT_NE(ptr, nullptr);
    uint32_t pattern = 1;
    dpk_pl_event_t filled = nullptr;
    ASSERT_EQ(table().enqueue_fill(&filled, session.queue, ptr, &pattern, sizeof pattern, 1 << 20, 0,
                                   nullptr),
              DPK_SUCCESS)
        << lastError();
    ASSERT_EQ(table().event_wait(1, &filled), DPK_SUCCESS) << lastError();
    uint64_t ns = UINT64_MAX;
    dpk_status_t status = table().event_elapsed_ns(&ns, filled);
    if (status == DPK_SUCCESS) {
      EXPECT_NE(ns, UINT64_MAX);
    } else {
      EXPECT_EQ(status, DPK_ERROR_UNSUPPORTED) << lastError();
    }
    EXPECT_EQ(table().event_release(filled), DPK_SUCCESS) << lastError();
    EXPECT_EQ(table().mem_free(session.context, ptr), DPK_SUCCESS) << lastError();
  });
}

// A failure the plugin reports (the arguments are valid, the device refuses the artifact's
// format): a status, a message in last_error(), the out-parameter untouched, and the core's
// error naming the plugin.
TEST_P(PluginAbiDevice, LastErrorAfterAFailure) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device);
    ASSERT_NE(session.context, nullptr);
    dpk_artifact_format_t refused = DPK_FORMAT_HOST_NATIVE;
    for (dpk_artifact_format_t format :
         {DPK_FORMAT_HOST_NATIVE, DPK_FORMAT_SPIRV, DPK_FORMAT_OPENCL_C, DPK_FORMAT_PTX}) {
      if (!(device.props.formats & format)) {
        refused = format;
        break;
      }
    }
    ASSERT_FALSE(device.props.formats & refused) << "the device accepts every format";
    dpk_pl_program_t program = fakeHandle<dpk_pl_program_t>();
    const char text[] = "not an artifact";
    dpk_status_t status =
        table().program_create(&program, session.context, refused, text, sizeof text, nullptr);
    EXPECT_EQ(status, DPK_ERROR_UNSUPPORTED);
    EXPECT_EQ(runtime::lastValidationFailure(), nullptr) << "the plugin was never asked";
    EXPECT_EQ(program, fakeHandle<dpk_pl_program_t>()) << "the out-parameter was written";
    int32_t native = -1;
    std::string message = table().last_error(&native);
    EXPECT_NE(message, "");
    EXPECT_NE(native, -1);
    EXPECT_NE(table().last_error(nullptr), nullptr); // the native code is optional
    Error error = plugin().check(status, "building a program");
    EXPECT_EQ(error.status(), status);
    EXPECT_NE(error.message().find(message), std::string::npos) << error.message();
    EXPECT_NE(error.message().find("[" + backend() + " plugin"), std::string::npos)
        << error.message();
  });
}

} // namespace dpk::plugin_abi

// ErrorPathTest.cpp - every entry point rejects null and stale handles and bad arguments with a
// status and a message naming the entry point; nothing crashes, out-parameters stay untouched.
#include "DpkTest.h"
#include "HostKernels.h"

#include <cstring>
#include <string>

using namespace dpk::test;

TEST(StatusNames, EveryStatusHasItsName) {
  EXPECT_STREQ(dpk_status_name(DPK_SUCCESS), "DPK_SUCCESS");
  EXPECT_STREQ(dpk_status_name(DPK_ERROR_INVALID_RANGE), "DPK_ERROR_INVALID_RANGE");
  EXPECT_STREQ(dpk_status_name(DPK_ERROR_INVALID_HANDLE), "DPK_ERROR_INVALID_HANDLE");
  EXPECT_STREQ(dpk_status_name(DPK_ERROR_OUT_OF_BOUNDS), "DPK_ERROR_OUT_OF_BOUNDS");
  EXPECT_STREQ(dpk_status_name(static_cast<dpk_status_t>(-1000)), "DPK_STATUS_UNKNOWN");
  EXPECT_STREQ(dpk_status_name(DPK_ERROR_LINK), "DPK_ERROR_LINK");
  for (int code = 0; code >= -20; --code)
    EXPECT_NE(std::string(dpk_status_name(static_cast<dpk_status_t>(code))), "DPK_STATUS_UNKNOWN");
}

TEST(LastError, IsClearedBySuccessAndNamesTheEntryPoint) {
  DPK_ASSERT_OK(dpk_init());
  EXPECT_STREQ(dpk_last_error(), "");
  DPK_EXPECT_STATUS(dpk_queue_wait(nullptr), DPK_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(lastErrorHas("dpk_queue_wait")) << dpk_last_error();
  uint32_t count = 0;
  DPK_ASSERT_OK(dpk_device_count(&count));
  EXPECT_STREQ(dpk_last_error(), "");
  EXPECT_EQ(dpk_last_error_native_code(), 0);
}

TEST(NullArguments, AreInvalidArgumentsOrHandles) {
  DPK_EXPECT_STATUS(dpk_device_count(nullptr), DPK_ERROR_INVALID_ARGUMENT);
  DPK_EXPECT_STATUS(dpk_device_get(nullptr, 0), DPK_ERROR_INVALID_ARGUMENT);
  DPK_EXPECT_STATUS(dpk_device_select(nullptr, "host"), DPK_ERROR_INVALID_ARGUMENT);
  dpk_device_info_t info{};
  info.struct_size = sizeof(info);
  DPK_EXPECT_STATUS(dpk_device_get_info(&info, nullptr), DPK_ERROR_INVALID_HANDLE);
  dpk_queue_t queue = nullptr;
  DPK_EXPECT_STATUS(dpk_queue_create(&queue, nullptr, 0), DPK_ERROR_INVALID_HANDLE);
  EXPECT_EQ(queue, nullptr);
  DPK_EXPECT_STATUS(dpk_queue_release(nullptr), DPK_ERROR_INVALID_HANDLE);
  EXPECT_EQ(dpk_queue_device(nullptr), nullptr);
  DPK_EXPECT_STATUS(dpk_event_wait(1, nullptr), DPK_ERROR_INVALID_ARGUMENT);
  dpk_event_t nullEvent = nullptr;
  DPK_EXPECT_STATUS(dpk_event_wait(1, &nullEvent), DPK_ERROR_INVALID_HANDLE);
  DPK_EXPECT_STATUS(dpk_event_release(nullptr), DPK_ERROR_INVALID_HANDLE);
  DPK_EXPECT_STATUS(dpk_program_create_from_ir(nullptr, "", 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  dpk_program_t program = nullptr;
  DPK_EXPECT_STATUS(dpk_program_create_from_ir(&program, nullptr, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  DPK_EXPECT_STATUS(dpk_program_create_from_host(&program, nullptr, 1),
                    DPK_ERROR_INVALID_ARGUMENT);
  dpk_kernel_t kernel = nullptr;
  DPK_EXPECT_STATUS(dpk_kernel_get(&kernel, nullptr, "k"), DPK_ERROR_INVALID_HANDLE);
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr),
                    DPK_ERROR_INVALID_HANDLE);
  DPK_EXPECT_STATUS(dpk_mem_free(nullptr), DPK_SUCCESS); // like free(NULL)
}

TEST(Handles, WrongKindIsRejected) {
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  // A queue passed where an event or a program is expected.
  dpk_event_t notAnEvent = reinterpret_cast<dpk_event_t>(queue);
  DPK_EXPECT_STATUS(dpk_event_wait(1, &notAnEvent), DPK_ERROR_INVALID_HANDLE);
  dpk_kernel_t kernel = nullptr;
  DPK_EXPECT_STATUS(dpk_kernel_get(&kernel, reinterpret_cast<dpk_program_t>(queue), "k"),
                    DPK_ERROR_INVALID_HANDLE);
  int notADevice = 0;
  DPK_EXPECT_STATUS(dpk_queue_create(&queue, reinterpret_cast<dpk_device_t>(&notADevice), 0),
                    DPK_ERROR_INVALID_HANDLE);
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST(Devices, EnumerationSelectionAndInfo) {
  uint32_t count = 0;
  DPK_ASSERT_OK(dpk_device_count(&count));
  ASSERT_GE(count, 1u);
  dpk_device_t device = nullptr;
  DPK_EXPECT_STATUS(dpk_device_get(&device, count), DPK_ERROR_NOT_FOUND);
  EXPECT_EQ(device, nullptr);
  DPK_ASSERT_OK(dpk_device_get(&device, 0));
  dpk_device_info_t info{};
  info.struct_size = 8;
  DPK_EXPECT_STATUS(dpk_device_get_info(&info, device), DPK_ERROR_INVALID_ARGUMENT);
  info.struct_size = sizeof(info);
  DPK_ASSERT_OK(dpk_device_get_info(&info, device));
  EXPECT_GT(std::strlen(info.name), 0u);
  EXPECT_GT(info.max_work_group_size, 0u);
  DPK_ASSERT_OK(dpk_device_retain(device));
  DPK_ASSERT_OK(dpk_device_release(device));

  DPK_REQUIRE_DEVICE(host, "host");
  DPK_ASSERT_OK(dpk_device_get_info(&info, host));
  EXPECT_STREQ(info.backend, "host");
  EXPECT_STREQ(info.filter_string, "host:cpu:0");
  EXPECT_TRUE(info.formats & DPK_FORMAT_HOST_NATIVE);
  uint32_t subGroup = 0;
  DPK_ASSERT_OK(dpk_device_get_sub_group_size(&subGroup, host));
  EXPECT_EQ(subGroup, 1u); // the host's sub-groups are single work-items
  DPK_EXPECT_STATUS(dpk_device_get_sub_group_size(nullptr, host), DPK_ERROR_INVALID_ARGUMENT);
  DPK_EXPECT_STATUS(dpk_device_get_sub_group_size(&subGroup, nullptr), DPK_ERROR_INVALID_HANDLE);
}

TEST(Devices, MalformedFilterPointsAtTheBadCharacter) {
  dpk_device_t device = nullptr;
  DPK_EXPECT_STATUS(dpk_device_select(&device, "host,opecl:gpu"), DPK_ERROR_PARSE);
  EXPECT_TRUE(lastErrorHas("opecl")) << dpk_last_error();
  EXPECT_TRUE(lastErrorHas("column")) << dpk_last_error();
  EXPECT_EQ(device, nullptr);
}

TEST(Programs, HostEntriesAreValidated) {
  dpk_program_t program = nullptr;
  dpk_host_kernel_entry_t noName = TestKernels[0];
  noName.name = nullptr;
  DPK_EXPECT_STATUS(dpk_program_create_from_host(&program, &noName, 1),
                    DPK_ERROR_INVALID_ARGUMENT);
  dpk_host_kernel_entry_t twice[2] = {TestKernels[0], TestKernels[0]};
  DPK_EXPECT_STATUS(dpk_program_create_from_host(&program, twice, 2), DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("two host kernel entries are named 'iota'")) << dpk_last_error();
  DPK_EXPECT_STATUS(dpk_program_create_from_host(&program, TestKernels, 0),
                    DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(program, nullptr);

  DPK_ASSERT_OK(dpk_program_create_from_host(&program, TestKernels, NumTestKernels));
  dpk_kernel_t kernel = nullptr;
  DPK_EXPECT_STATUS(dpk_kernel_get(&kernel, program, "nope"), DPK_ERROR_NOT_FOUND);
  EXPECT_TRUE(lastErrorHas("'nope'")) << dpk_last_error();
  DPK_ASSERT_OK(dpk_kernel_get(&kernel, program, "iota"));
  // The kernel keeps its program alive.
  DPK_ASSERT_OK(dpk_program_release(program));
  DPK_REQUIRE_DEVICE(host, "host");
  dpk_queue_t queue;
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  void *x = nullptr;
  DPK_ASSERT_OK(dpk_mem_alloc(&x, host, DPK_MEM_SHARED, 64 * 4));
  dpk_arg_t arg = pointerArg(x);
  dpk_launch_config_t range = range1d(64);
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue, kernel, &range, 1, &arg, 0, nullptr));
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue, kernel, &range, 1, nullptr, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  dpk_arg_t badKind = {static_cast<dpk_arg_kind_t>(42), 0, nullptr};
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue, kernel, &range, 1, &badKind, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("argument 0 has unknown kind 42")) << dpk_last_error();
  DPK_ASSERT_OK(dpk_queue_wait(queue));
  DPK_ASSERT_OK(dpk_kernel_release(kernel));
  DPK_ASSERT_OK(dpk_mem_free(x));
  DPK_ASSERT_OK(dpk_queue_release(queue));
}

TEST(Programs, SpirvNeedsADeviceThatTakesIt) {
  DPK_REQUIRE_DEVICE(host, "host");
  uint32_t words[5] = {0x07230203, 0x00010000, 0, 1, 0};
  dpk_program_t program = nullptr;
  DPK_EXPECT_STATUS(dpk_program_create_from_spirv(&program, host, words, sizeof(words)),
                    DPK_ERROR_UNSUPPORTED);
  EXPECT_TRUE(lastErrorHas("does not accept SPIR-V")) << dpk_last_error();
}

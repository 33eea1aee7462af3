// LinkProgramTest.cpp - dpk_program_options_t's link_files (docs/linking.md): an IR program with
// an `extern func` runs on the host with its .ll linked; a file no host target can use, a
// missing file and a missing symbol fail with DPK_ERROR_LINK / DPK_ERROR_NOT_FOUND, and an older
// caller's shorter struct (without the link fields) is still accepted.
#include "DpkTest.h"
#include "HostKernels.h"

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

using namespace dpk::test;

namespace {

const char *const LinkedIr = R"(
extern func @my_add(%a: i32, %b: i32) -> i32
kernel @add_seven(%x: ptr<global, i32>) {
  %i = global_id 0 : i64
  %a = load %x[%i] : i32
  %c = const 7 : i32
  %s = call @my_add(%a, %c) : i32
  store %x[%i], %s
  return
}
)";

std::string dataPath(const char *name) { return std::string(DPK_LINK_DATA_DIR) + "/" + name; }

dpk_status_t createLinked(dpk_program_t *program, const std::vector<std::string> &files) {
  std::vector<const char *> paths;
  for (const std::string &file : files)
    paths.push_back(file.c_str());
  dpk_program_options_t options{};
  options.struct_size = sizeof(options);
  options.link_files = paths.data();
  options.num_link_files = paths.size();
  return dpk_program_create_from_ir_with_options(program, LinkedIr, std::strlen(LinkedIr),
                                                 "linked.dpkir", &options);
}

/// Launches add_seven over 16 int32 on the host; returns the launch's status and, in
/// lastMessage, its dpk_last_error() (the cleanup's calls clear it).
std::string lastMessage;
dpk_status_t runOnHost(dpk_program_t program, std::vector<int32_t> &out) {
  dpk_device_t host = findDevice("host");
  if (!host)
    return DPK_ERROR_NO_DEVICE;
  dpk_kernel_t kernel = nullptr;
  dpk_status_t status = dpk_kernel_get(&kernel, program, "add_seven");
  if (status != DPK_SUCCESS)
    return status;
  dpk_queue_t queue = nullptr;
  void *x = nullptr;
  DPK_EXPECT_STATUS(dpk_queue_create(&queue, host, 0), DPK_SUCCESS);
  DPK_EXPECT_STATUS(dpk_mem_alloc(&x, host, DPK_MEM_SHARED, out.size() * sizeof(int32_t)),
                    DPK_SUCCESS);
  for (size_t i = 0; i < out.size(); ++i)
    static_cast<int32_t *>(x)[i] = int32_t(i);
  dpk_arg_t args[] = {pointerArg(x)};
  dpk_launch_config_t range = range1d(out.size());
  status = dpk_enqueue_launch(nullptr, queue, kernel, &range, 1, args, 0, nullptr);
  if (status == DPK_SUCCESS)
    status = dpk_queue_wait(queue);
  lastMessage = dpk_last_error();
  std::memcpy(out.data(), x, out.size() * sizeof(int32_t));
  dpk_mem_free(x);
  dpk_queue_release(queue);
  dpk_kernel_release(kernel);
  return status;
}

} // namespace

TEST(LinkProgram, LinkedLlvmIrRunsOnTheHost) {
  if (!findDevice("host"))
    GTEST_SKIP() << "no host device: " << dpk_last_error();
  dpk_program_t program = nullptr;
  DPK_ASSERT_OK(createLinked(&program, {dataPath("my_math.cl"), dataPath("my_math.ll")}));
  std::vector<int32_t> out(16);
  DPK_EXPECT_STATUS(runOnHost(program, out), DPK_SUCCESS);
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], int32_t(i) + 7) << i;
  dpk_program_release(program);
}

TEST(LinkProgram, ErrorsNameFileSymbolAndDevice) {
  if (!findDevice("host"))
    GTEST_SKIP() << "no host device: " << dpk_last_error();
  dpk_program_t program = nullptr;
  // OpenCL C cannot serve the host: the build (at the launch) fails.
  DPK_ASSERT_OK(createLinked(&program, {dataPath("my_math.cl")}));
  std::vector<int32_t> out(16);
  dpk_status_t status = runOnHost(program, out);
  EXPECT_EQ(status, DPK_ERROR_LINK);
  std::string message = lastMessage;
  EXPECT_NE(message.find("my_math.cl"), std::string::npos) << message;
  EXPECT_NE(message.find("'my_add'"), std::string::npos) << message;
  EXPECT_NE(message.find("host"), std::string::npos) << message;
  dpk_program_release(program);

  // A definition of another type.
  DPK_ASSERT_OK(createLinked(&program, {dataPath("wrong_sig.ll")}));
  EXPECT_EQ(runOnHost(program, out), DPK_ERROR_LINK);
  message = lastMessage;
  EXPECT_NE(message.find("wrong_sig.ll: symbol 'my_add' is defined as i64 (i64, i64)"),
            std::string::npos)
      << message;
  dpk_program_release(program);

  // Files are read at creation.
  program = nullptr;
  EXPECT_EQ(createLinked(&program, {dataPath("absent.ll")}), DPK_ERROR_NOT_FOUND);
  EXPECT_EQ(createLinked(&program, {dataPath("notes.txt")}), DPK_ERROR_LINK);
  EXPECT_EQ(program, nullptr);
}

TEST(LinkProgram, OlderStructWithoutLinkFieldsIsAccepted) {
  const char *const plain = "kernel @k(%x: ptr<global, i32>) {\n  return\n}\n";
  dpk_program_options_t options{};
  options.struct_size = offsetof(dpk_program_options_t, link_files);
  dpk_program_t program = nullptr;
  DPK_EXPECT_STATUS(dpk_program_create_from_ir_with_options(&program, plain, std::strlen(plain),
                                                            "k", &options),
                    DPK_SUCCESS);
  if (program)
    dpk_program_release(program);
}

// ErrorTest.cpp - error paths: launches with a bad range or bad arguments on every device, and
// IR that does not parse or verify (device-independent).
#include "Conformance.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace dpk::conformance {
namespace {

CONFORMANCE_TEST(NonDividingNdRange) {
  dpk_kernel_t kernel = t.corpusKernel("wg_reduction.dpkir", "wg_reduction");
  ASSERT_NE(kernel, nullptr);
  void *in = t.alloc(1000 * 4), *partial = t.alloc(64 * 4);
  dpk_status_t status = t.launch(kernel, t.ndRange1(1000, 64), {t.pointer(in), t.pointer(partial)});
  EXPECT_EQ(status, DPK_ERROR_INVALID_RANGE) << lastError(status);
}

CONFORMANCE_TEST(WrongArgumentCount) {
  dpk_kernel_t kernel = t.corpusKernel("vector_add.dpkir", "vector_add");
  ASSERT_NE(kernel, nullptr);
  void *a = t.alloc(64 * 4);
  dpk_status_t status = t.launch(kernel, t.range1(64), {t.pointer(a), t.pointer(a)});
  EXPECT_EQ(status, DPK_ERROR_INVALID_ARGUMENT) << lastError(status);
}

CONFORMANCE_TEST(WrongArgumentKind) {
  dpk_kernel_t kernel = t.corpusKernel("vector_add.dpkir", "vector_add");
  ASSERT_NE(kernel, nullptr);
  void *a = t.alloc(64 * 4);
  float notAPointer = 1.0f;
  dpk_status_t status =
      t.launch(kernel, t.range1(64), {t.pointer(a), t.pointer(a), t.scalar(notAPointer)});
  EXPECT_EQ(status, DPK_ERROR_INVALID_ARGUMENT) << lastError(status);
}

std::string readInvalid(const std::string &file) {
  std::ifstream in(std::string(DPK_IR_INVALID_DIR) + "/" + file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Runtime, HasDevices) {
  uint32_t count = 0;
  dpk_status_t status = dpk_device_count(&count);
  ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
  EXPECT_GT(count, 0u) << "the runtime exposes no device: the conformance suite tests nothing";
}

TEST(Runtime, MalformedIrIsAParseError) {
  const char *text = "kernel @broken(%a: ptr<global, f32> {\n  return\n}\n";
  dpk_program_t program = nullptr;
  dpk_status_t status = dpk_program_create_from_ir(&program, text, std::strlen(text), "broken");
  EXPECT_EQ(status, DPK_ERROR_PARSE) << lastError(status);
  EXPECT_EQ(program, nullptr);
  std::string pinned = readInvalid("invalid-parse-syntax.dpkir");
  if (pinned.empty())
    GTEST_SKIP() << "tests/ir/invalid/invalid-parse-syntax.dpkir is missing";
  status = dpk_program_create_from_ir(&program, pinned.data(), pinned.size(), "syntax");
  EXPECT_EQ(status, DPK_ERROR_PARSE) << lastError(status);
}

TEST(Runtime, IllTypedIrIsAVerifyError) {
  std::string text = readInvalid("invalid-binary-types.dpkir");
  ASSERT_FALSE(text.empty()) << "tests/ir/invalid/invalid-binary-types.dpkir is missing";
  dpk_program_t program = nullptr;
  dpk_status_t status = dpk_program_create_from_ir(&program, text.data(), text.size(), "types");
  EXPECT_EQ(status, DPK_ERROR_VERIFY) << lastError(status);
  EXPECT_EQ(program, nullptr);
}

} // namespace
} // namespace dpk::conformance

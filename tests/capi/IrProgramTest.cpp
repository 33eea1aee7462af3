// IrProgramTest.cpp - programs from IR text: parse and verify errors, kernel lookup, signature
// checks (count, kind, scalar size, views), NdRange validation, and real runs on the host.
#include "DpkTest.h"
#include "HostKernels.h"

#include <cstring>
#include <string>
#include <vector>

using namespace dpk::test;

namespace {

const char *const IrText = R"(
kernel @vector_add(%a: ptr<global, f32>, %b: ptr<global, f32>, %c: ptr<global, f32>) {
  %i = global_id 0 : i64
  %x = load %a[%i] : f32
  %y = load %b[%i] : f32
  %s = add %x, %y : f32
  store %c[%i], %s
  return
}
kernel @scale(%v: view<global, f32, 1>, %k: f32) {
  %i = global_id 0 : i64
  %x = view_load %v[%i] : f32
  %y = mul %x, %k : f32
  view_store %v[%i], %y
  return
}
)";

class IrProgram : public ::testing::Test {
protected:
  void SetUp() override {
    host_ = findDevice("host");
    if (!host_)
      GTEST_SKIP() << "no host device: " << dpk_last_error();
    DPK_ASSERT_OK(dpk_program_create_from_ir(&program_, IrText, std::strlen(IrText), "test.dpkir"));
    DPK_ASSERT_OK(dpk_kernel_get(&add_, program_, "vector_add"));
    DPK_ASSERT_OK(dpk_kernel_get(&scale_, program_, "scale"));
    DPK_ASSERT_OK(dpk_queue_create(&queue_, host_, 0));
    for (void **p : {&a_, &b_, &c_})
      DPK_ASSERT_OK(dpk_mem_alloc(p, host_, DPK_MEM_SHARED, N * sizeof(float)));
    for (size_t i = 0; i < N; ++i) {
      static_cast<float *>(a_)[i] = float(i);
      static_cast<float *>(b_)[i] = 0.5f * float(i);
    }
  }
  void TearDown() override {
    for (void *p : {a_, b_, c_})
      if (p)
        dpk_mem_free(p);
    if (queue_)
      dpk_queue_release(queue_);
    for (dpk_kernel_t k : {add_, scale_})
      if (k)
        dpk_kernel_release(k);
    if (program_)
      dpk_program_release(program_);
  }

  static constexpr size_t N = 1024;
  dpk_device_t host_ = nullptr;
  dpk_program_t program_ = nullptr;
  dpk_kernel_t add_ = nullptr, scale_ = nullptr;
  dpk_queue_t queue_ = nullptr;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
};

} // namespace

TEST_F(IrProgram, VectorAddRunsAsRangeAndNdRange) {
  dpk_arg_t args[] = {pointerArg(a_), pointerArg(b_), pointerArg(c_)};
  dpk_launch_config_t range = range1d(N);
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue_, add_, &range, 3, args, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(queue_));
  const float *c = static_cast<const float *>(c_);
  for (size_t i = 0; i < N; ++i)
    ASSERT_EQ(c[i], 1.5f * float(i)) << "at " << i;
  std::memset(c_, 0, N * sizeof(float));
  dpk_launch_config_t ndRange = ndRange1d(N, 64);
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue_, add_, &ndRange, 3, args, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(queue_));
  for (size_t i = 0; i < N; ++i)
    ASSERT_EQ(c[i], 1.5f * float(i)) << "at " << i;
}

TEST_F(IrProgram, ViewArgumentsExpandToPointerShapeAndStrides) {
  dpk_view_arg_t view = {a_, 1, {int64_t(N), 0, 0}, {1, 0, 0}};
  float k = 2.0f;
  dpk_arg_t args[] = {{DPK_ARG_VIEW, 0, &view}, {DPK_ARG_SCALAR, sizeof(k), &k}};
  dpk_launch_config_t range = range1d(N);
  DPK_ASSERT_OK(dpk_enqueue_launch(nullptr, queue_, scale_, &range, 2, args, 0, nullptr));
  DPK_ASSERT_OK(dpk_queue_wait(queue_));
  for (size_t i = 0; i < N; ++i)
    ASSERT_EQ(static_cast<const float *>(a_)[i], 2.0f * float(i));
}

TEST_F(IrProgram, WrongArgumentCountNamesTheKernel) {
  dpk_arg_t args[] = {pointerArg(a_), pointerArg(b_)};
  dpk_launch_config_t range = range1d(N);
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue_, add_, &range, 2, args, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("kernel 'vector_add' takes 3 parameters")) << dpk_last_error();
}

TEST_F(IrProgram, WrongArgumentKindNamesTheArgument) {
  float scalar = 1.0f;
  dpk_arg_t args[] = {pointerArg(a_), {DPK_ARG_SCALAR, sizeof(scalar), &scalar}, pointerArg(c_)};
  dpk_launch_config_t range = range1d(N);
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue_, add_, &range, 3, args, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("argument 1 for parameter 1 ('b': ptr<global, f32>) must be a pointer"))
      << dpk_last_error();
}

TEST_F(IrProgram, WrongScalarSizeAndViewRank) {
  double k = 2.0;
  dpk_view_arg_t view = {a_, 1, {int64_t(N), 0, 0}, {1, 0, 0}};
  dpk_arg_t args[] = {{DPK_ARG_VIEW, 0, &view}, {DPK_ARG_SCALAR, sizeof(k), &k}};
  dpk_launch_config_t range = range1d(N);
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue_, scale_, &range, 2, args, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(lastErrorHas("must be a scalar of 4 bytes, got 8")) << dpk_last_error();
  dpk_view_arg_t twoD = {a_, 2, {32, 32, 0}, {32, 1, 0}};
  float k32 = 2.0f;
  dpk_arg_t args2[] = {{DPK_ARG_VIEW, 0, &twoD}, {DPK_ARG_SCALAR, sizeof(k32), &k32}};
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue_, scale_, &range, 2, args2, 0, nullptr),
                    DPK_ERROR_INVALID_ARGUMENT);
}

TEST_F(IrProgram, NonDividingNdRangeIsAnInvalidRange) {
  dpk_arg_t args[] = {pointerArg(a_), pointerArg(b_), pointerArg(c_)};
  dpk_launch_config_t config = ndRange1d(1000, 64);
  DPK_EXPECT_STATUS(dpk_enqueue_launch(nullptr, queue_, add_, &config, 3, args, 0, nullptr),
                    DPK_ERROR_INVALID_RANGE);
  EXPECT_TRUE(lastErrorHas("local size 64 does not divide global size 1000 in dimension 0"))
      << dpk_last_error();
}

TEST_F(IrProgram, UnknownKernelListsTheKernels) {
  dpk_kernel_t kernel = nullptr;
  DPK_EXPECT_STATUS(dpk_kernel_get(&kernel, program_, "vector_sub"), DPK_ERROR_NOT_FOUND);
  EXPECT_TRUE(lastErrorHas("'vector_add'")) << dpk_last_error();
  EXPECT_EQ(kernel, nullptr);
}

TEST(IrErrors, ParseErrorNamesLineAndColumn) {
  const char *bad = "kernel @k() {\n  %i = global_idd 0 : i64\n  return\n}\n";
  dpk_program_t program = nullptr;
  DPK_EXPECT_STATUS(dpk_program_create_from_ir(&program, bad, std::strlen(bad), "bad.dpkir"),
                    DPK_ERROR_PARSE);
  EXPECT_TRUE(lastErrorHas("bad.dpkir:2:")) << dpk_last_error();
  EXPECT_EQ(program, nullptr);
}

TEST(IrErrors, VerifyErrorIsReported) {
  // Stores an f64 into an f32 pointer.
  const char *bad = "kernel @k(%p: ptr<global, f32>) {\n  %i = global_id 0 : i64\n"
                    "  %x = const 1.0 : f64\n  store %p[%i], %x\n  return\n}\n";
  dpk_program_t program = nullptr;
  dpk_status_t status = dpk_program_create_from_ir(&program, bad, std::strlen(bad), "v.dpkir");
  EXPECT_TRUE(status == DPK_ERROR_VERIFY || status == DPK_ERROR_PARSE)
      << dpk_status_name(status) << ": " << dpk_last_error();
  EXPECT_EQ(program, nullptr);
}

// StrideSpecializationTest.cpp - launches of an IR kernel specialize on unit innermost view
// strides: a contiguous view and a transposed view of the same data both give correct results,
// and each mask gets its own build (one "kernel.compile" record each, none for a repeat).
#include "DpkTest.h"

#include "diagnostics/Diagnostics.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace dpk::test;

namespace {

const char *const ScaleIr = R"(kernel @scale2d(%src: view<global, f32, 2>, %dst: view<global, f32, 2>) {
  %i = global_id 0 : i64
  %j = global_id 1 : i64
  %v = view_load %src[%i, %j] : f32
  %two = const 0x1p+1 : f32
  %r = mul %v, %two : f32
  view_store %dst[%i, %j], %r
  return
}
)";

void collectRecord(int, const char *json, void *payload) {
  static_cast<std::vector<std::string> *>(payload)->push_back(json);
}

dpk_arg_t viewArg(const dpk_view_arg_t &view) {
  dpk_arg_t arg{};
  arg.kind = DPK_ARG_VIEW;
  arg.value = &view;
  return arg;
}

} // namespace

TEST(StrideSpecialization, ContiguousThenTransposedViewsGetTheirOwnBuilds) {
  dpk_device_t host = findDevice("host");
  if (!host)
    GTEST_SKIP() << "no host device: " << dpk_last_error();
  const int64_t rows = 37, cols = 53;
  dpk_program_t program = nullptr;
  dpk_kernel_t kernel = nullptr;
  dpk_queue_t queue = nullptr;
  float *a = nullptr, *at = nullptr, *out = nullptr;
  size_t bytes = size_t(rows * cols) * sizeof(float);
  DPK_ASSERT_OK(dpk_program_create_from_ir(&program, ScaleIr, std::string(ScaleIr).size(),
                                           "stride-specialization"));
  DPK_ASSERT_OK(dpk_kernel_get(&kernel, program, "scale2d"));
  DPK_ASSERT_OK(dpk_queue_create(&queue, host, 0));
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&a), host, DPK_MEM_SHARED, bytes));
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&at), host, DPK_MEM_SHARED, bytes));
  DPK_ASSERT_OK(dpk_mem_alloc(reinterpret_cast<void **>(&out), host, DPK_MEM_SHARED, bytes));
  // a is rows x cols in C order; at holds the same matrix column-major (its transpose).
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      a[i * cols + j] = float(i * 1000 + j);
      at[j * rows + i] = float(i * 1000 + j);
    }

  // Records of level 2 (kernel.compile) for this test only; the level goes back afterwards.
  std::vector<std::string> records;
  int savedLevel = dpk::diag::detail::CurrentLevel.load();
  dpk::diag::detail::CurrentLevel.store(std::max(savedLevel, 2));
  DPK_ASSERT_OK(dpk_diagnostics_set_callback(&collectRecord, &records));

  dpk_view_arg_t contiguous{a, 2, {rows, cols, 0}, {cols, 1, 0}};
  dpk_view_arg_t transposed{at, 2, {rows, cols, 0}, {1, rows, 0}};
  dpk_view_arg_t result{out, 2, {rows, cols, 0}, {cols, 1, 0}};
  dpk_launch_config_t range = {2, {uint64_t(rows), uint64_t(cols), 0}, {0, 0, 0}};
  bool allCorrect = true;
  for (const dpk_view_arg_t *source : {&contiguous, &transposed, &contiguous}) {
    for (int64_t k = 0; k < rows * cols; ++k)
      out[k] = -1.0f;
    dpk_arg_t args[2] = {viewArg(*source), viewArg(result)};
    dpk_status_t status = dpk_enqueue_launch(nullptr, queue, kernel, &range, 2, args, 0, nullptr);
    EXPECT_EQ(status, DPK_SUCCESS) << dpk_last_error();
    EXPECT_EQ(dpk_queue_wait(queue), DPK_SUCCESS) << dpk_last_error();
    for (int64_t i = 0; i < rows && allCorrect; ++i)
      for (int64_t j = 0; j < cols && allCorrect; ++j) {
        float expected = 2.0f * float(i * 1000 + j);
        if (out[i * cols + j] != expected) {
          ADD_FAILURE() << "strides {" << source->strides[0] << ", " << source->strides[1]
                        << "}: out[" << i << ", " << j << "] = " << out[i * cols + j]
                        << ", expected " << expected;
          allCorrect = false;
        }
      }
  }
  dpk_diagnostics_set_callback(nullptr, nullptr);
  dpk::diag::detail::CurrentLevel.store(savedLevel);

  size_t compiles = 0;
  std::vector<std::string> masks;
  for (const std::string &record : records) {
    if (record.find("\"event\":\"kernel.compile\"") == std::string::npos ||
        record.find("scale2d") == std::string::npos)
      continue;
    ++compiles;
    size_t at = record.find("\"unit_inner_stride_views\":");
    if (at != std::string::npos)
      masks.push_back(record.substr(at, record.find_first_of(",}", at) - at));
  }
  // Contiguous source: both views unit (mask 3); transposed source: only dst (mask 2). The
  // third launch reuses the first build.
  EXPECT_EQ(compiles, 2u);
  ASSERT_EQ(masks.size(), 2u);
  EXPECT_NE(masks[0].find("\"3\""), std::string::npos) << masks[0];
  EXPECT_NE(masks[1].find("\"2\""), std::string::npos) << masks[1];

  dpk_mem_free(out);
  dpk_mem_free(at);
  dpk_mem_free(a);
  dpk_queue_release(queue);
  dpk_kernel_release(kernel);
  dpk_program_release(program);
}

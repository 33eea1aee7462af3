// GemmTest.cpp - enqueue_gemm (ABI 5): the descriptor checks of the validation layer on every
// plugin, and on every plugin with a device either the reference result for a set of shapes
// (host with OpenBLAS/BLIS, CUDA with cuBLAS) or DPK_ERROR_UNSUPPORTED with a message (OpenCL,
// Level Zero, the fault plugin; host and CUDA without their library, which skips).
#include "PluginAbi.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace dpk::plugin_abi {
namespace {

/// A well-formed 2x3x4 f32 product over fake addresses (for checks that never reach a plugin).
dpk_gemm_desc_t validDesc() {
  static float storage[64];
  dpk_gemm_desc_t d{};
  d.struct_size = sizeof d;
  d.type = DPK_GEMM_F32;
  d.m = 2;
  d.n = 3;
  d.k = 4;
  d.lda = 4;
  d.ldb = 3;
  d.ldc = 3;
  d.alpha = 1;
  d.batch = 1;
  d.a = storage;
  d.b = storage;
  d.c = storage;
  return d;
}

bool hasNoBlas(const std::string &backend) {
  return backend == "opencl" || backend == "level_zero" || backend == "fault";
}

/// One product (or batch) to check: sizes, flags, padding of each leading dimension, scalars.
struct Case {
  dpk_gemm_type_t type;
  uint64_t m, n, k;
  uint32_t flags = 0;
  uint64_t pad = 0; // added to every leading dimension
  double alpha = 1, beta = 0;
  uint64_t batch = 1;
  bool broadcastB = false; // stride_b 0: one B for the whole batch
};

std::string describe(const Case &c) {
  return std::string(c.type == DPK_GEMM_F64 ? "f64 " : "f32 ") + std::to_string(c.m) + "x" +
         std::to_string(c.n) + "x" + std::to_string(c.k) + " flags " + std::to_string(c.flags) +
         " pad " + std::to_string(c.pad) + " batch " + std::to_string(c.batch) +
         (c.broadcastB ? " (B broadcast)" : "") + " alpha " + std::to_string(c.alpha) +
         " beta " + std::to_string(c.beta);
}

/// Runs `c` on the session's queue with device memory; checks the result against a product
/// computed here in double. Returns the entry's status (the result is checked on success).
template <typename T>
dpk_status_t runCase(const runtime::ValidatedDispatch &table, dpk_pl_context_t context,
                     dpk_pl_queue_t queue, const Case &c) {
  bool transA = c.flags & DPK_GEMM_TRANS_A, transB = c.flags & DPK_GEMM_TRANS_B;
  uint64_t aRows = transA ? c.k : c.m, aCols = transA ? c.m : c.k;
  uint64_t bRows = transB ? c.n : c.k, bCols = transB ? c.k : c.n;
  uint64_t lda = std::max<uint64_t>(aCols, 1) + c.pad, ldb = std::max<uint64_t>(bCols, 1) + c.pad;
  uint64_t ldc = std::max<uint64_t>(c.n, 1) + c.pad;
  uint64_t strideA = aRows * lda, strideB = c.broadcastB ? 0 : bRows * ldb, strideC = c.m * ldc;
  size_t countA = c.batch * strideA + 1, countB = (c.broadcastB ? 1 : c.batch) * bRows * ldb + 1;
  size_t countC = c.batch * strideC + 1;
  // Small integers: every product and sum is exact in float, so the result must match exactly
  // up to the order of the additions (also exact here).
  std::vector<T> a(countA), b(countB), c0(countC);
  for (size_t i = 0; i < countA; ++i)
    a[i] = static_cast<T>(int(i * 7 % 11) - 5);
  for (size_t i = 0; i < countB; ++i)
    b[i] = static_cast<T>(int(i * 5 % 13) - 6);
  for (size_t i = 0; i < countC; ++i)
    c0[i] = c.beta == 0 ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(int(i % 9) - 4);

  auto upload = [&](const std::vector<T> &host) {
    void *ptr = nullptr;
    EXPECT_EQ(table.mem_alloc(&ptr, context, DPK_MEM_DEVICE, host.size() * sizeof(T), 0),
              DPK_SUCCESS)
        << table.last_error(nullptr);
    EXPECT_EQ(table.enqueue_copy(nullptr, queue, ptr, host.data(), host.size() * sizeof(T), 0,
                                 nullptr),
              DPK_SUCCESS)
        << table.last_error(nullptr);
    return ptr;
  };
  void *da = upload(a), *db = upload(b), *dc = upload(c0);
  dpk_gemm_desc_t d{};
  d.struct_size = sizeof d;
  d.type = c.type;
  d.flags = c.flags;
  d.m = c.m;
  d.n = c.n;
  d.k = c.k;
  d.lda = lda;
  d.ldb = ldb;
  d.ldc = ldc;
  d.alpha = c.alpha;
  d.beta = c.beta;
  d.batch = c.batch;
  d.stride_a = strideA;
  d.stride_b = strideB;
  d.stride_c = strideC;
  d.a = da;
  d.b = db;
  d.c = dc;
  dpk_pl_event_t event = nullptr;
  dpk_status_t status = table.enqueue_gemm(&event, queue, &d, 0, nullptr);
  std::vector<T> result(countC);
  if (status == DPK_SUCCESS) {
    EXPECT_NE(event, nullptr);
    EXPECT_EQ(table.event_wait(1, &event), DPK_SUCCESS) << table.last_error(nullptr);
    EXPECT_EQ(table.event_release(event), DPK_SUCCESS);
    EXPECT_EQ(table.enqueue_copy(nullptr, queue, result.data(), dc, countC * sizeof(T), 0, nullptr),
              DPK_SUCCESS);
  }
  EXPECT_EQ(table.queue_finish(queue), DPK_SUCCESS) << table.last_error(nullptr);
  for (void *ptr : {da, db, dc})
    EXPECT_EQ(table.mem_free(context, ptr), DPK_SUCCESS);
  if (status != DPK_SUCCESS)
    return status;

  int mismatches = 0;
  for (uint64_t e = 0; e < c.batch; ++e) {
    for (uint64_t i = 0; i < c.m; ++i) {
      for (uint64_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (uint64_t p = 0; p < c.k; ++p) {
          double x = a[e * strideA + (transA ? p * lda + i : i * lda + p)];
          double y = b[e * strideB + (transB ? j * ldb + p : p * ldb + j)];
          sum += x * y;
        }
        size_t at = e * strideC + i * ldc + j;
        double expected = c.alpha * sum + (c.beta == 0 ? 0.0 : c.beta * double(c0[at]));
        if (double(result[at]) != expected && mismatches++ < 5)
          ADD_FAILURE() << describe(c) << ": C[" << e << "][" << i << "][" << j << "] is "
                        << result[at] << ", expected " << expected;
      }
    }
  }
  // Padding between rows and past the last entry is not C's: it keeps its contents.
  for (size_t at = 0; at < countC; ++at) {
    bool inside = at / strideC < c.batch && at % strideC / ldc < c.m && at % ldc < c.n;
    if (strideC == 0 || inside)
      continue;
    bool same = std::isnan(double(c0[at])) ? std::isnan(double(result[at])) : result[at] == c0[at];
    if (!same && mismatches++ < 5)
      ADD_FAILURE() << describe(c) << ": element " << at << " outside C was written";
  }
  return DPK_SUCCESS;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (dpk_gemm_type_t type : {DPK_GEMM_F32, DPK_GEMM_F64}) {
    out.push_back({type, 1, 1, 1});
    out.push_back({type, 3, 5, 7});
    out.push_back({type, 17, 1, 9});   // N = 1
    out.push_back({type, 1, 33, 20});  // M = 1
    out.push_back({type, 31, 45, 1});  // K = 1
    out.push_back({type, 64, 64, 64});
    out.push_back({type, 200, 150, 96}); // large enough for the host's panels
    out.push_back({type, 150, 260, 40}); // wider than tall: column panels
    out.push_back({type, 13, 11, 0});    // K = 0: C = beta * C (NaN not read with beta 0)
    out.push_back({type, 9, 8, 7, DPK_GEMM_TRANS_A});
    out.push_back({type, 9, 8, 7, DPK_GEMM_TRANS_B, 3});
    out.push_back({type, 70, 90, 33, DPK_GEMM_TRANS_A | DPK_GEMM_TRANS_B, 5});
    out.push_back({type, 6, 7, 8, 0, 2, 2.0, 0.5});      // alpha and beta
    out.push_back({type, 12, 10, 9, 0, 1, 1, 0, 5});      // a batch
    out.push_back({type, 40, 36, 20, DPK_GEMM_TRANS_B, 0, 1, 0, 3, true}); // B broadcast
    out.push_back({type, 13, 11, 0, 0, 0, 1.0, 0.5});     // K = 0 with beta
  }
  return out;
}

} // namespace

TEST_P(PluginAbi, GemmDescriptorIsChecked) {
  auto queue = fakeHandle<dpk_pl_queue_t>();
  const dpk_status_t invalid = DPK_ERROR_INVALID_ARGUMENT;
  expectRejected(table().enqueue_gemm(nullptr, queue, nullptr, 0, nullptr), invalid,
                 "enqueue_gemm");
  auto rejects = [&](const char *what, auto change) {
    SCOPED_TRACE(what);
    dpk_gemm_desc_t d = validDesc();
    change(d);
    expectRejected(table().enqueue_gemm(nullptr, queue, &d, 0, nullptr), invalid, "enqueue_gemm");
  };
  rejects("struct_size", [](dpk_gemm_desc_t &d) { d.struct_size = 8; });
  rejects("type", [](dpk_gemm_desc_t &d) { d.type = static_cast<dpk_gemm_type_t>(7); });
  rejects("flags", [](dpk_gemm_desc_t &d) { d.flags = 4; });
  rejects("lda", [](dpk_gemm_desc_t &d) { d.lda = 3; });
  rejects("lda of a transposed A", [](dpk_gemm_desc_t &d) {
    d.flags = DPK_GEMM_TRANS_A;
    d.lda = 1; // A is stored 4 x 2
  });
  rejects("ldb", [](dpk_gemm_desc_t &d) { d.ldb = 2; });
  rejects("ldc", [](dpk_gemm_desc_t &d) { d.ldc = 0; });
  rejects("C", [](dpk_gemm_desc_t &d) { d.c = nullptr; });
  rejects("A", [](dpk_gemm_desc_t &d) { d.a = nullptr; });
  rejects("overlapping batch entries of C", [](dpk_gemm_desc_t &d) {
    d.batch = 2;
    d.stride_c = 3;
  });
  rejects("an extent past 2^63 bytes", [](dpk_gemm_desc_t &d) {
    d.batch = 3;
    d.stride_a = uint64_t(1) << 62;
    d.stride_c = 6;
  });
  dpk_pl_event_t none[1] = {nullptr};
  dpk_gemm_desc_t d = validDesc();
  expectRejected(table().enqueue_gemm(nullptr, queue, &d, 1, none), DPK_ERROR_INVALID_HANDLE,
                 "enqueue_gemm");
  expectRejected(table().enqueue_gemm(nullptr, queue, &d, 1, nullptr), invalid, "enqueue_gemm");
}

TEST_P(PluginAbiDevice, GemmGivesTheReferenceResultOrIsUnsupported) {
  forEachDevice([&](const Device &device) {
    if (!(device.props.aspects & DPK_ASPECT_USM_DEVICE))
      GTEST_SKIP() << "no device allocations";
    Session session(table(), device);
    ASSERT_NE(session.queue, nullptr);
    for (const Case &c : cases()) {
      SCOPED_TRACE(describe(c));
      if (c.type == DPK_GEMM_F64 && !(device.props.aspects & DPK_ASPECT_FP64))
        continue;
      dpk_status_t status =
          c.type == DPK_GEMM_F64 ? runCase<double>(table(), session.context, session.queue, c)
                                 : runCase<float>(table(), session.context, session.queue, c);
      if (status == DPK_SUCCESS) {
        EXPECT_FALSE(hasNoBlas(backend())) << backend() << " ran a GEMM it has no BLAS for";
        continue;
      }
      ASSERT_EQ(status, DPK_ERROR_UNSUPPORTED) << lastError();
      EXPECT_NE(lastError().find("enqueue_gemm"), std::string::npos) << lastError();
      if (hasNoBlas(backend()))
        return; // the expected answer; the other cases would repeat it
      GTEST_SKIP() << backend() << " has no BLAS library here: " << lastError();
    }
  });
}

} // namespace dpk::plugin_abi

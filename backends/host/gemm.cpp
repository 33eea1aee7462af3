// gemm.cpp - a GEMM descriptor as CBLAS calls, one per batch entry.
//
// The library runs each call on its own threads (as many as the host arena has: blas.cpp). It
// was measured against the alternative of a single-threaded library whose row panels run as
// tasks in the arena: on the build machine's 2 cores, 1024² f32 in paired rounds, the panels
// reached 58 GFLOP/s and the library's own threads 98 (NumPy 112): OpenBLAS shares each packed
// panel of B between its threads, independent calls pack it once per thread.
#include "gemm.hpp"

#include <climits>
#include <cstdint>

namespace dpk::host {
namespace {

template <typename T, typename Fn> void runTyped(Fn gemm, const dpk_gemm_desc_t &d) {
  bool transA = d.flags & DPK_GEMM_TRANS_A;
  bool transB = d.flags & DPK_GEMM_TRANS_B;
  for (uint64_t entry = 0; entry < d.batch; ++entry) {
    // k == 0: A and B may be NULL (no offset is applied to them); the library only scales C
    // by beta and reads neither.
    const T *a = static_cast<const T *>(d.a);
    const T *b = static_cast<const T *>(d.b);
    if (d.k != 0) {
      a += entry * d.stride_a;
      b += entry * d.stride_b;
    }
    T *c = static_cast<T *>(d.c) + entry * d.stride_c;
    gemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
         static_cast<int>(d.m), static_cast<int>(d.n), static_cast<int>(d.k),
         static_cast<T>(d.alpha), a, static_cast<int>(d.lda), b, static_cast<int>(d.ldb),
         static_cast<T>(d.beta), c, static_cast<int>(d.ldc));
  }
}

} // namespace

std::string gemmUnsupported(const HostBlas &blas, const dpk_gemm_desc_t &desc) {
  for (uint64_t size : {desc.m, desc.n, desc.k, desc.lda, desc.ldb, desc.ldc}) {
    if (size > uint64_t(INT_MAX))
      return blas.library + " takes sizes and leading dimensions up to 2^31 - 1; this GEMM has " +
             std::to_string(size);
  }
  return {};
}

void runGemm(const HostBlas &blas, const dpk_gemm_desc_t &desc) {
  if (desc.batch == 0 || desc.m == 0 || desc.n == 0)
    return;
  switch (desc.type) {
  case DPK_GEMM_F32:
    runTyped<float>(blas.sgemm, desc);
    return;
  case DPK_GEMM_F64:
    runTyped<double>(blas.dgemm, desc);
    return;
  }
}

} // namespace dpk::host

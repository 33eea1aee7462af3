// blas.hpp - the host's CBLAS (OpenBLAS or BLIS from Debian), loaded at run time.
//
// The plugin has no link-time dependency on a BLAS: the two functions below are resolved with
// dlsym from the first library of the search list that has them, on the first GEMM. The
// signatures are CBLAS's (LP64: 32-bit int sizes; the enums are C enums, passed as int).
#ifndef DPK_BACKENDS_HOST_BLAS_HPP
#define DPK_BACKENDS_HOST_BLAS_HPP

#include <string>

namespace dpk::host {

// CBLAS_ORDER and CBLAS_TRANSPOSE values (the CBLAS standard's numbers).
enum : int { CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112 };

using SgemmFn = void (*)(int order, int transA, int transB, int m, int n, int k, float alpha,
                         const float *a, int lda, const float *b, int ldb, float beta, float *c,
                         int ldc);
using DgemmFn = void (*)(int order, int transA, int transB, int m, int n, int k, double alpha,
                         const double *a, int lda, const double *b, int ldb, double beta,
                         double *c, int ldc);

struct HostBlas {
  std::string library; // the name it was opened by: "libopenblas.so.0"
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
};

/// The BLAS, loaded once (DPK_HOST_BLAS names another library, or "none"); null with the
/// reason in `whyNot` when there is none. Its thread count is set to the host arena's.
const HostBlas *hostBlas(std::string &whyNot);

} // namespace dpk::host

#endif // DPK_BACKENDS_HOST_BLAS_HPP

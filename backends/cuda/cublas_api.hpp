// cublas_api.hpp - the slice of cuBLAS this plugin uses, loaded at run time.
//
// Like the driver (driver_api.hpp), cuBLAS is not linked: the types, values and signatures below
// are written from NVIDIA's documented cuBLAS API (the _v2 symbols cublas_v2.h maps to), and the
// functions are resolved with dlsym by loadCublas() on the first GEMM, so the plugin builds and
// loads on machines without the toolkit and a missing libcublas is an UNSUPPORTED GEMM, not a
// missing device.
#ifndef DPK_BACKENDS_CUDA_CUBLAS_API_HPP
#define DPK_BACKENDS_CUDA_CUBLAS_API_HPP

#include "driver_api.hpp"

#include "dpk/dpk_types.h"

#include <string>

namespace dpk::cuda {

using cublasHandle_t = struct cublasContext *;
using cublasStatus_t = int;

// cublasStatus_t values.
enum : cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16,
};

// cublasOperation_t values.
enum : int { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };

// X(member, symbol, parameter list): every cuBLAS entry point the plugin calls.
#define DPK_CUBLAS_FUNCTIONS(X)                                                                    \
  X(create, "cublasCreate_v2", (cublasHandle_t * handle))                                          \
  X(destroy, "cublasDestroy_v2", (cublasHandle_t handle))                                          \
  X(setStream, "cublasSetStream_v2", (cublasHandle_t handle, CUstream stream))                     \
  X(sgemm, "cublasSgemm_v2",                                                                       \
    (cublasHandle_t handle, int transA, int transB, int m, int n, int k, const float *alpha,       \
     const float *a, int lda, const float *b, int ldb, const float *beta, float *c, int ldc))      \
  X(dgemm, "cublasDgemm_v2",                                                                       \
    (cublasHandle_t handle, int transA, int transB, int m, int n, int k, const double *alpha,      \
     const double *a, int lda, const double *b, int ldb, const double *beta, double *c, int ldc))  \
  X(sgemmStridedBatched, "cublasSgemmStridedBatched",                                              \
    (cublasHandle_t handle, int transA, int transB, int m, int n, int k, const float *alpha,       \
     const float *a, int lda, long long strideA, const float *b, int ldb, long long strideB,       \
     const float *beta, float *c, int ldc, long long strideC, int batchCount))                     \
  X(dgemmStridedBatched, "cublasDgemmStridedBatched",                                              \
    (cublasHandle_t handle, int transA, int transB, int m, int n, int k, const double *alpha,      \
     const double *a, int lda, long long strideA, const double *b, int ldb, long long strideB,     \
     const double *beta, double *c, int ldc, long long strideC, int batchCount))

/// The resolved cuBLAS entry points; valid when loadCublas() returned "".
struct CublasApi {
#define DPK_CUBLAS_DECLARE_MEMBER(member, symbol, params) cublasStatus_t(*member) params = nullptr;
  DPK_CUBLAS_FUNCTIONS(DPK_CUBLAS_DECLARE_MEMBER)
#undef DPK_CUBLAS_DECLARE_MEMBER
  std::string library; // the name it was opened by
};

/// Loads cuBLAS once (DPK_CUBLAS_LIBRARY names another library, or "none"; otherwise
/// libcublas.so.13, .12, .11, then libcublas.so). Returns the table, or null with the reason in
/// `whyNot`.
const CublasApi *loadCublas(std::string &whyNot);

/// "CUBLAS_STATUS_ALLOC_FAILED (3)".
std::string describeCublasStatus(cublasStatus_t status);

/// Records "<call>: <status>" as this thread's last error with the status as native code and
/// returns the dpk status it stands for; DPK_SUCCESS for CUBLAS_STATUS_SUCCESS.
dpk_status_t checkCublas(cublasStatus_t status, const char *call);

} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_CUBLAS_API_HPP

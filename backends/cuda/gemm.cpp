// gemm.cpp - enqueue_gemm with cuBLAS on the queue's stream.
//
// cuBLAS is column-major and dpk's descriptor row-major. A row-major matrix read column-major is
// its transpose, so C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T: the operands swap
// places (B first), m and n swap, and each keeps its own transpose flag and leading dimension.
#include "entries.hpp"
#include "event.hpp"

#include <climits>
#include <memory>
#include <string>

namespace dpk::cuda {
namespace {

// Faults of a GEMM surface at a later wait like a kernel's; the event names the routine.
const std::shared_ptr<const std::string> &routineName(dpk_gemm_type_t type) {
  static const auto sgemm = std::make_shared<const std::string>("cublasSgemm");
  static const auto dgemm = std::make_shared<const std::string>("cublasDgemm");
  return type == DPK_GEMM_F64 ? dgemm : sgemm;
}

/// Why cuBLAS cannot take `d` (its sizes are 32-bit ints), or "".
std::string unsupportedSizes(const dpk_gemm_desc_t &d) {
  for (uint64_t size : {d.m, d.n, d.k, d.lda, d.ldb, d.ldc, d.batch}) {
    if (size > uint64_t(INT_MAX))
      return "cuBLAS takes sizes, leading dimensions and batch counts up to 2^31 - 1; this GEMM "
             "has " +
             std::to_string(size);
  }
  return {};
}

template <typename T, typename Gemm, typename Batched>
cublasStatus_t callGemm(cublasHandle_t handle, const dpk_gemm_desc_t &d, Gemm gemm,
                        Batched batched) {
  const T alpha = static_cast<T>(d.alpha), beta = static_cast<T>(d.beta);
  int opA = (d.flags & DPK_GEMM_TRANS_A) ? CUBLAS_OP_T : CUBLAS_OP_N;
  int opB = (d.flags & DPK_GEMM_TRANS_B) ? CUBLAS_OP_T : CUBLAS_OP_N;
  const T *a = static_cast<const T *>(d.a);
  const T *b = static_cast<const T *>(d.b);
  T *c = static_cast<T *>(d.c);
  int m = static_cast<int>(d.m), n = static_cast<int>(d.n), k = static_cast<int>(d.k);
  int lda = static_cast<int>(d.lda), ldb = static_cast<int>(d.ldb), ldc = static_cast<int>(d.ldc);
  if (d.batch == 1)
    return gemm(handle, opB, opA, n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc);
  return batched(handle, opB, opA, n, m, k, &alpha, b, ldb, static_cast<long long>(d.stride_b), a,
                 lda, static_cast<long long>(d.stride_a), &beta, c, ldc,
                 static_cast<long long>(d.stride_c), static_cast<int>(d.batch));
}

} // namespace

dpk_status_t enqueueGemm(dpk_pl_event_t *outEvent, dpk_pl_queue_t handle, const dpk_gemm_desc_t *desc,
                         uint32_t numDeps, const dpk_pl_event_t *deps) {
  std::string whyNot;
  const CublasApi *blas = loadCublas(whyNot);
  if (!blas)
    return fail(DPK_ERROR_UNSUPPORTED, "enqueue_gemm: " + whyNot);
  const dpk_gemm_desc_t &d = *desc;
  if (std::string why = unsupportedSizes(d); !why.empty())
    return fail(DPK_ERROR_UNSUPPORTED, "enqueue_gemm: " + why);
  Queue &queue = *toQueue(handle);
  Context &context = *queue.context;
  const std::shared_ptr<const std::string> &name = routineName(d.type);
  RETURN_ON_FAILURE(makeCurrent(context.native));
  RETURN_ON_FAILURE(waitForDependencies(queue, numDeps, deps));
  queue.noteSubmitted();
  std::unique_ptr<Event> event;
  RETURN_ON_FAILURE(beginCommandEvent(queue, outEvent != nullptr, CommandKind::Kernel, 0, name, event));
  if (d.batch != 0 && d.m != 0 && d.n != 0) {
    std::lock_guard<std::mutex> guard(context.blasLock);
    if (!context.blas)
      RETURN_ON_FAILURE(checkCublas(blas->create(&context.blas), "cublasCreate_v2"));
    RETURN_ON_FAILURE(checkCublas(blas->setStream(context.blas, queue.stream), "cublasSetStream_v2"));
    cublasStatus_t status =
        d.type == DPK_GEMM_F64
            ? callGemm<double>(context.blas, d, blas->dgemm, blas->dgemmStridedBatched)
            : callGemm<float>(context.blas, d, blas->sgemm, blas->sgemmStridedBatched);
    RETURN_ON_FAILURE(checkCublas(status, d.type == DPK_GEMM_F64 ? "cublasDgemm" : "cublasSgemm"));
  }
  {
    std::lock_guard<std::mutex> guard(queue.lock);
    queue.lastKernel = name;
  }
  return endCommandEvent(queue, event, outEvent);
}

} // namespace dpk::cuda

// Gemm.h - matrix products with the device's vendor BLAS (plugin entry enqueue_gemm, ABI 5).
//
// The runtime checks what needs the allocation table (each operand's extent inside its
// allocation, and device memory of another device refused), then hands the descriptor to the
// queue's plugin in the queue's order. A backend without a BLAS answers DPK_ERROR_UNSUPPORTED
// (with the reason): there is no fallback here, the caller runs a kernel of its own.
#ifndef DPK_CORE_RUNTIME_GEMM_H
#define DPK_CORE_RUNTIME_GEMM_H

#include "runtime/Event.h"
#include "support/Error.h"

#include "dpk/dpk_types.h"

#include <vector>

namespace dpk::runtime {

class Queue;

Expected<Ref<Event>> enqueueGemm(Queue &queue, const dpk_gemm_desc_t &desc,
                                 const std::vector<Event *> &deps);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_GEMM_H

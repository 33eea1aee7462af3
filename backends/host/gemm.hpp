// gemm.hpp - runs a GEMM descriptor with the host's CBLAS.
#ifndef DPK_BACKENDS_HOST_GEMM_HPP
#define DPK_BACKENDS_HOST_GEMM_HPP

#include "blas.hpp"

#include "dpk/dpk_types.h"

#include <string>

namespace dpk::host {

/// Why the library cannot take `desc` (a size past its 32-bit ints), or "".
std::string gemmUnsupported(const HostBlas &blas, const dpk_gemm_desc_t &desc);

/// Computes every product of a well-formed, supported descriptor and returns when done.
void runGemm(const HostBlas &blas, const dpk_gemm_desc_t &desc);

} // namespace dpk::host

#endif // DPK_BACKENDS_HOST_GEMM_HPP

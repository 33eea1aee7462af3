// GemmShape.h - the rules a GEMM descriptor (dpk_gemm_desc_t) obeys, written once: the plugin
// boundary (PluginValidation) refuses a descriptor that breaks them, and the runtime (Gemm.cpp)
// uses the operand extents to check each pointer against its allocation.
#ifndef DPK_CORE_RUNTIME_GEMMSHAPE_H
#define DPK_CORE_RUNTIME_GEMMSHAPE_H

#include "dpk/dpk_types.h"

#include <cstdint>
#include <string>

namespace dpk::runtime {

/// Bytes of one element of `type`, or 0 for an unknown type.
size_t gemmElementSize(dpk_gemm_type_t type);

/// "f32", "f64" (for messages and diagnostics).
const char *gemmTypeName(dpk_gemm_type_t type);

/// True when the descriptor computes nothing (batch, m or n is 0): an empty command.
bool isEmptyGemm(const dpk_gemm_desc_t &desc);

/// What is wrong with a descriptor, or "" when it is well formed: struct_size covers the
/// struct, the type and flags are known, every leading dimension is at least its stored row's
/// length (and 1), the pointers a non-empty product reads or writes are set, batch entries of C
/// do not overlap, and no operand's extent overflows 64 bits of bytes.
std::string gemmDescProblem(const dpk_gemm_desc_t &desc);

/// One operand as stored: rows x cols with leading dimension ld, batch entries stride apart.
struct GemmOperand {
  const char *name; // "A", "B", "C"
  const void *data;
  uint64_t rows, cols, ld, stride;
};

/// A, B and C of a well-formed descriptor, as stored (a transposed operand's rows and columns
/// swapped).
void gemmOperands(const dpk_gemm_desc_t &desc, GemmOperand out[3]);

/// Bytes from an operand's first element to one past its last (0 when it has no element or
/// the product does not touch it); the descriptor must be well formed.
uint64_t gemmOperandBytes(const dpk_gemm_desc_t &desc, const GemmOperand &operand);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_GEMMSHAPE_H

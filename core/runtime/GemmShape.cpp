// GemmShape.cpp - well-formedness and extents of GEMM descriptors.
#include "runtime/GemmShape.h"

#include <cstring>

namespace dpk::runtime {
namespace {

/// Elements from the first element of an operand to one past its last, or false on overflow.
bool extentElements(const GemmOperand &operand, uint64_t batch, uint64_t &out) {
  out = 0;
  if (operand.rows == 0 || operand.cols == 0 || batch == 0)
    return true;
  uint64_t rowsPart = 0, batchPart = 0;
  if (__builtin_mul_overflow(operand.rows - 1, operand.ld, &rowsPart) ||
      __builtin_mul_overflow(batch - 1, operand.stride, &batchPart) ||
      __builtin_add_overflow(rowsPart, operand.cols, &out) ||
      __builtin_add_overflow(out, batchPart, &out))
    return false;
  return true;
}

/// Whether the product reads A and B (it writes C whenever it is not empty).
bool readsInputs(const dpk_gemm_desc_t &desc) { return !isEmptyGemm(desc) && desc.k != 0; }

/// The element type as the caller stored it. A C caller may store any int there, and loading a
/// value outside the enumerators' range through the enum type is undefined in C++ (UBSan's
/// -fsanitize=enum reports it), so the validation reads the bytes as an int.
int storedType(const dpk_gemm_desc_t &desc) {
  static_assert(sizeof(desc.type) == sizeof(int), "dpk_gemm_type_t is a C enum, int-sized");
  int raw = 0;
  std::memcpy(&raw, &desc.type, sizeof raw);
  return raw;
}

} // namespace

size_t gemmElementSize(dpk_gemm_type_t type) {
  switch (type) {
  case DPK_GEMM_F32:
    return 4;
  case DPK_GEMM_F64:
    return 8;
  }
  return 0;
}

const char *gemmTypeName(dpk_gemm_type_t type) {
  switch (type) {
  case DPK_GEMM_F32:
    return "f32";
  case DPK_GEMM_F64:
    return "f64";
  }
  return "unknown";
}

bool isEmptyGemm(const dpk_gemm_desc_t &desc) {
  return desc.batch == 0 || desc.m == 0 || desc.n == 0;
}

void gemmOperands(const dpk_gemm_desc_t &desc, GemmOperand out[3]) {
  bool transA = desc.flags & DPK_GEMM_TRANS_A;
  bool transB = desc.flags & DPK_GEMM_TRANS_B;
  out[0] = {"A", desc.a, transA ? desc.k : desc.m, transA ? desc.m : desc.k, desc.lda,
            desc.stride_a};
  out[1] = {"B", desc.b, transB ? desc.n : desc.k, transB ? desc.k : desc.n, desc.ldb,
            desc.stride_b};
  out[2] = {"C", desc.c, desc.m, desc.n, desc.ldc, desc.stride_c};
}

uint64_t gemmOperandBytes(const dpk_gemm_desc_t &desc, const GemmOperand &operand) {
  bool isC = operand.name[0] == 'C';
  if (isEmptyGemm(desc) || (!isC && !readsInputs(desc)))
    return 0;
  uint64_t elements = 0;
  (void)extentElements(operand, desc.batch, elements); // well formed: no overflow
  return elements * gemmElementSize(desc.type);
}

std::string gemmDescProblem(const dpk_gemm_desc_t &desc) {
  if (desc.struct_size < sizeof(dpk_gemm_desc_t))
    return "struct_size " + std::to_string(desc.struct_size) + " is less than sizeof(dpk_gemm_desc_t) (" +
           std::to_string(sizeof(dpk_gemm_desc_t)) + ")";
  int type = storedType(desc);
  if (type != DPK_GEMM_F32 && type != DPK_GEMM_F64)
    return "unknown element type " + std::to_string(type);
  size_t elementSize = gemmElementSize(desc.type);
  if (desc.flags & ~uint32_t(DPK_GEMM_TRANS_A | DPK_GEMM_TRANS_B))
    return "unknown flags " + std::to_string(desc.flags);
  GemmOperand operands[3];
  gemmOperands(desc, operands);
  for (const GemmOperand &operand : operands) {
    uint64_t least = operand.cols > 1 ? operand.cols : 1;
    if (operand.ld < least)
      return std::string("leading dimension of ") + operand.name + " (" +
             std::to_string(operand.ld) + ") is less than its stored row of " +
             std::to_string(least) + " elements";
    uint64_t elements = 0, bytes = 0;
    if (!extentElements(operand, desc.batch, elements) ||
        __builtin_mul_overflow(elements, elementSize, &bytes) || bytes > uint64_t(INT64_MAX))
      return std::string(operand.name) + " spans more than 2^63 bytes";
  }
  if (isEmptyGemm(desc))
    return {};
  if (!desc.c)
    return "C is NULL";
  if (readsInputs(desc) && (!desc.a || !desc.b))
    return "A or B is NULL with k > 0";
  uint64_t entryC = (desc.m - 1) * desc.ldc + desc.n; // no overflow: checked above
  if (desc.batch > 1 && desc.stride_c < entryC)
    return "stride_c " + std::to_string(desc.stride_c) + " makes the batch's C matrices overlap (each spans " +
           std::to_string(entryC) + " elements)";
  return {};
}

} // namespace dpk::runtime

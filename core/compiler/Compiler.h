// Compiler.h - the one entry point from the runtime into kernel compilation.
//
// compileModule() turns verified IR into the artifact a backend accepts: an ELF object holding
// work-group functions for the host, SPIR-V, OpenCL C, or PTX. Artifacts are plain bytes so the
// kernel cache can store every kind alike; the host's object is made callable by loadHostCode().
//
// Kernel ABI (every target): each IR kernel parameter becomes launch arguments in order:
//   scalar            -> one DPK_ARG_SCALAR of the scalar's size
//   ptr<global|constant|generic, T> -> one DPK_ARG_POINTER
//   ptr<local, T>     -> one DPK_ARG_LOCAL (size chosen by the caller)
//   view<space, T, n> -> the pointer as above, then n i64 DPK_ARG_SCALARs (shape), then n (strides)
// The host object defines, for each kernel K, a dpk_host_group_fn named "dpk_wg_K".
#ifndef DPK_CORE_COMPILER_COMPILER_H
#define DPK_CORE_COMPILER_COMPILER_H

#include "ir/IR.h"
#include "support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dpk::compiler {

enum class TargetKind { Host, SpirV, OpenCLC, Ptx };
const char *targetName(TargetKind target); // "host", "spirv", "opencl-c", "ptx"

/// How a Range kernel is built for launches in a fixed work-group shape (RangeGuard.h).
enum class RangeGuardKind : uint8_t { None, Offsets, Guarded };

/// One file linked into a kernel's module (docs/linking.md): its path (for messages and to
/// tell its kind by extension: .ll, .bc, .cl, .ptx, .cu) and its contents, read once when the
/// program is created. Each target links the files it can use and ignores the others.
struct LinkInput {
  std::string path;
  std::string contents;
};

struct CompileOptions {
  TargetKind target = TargetKind::Host;
  /// Device identity: the PTX arch for CUDA ("sm_90"), the CPU for the host ("" = this CPU).
  std::string targetId;
  /// Non-zero: specialize every kernel on this work-group shape (NdRange launches).
  std::array<uint64_t, 3> localSize{0, 0, 0};
  /// Launch dimensionality (1-3). Device targets map dpk dimension d to the API's dimension
  /// dims-1-d (dpk's last, fastest-varying dimension becomes OpenCL dim 0 / CUDA x), so the
  /// compiled code depends on it. 0 = infer from the largest dimension the kernel uses.
  uint32_t dims = 0;
  int optLevel = 3;
  /// Level-4 diagnostics: when non-empty, every stage (IR, LLVM IR, output) is written here.
  std::string dumpDirectory;
  /// Unit-inner-stride specialization: bit i set = IR parameter i is a view whose innermost
  /// stride (strides[rank-1]) is 1 at every launch that uses this build. The code uses the
  /// constant 1 for that stride; the argument is still passed (the Kernel ABI is unchanged).
  /// Bits of non-view parameters and bits >= 32 (parameters 32+) are ignored. 0 = generic.
  uint32_t unitInnerStrideViews = 0;
  /// Bounds-check mode (BoundsCheck.h): array accesses are checked, and every kernel takes one
  /// more launch argument, last: a pointer to a zeroed status record of kBoundsRecordBytes,
  /// which a failed check fills in. false: no check code at all.
  bool boundsCheck = false;
  /// Range launches in pieces (RangeGuard.h): kernels that cannot see work-groups take 2 * dims
  /// more i64 launch arguments, last (the real global sizes, then the piece's offsets), and
  /// with Guarded skip work-items past the real sizes. None: kernels as written.
  RangeGuardKind rangeGuard = RangeGuardKind::None;
  /// Every global size of the launches that use this build is below 2^32, so every work-item
  /// id, group id and size is too. OpenCL C computes them in 32 bits then (`(long)(uint)
  /// get_global_id(d)`): index arithmetic with them gets 32-bit multiplies where the 64-bit
  /// builtin's result kept 64-bit ones (NVIDIA OpenCL, pairwise distance n = 16384: 1.134 ->
  /// 1.038 ms, docs/benchmarks.md). PTX computes CUDA x's id and size in 32 bits (y and z
  /// always are): 1.089 -> 1.055 ms. Host and SPIR-V ignore it.
  bool idsFit32 = false;
  /// Files that define the module's external functions (`extern func`), linked per target:
  /// LLVM IR/bitcode on host, SPIR-V and PTX; OpenCL C on OpenCL C; PTX and CUDA C on PTX. A
  /// declared symbol no usable file defines, a definition of another signature, or no usable
  /// file at all is DPK_ERROR_LINK naming file, symbol and target. Part of the cache key.
  std::vector<LinkInput> linkInputs;
};

/// One compiled artifact: SPIR-V binary, OpenCL C text, PTX text or a host ELF object.
struct Artifact {
  dpk_artifact_format_t format = DPK_FORMAT_HOST_NATIVE;
  std::vector<uint8_t> bytes;
};

/// Compiles every kernel (and the device functions they call) of a verified module.
Expected<Artifact> compileModule(const ir::Module &module, const CompileOptions &options);

/// Host code loaded into this process. Keeps the JIT alive; module() stays valid as long as the
/// HostCode lives.
class HostCode {
public:
  virtual ~HostCode() = default;
  virtual const dpk_host_module_t &module() const = 0;
};

/// Links a host ELF object from compileModule() into this process.
Expected<std::shared_ptr<HostCode>> loadHostCode(const std::vector<uint8_t> &object,
                                                 const std::vector<std::string> &kernelNames,
                                                 const std::array<uint64_t, 3> &requiredLocalSize);

/// One ABI argument of a kernel after view expansion (see the file comment).
struct AbiArg {
  dpk_arg_kind_t kind;
  size_t size;          // scalars: bytes; pointers: 8; local: 0 (caller decides)
  unsigned paramIndex;  // which IR parameter it comes from
};
std::vector<AbiArg> kernelAbi(const ir::Function &kernel);

} // namespace dpk::compiler

#endif // DPK_CORE_COMPILER_COMPILER_H

// kernel.hpp - a dpk kernel: one CUfunction of a module and the limits a launch checks.
#ifndef DPK_BACKENDS_CUDA_KERNEL_HPP
#define DPK_BACKENDS_CUDA_KERNEL_HPP

#include "entries.hpp"
#include "geometry_memo.hpp"
#include "program.hpp"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace dpk::cuda {

struct Kernel {
  Program *program = nullptr; // holds a reference
  CUfunction function = nullptr;
  std::shared_ptr<const std::string> name;
  int maxThreadsPerBlock = 0; // depends on the kernel's register use
  int staticShared = 0;
  /// The kernel's current dynamic shared memory limit; raised on demand (cuFuncSetAttribute).
  std::atomic<int> dynamicSharedLimit{0};
  /// Byte size of each parameter, when the driver can tell (cuFuncGetParamInfo); else empty.
  std::vector<size_t> paramSizes;
  bool paramsKnown = false;
  /// The kernel's thread limit and its device's block and grid limits, read at creation.
  BlockLimits limits;
  /// Geometries of configurations launched before (geometry_memo.hpp).
  GeometryMemo geometries;
};

inline Kernel *toKernel(dpk_pl_kernel_t handle) { return reinterpret_cast<Kernel *>(handle); }


} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_KERNEL_HPP

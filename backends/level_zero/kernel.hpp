// kernel.hpp - a dpk kernel: one ze_kernel_handle_t. Level Zero kernels hold their arguments
// and group size as state, so a launch sets them and appends under the kernel's lock.
#ifndef DPK_BACKENDS_LEVEL_ZERO_KERNEL_HPP
#define DPK_BACKENDS_LEVEL_ZERO_KERNEL_HPP

#include "program.hpp"

#include <mutex>
#include <string>

namespace dpk::level_zero {

struct Kernel {
  Program *program = nullptr; // holds a reference
  ze_kernel_handle_t native = nullptr;
  std::string name;
  uint32_t numArgs = 0;
  std::mutex lock; // arguments and group size are kernel state until the append copies them
};

inline Kernel *toKernel(dpk_pl_kernel_t handle) { return reinterpret_cast<Kernel *>(handle); }

dpk_status_t kernelCreate(dpk_pl_program_t program, const char *name, dpk_pl_kernel_t *out);
dpk_status_t kernelRelease(dpk_pl_kernel_t kernel);
dpk_status_t kernelMaxWorkGroupSize(dpk_pl_kernel_t kernel, uint64_t *out);

} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_KERNEL_HPP

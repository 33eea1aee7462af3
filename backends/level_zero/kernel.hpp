// kernel.hpp - a dpk kernel: one ze_kernel_handle_t. Level Zero kernels hold their arguments
// and group size as state, so a launch sets them and appends under the kernel's lock.
#ifndef DPK_BACKENDS_LEVEL_ZERO_KERNEL_HPP
#define DPK_BACKENDS_LEVEL_ZERO_KERNEL_HPP

#include "program.hpp"
#include "entries.hpp"

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


} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_KERNEL_HPP

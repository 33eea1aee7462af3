// arguments.hpp - dpk kernel arguments as zeKernelSetArgumentValue calls: a pure function, so
// the marshalling is tested without a driver.
#ifndef DPK_BACKENDS_LEVEL_ZERO_ARGUMENTS_HPP
#define DPK_BACKENDS_LEVEL_ZERO_ARGUMENTS_HPP

#include "dpk/dpk_types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dpk::level_zero {

/// One zeKernelSetArgumentValue(kernel, index, size, value) call.
struct ZeArgument {
  uint32_t index;
  size_t size;
  const void *value;
};

/// POINTER: the address of the void* holding the USM pointer, size 8 (Level Zero reads the
/// pointer value from there). SCALAR: its bytes. LOCAL: the byte size with a NULL value, which
/// Level Zero reads as "this much work-group local memory". `expected` is the kernel's argument
/// count from zeKernelGetProperties (0 = unknown). The core has checked each argument's kind,
/// value and size; returns "" or why the list does not fit the kernel.
std::string marshalArguments(uint32_t numArgs, const dpk_kernel_arg_t *args, uint32_t expected,
                             std::vector<ZeArgument> &out);

} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_ARGUMENTS_HPP

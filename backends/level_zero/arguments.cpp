// arguments.cpp - dpk kernel arguments to Level Zero argument values.
#include "arguments.hpp"

namespace dpk::level_zero {

std::string marshalArguments(uint32_t numArgs, const dpk_kernel_arg_t *args, uint32_t expected,
                             std::vector<ZeArgument> &out) {
  out.clear();
  if (expected && numArgs != expected)
    return "the kernel takes " + std::to_string(expected) + " arguments, " +
           std::to_string(numArgs) + " given";
  out.reserve(numArgs);
  for (uint32_t i = 0; i < numArgs; ++i) {
    const dpk_kernel_arg_t &arg = args[i];
    switch (arg.kind) {
    case DPK_ARG_POINTER:
      out.push_back({i, sizeof(void *), arg.value});
      break;
    case DPK_ARG_SCALAR:
      out.push_back({i, arg.size, arg.value});
      break;
    case DPK_ARG_LOCAL:
      out.push_back({i, arg.size, nullptr});
      break;
    }
  }
  return {};
}

} // namespace dpk::level_zero

// arguments.cpp - dpk kernel arguments to Level Zero argument values.
#include "arguments.hpp"

#include "PluginSupport.h"

namespace dpk::level_zero {

std::string marshalArguments(uint32_t numArgs, const dpk_kernel_arg_t *args, uint32_t expected,
                             std::vector<ZeArgument> &out) {
  out.clear();
  if (numArgs && !args)
    return "args is NULL";
  if (expected && numArgs != expected)
    return "the kernel takes " + std::to_string(expected) + " arguments, " +
           std::to_string(numArgs) + " given";
  out.reserve(numArgs);
  for (uint32_t i = 0; i < numArgs; ++i) {
    const dpk_kernel_arg_t &arg = args[i];
    std::string which = "argument " + std::to_string(i);
    if (!plugin::isKnownArgKind(arg))
      return which + " has unknown kind " + std::to_string(plugin::argKind(arg));
    if (arg.kind == DPK_ARG_POINTER) {
      if (!arg.value)
        return which + " (pointer) has no value";
      out.push_back({i, sizeof(void *), arg.value});
    } else if (arg.kind == DPK_ARG_SCALAR) {
      if (!arg.value || arg.size == 0)
        return which + " (scalar) has no value";
      out.push_back({i, arg.size, arg.value});
    } else { // DPK_ARG_LOCAL
      if (arg.size == 0)
        return which + " (local) has size 0";
      out.push_back({i, arg.size, nullptr});
    }
  }
  return {};
}

} // namespace dpk::level_zero

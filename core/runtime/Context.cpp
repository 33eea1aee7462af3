// Context.cpp - releasing a device's plugin context.
#include "runtime/Context.h"

namespace dpk::runtime {

Context::~Context() {
  if (native_)
    (void)plugin_.table.context_release(native_);
}

} // namespace dpk::runtime

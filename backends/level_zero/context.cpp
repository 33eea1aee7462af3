// context.cpp - context entry points.
#include "context.hpp"

#include <memory>

namespace dpk::level_zero {

void releaseContextRef(Context *context) {
  if (!context->releaseRef())
    return;
  zeContextDestroy(context->native);
  delete context;
}

dpk_status_t contextCreate(dpk_pl_context_t *out, dpk_pl_device_t device) {
  auto context = std::make_unique<Context>();
  context->device = toDevice(device);
  ze_context_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
  ZE_RETURN_ON_FAILURE(zeContextCreate(context->device->driver, &desc, &context->native),
                       "zeContextCreate");
  *out = reinterpret_cast<dpk_pl_context_t>(context.release());
  return DPK_SUCCESS;
}

dpk_status_t contextRelease(dpk_pl_context_t context) {
  releaseContextRef(toContext(context));
  return DPK_SUCCESS;
}

} // namespace dpk::level_zero

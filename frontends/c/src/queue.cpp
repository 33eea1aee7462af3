// queue.cpp - dpk_queue_* entry points.
#include "ApiGuard.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

using namespace dpk;
using namespace dpk::capi;

namespace {

/// DPK_QUEUE_* bits as the plugin ABI's DPK_PL_QUEUE_* bits; unknown bits are an error.
Expected<uint32_t> pluginQueueFlags(uint32_t flags) {
  if (flags & ~uint32_t(DPK_QUEUE_OUT_OF_ORDER | DPK_QUEUE_PROFILING))
    return Error(DPK_ERROR_INVALID_ARGUMENT, "unknown queue flags 0x" + std::to_string(flags));
  uint32_t pluginFlags = DPK_PL_QUEUE_IN_ORDER;
  if (flags & DPK_QUEUE_OUT_OF_ORDER)
    pluginFlags |= DPK_PL_QUEUE_OUT_OF_ORDER;
  if (flags & DPK_QUEUE_PROFILING)
    pluginFlags |= DPK_PL_QUEUE_PROFILING;
  return pluginFlags;
}

} // namespace

extern "C" {

dpk_status_t dpk_queue_create(dpk_queue_t *out, dpk_device_t device, uint32_t flags) {
  return apiEntry("dpk_queue_create", [&] {
    if (!out)
      return nullArgument("out");
    Expected<runtime::Device *> resolved = toDevice(device);
    if (!resolved)
      return resolved.takeError();
    Expected<uint32_t> pluginFlags = pluginQueueFlags(flags);
    if (!pluginFlags)
      return pluginFlags.takeError();
    Expected<runtime::Ref<runtime::Queue>> queue = runtime::Queue::create(**resolved, *pluginFlags);
    if (!queue)
      return queue.takeError();
    *out = newHandle<dpk_queue_t>(*queue);
    return Error::success();
  });
}

dpk_status_t dpk_queue_wait(dpk_queue_t queue) {
  return apiEntry("dpk_queue_wait", [&] {
    Expected<runtime::Queue *> resolved = toQueue(queue);
    if (!resolved)
      return resolved.takeError();
    return (*resolved)->wait();
  });
}

dpk_device_t dpk_queue_device(dpk_queue_t queue) {
  dpk_device_t device = nullptr;
  apiEntry("dpk_queue_device", [&] {
    Expected<runtime::Queue *> resolved = toQueue(queue);
    if (!resolved)
      return resolved.takeError();
    device = toHandle(&(*resolved)->device());
    return Error::success();
  });
  return device;
}

dpk_status_t dpk_queue_get_native(dpk_native_queue_t *out, dpk_queue_t queue) {
  return apiEntry("dpk_queue_get_native", [&] {
    Expected<runtime::Queue *> resolved = toQueue(queue);
    if (!resolved)
      return resolved.takeError();
    if (!out)
      return nullArgument("out");
    if (out->struct_size == 0)
      return Error(DPK_ERROR_INVALID_ARGUMENT, "out->struct_size is 0 (set it to "
                                               "sizeof(dpk_native_queue_t))");
    return (*resolved)->nativeHandles(out);
  });
}

dpk_status_t dpk_queue_create_from_native(dpk_queue_t *out, dpk_device_t device,
                                          const dpk_native_queue_t *native) {
  return apiEntry("dpk_queue_create_from_native", [&] {
    if (!out)
      return nullArgument("out");
    if (!native)
      return nullArgument("native");
    if (native->struct_size < offsetof(dpk_native_queue_t, queue) + sizeof(void *))
      return Error(DPK_ERROR_INVALID_ARGUMENT, "native->struct_size is too small to hold the "
                                               "queue handle (set it to sizeof(dpk_native_queue_t))");
    Expected<runtime::Device *> resolved = toDevice(device);
    if (!resolved)
      return resolved.takeError();
    // Only the fields the caller's struct holds; the rest stay zero.
    dpk_native_queue_t full{};
    std::memcpy(&full, native, std::min(native->struct_size, sizeof full));
    full.struct_size = sizeof full;
    Expected<runtime::Ref<runtime::Queue>> queue = runtime::Queue::createFromNative(**resolved,
                                                                                    full);
    if (!queue)
      return queue.takeError();
    *out = newHandle<dpk_queue_t>(*queue);
    return Error::success();
  });
}

dpk_status_t dpk_queue_retain(dpk_queue_t queue) {
  return apiEntry("dpk_queue_retain", [&] {
    return retainHandle(queue, runtime::HandleKind::Queue, "queue");
  });
}

dpk_status_t dpk_queue_release(dpk_queue_t queue) {
  return apiEntry("dpk_queue_release", [&] {
    return releaseHandle(queue, runtime::HandleKind::Queue, "queue");
  });
}

} // extern "C"

// memory.cpp - dpk_mem_* and the copy and fill commands.
#include "ApiGuard.h"

#include "runtime/Memory.h"
#include "runtime/Transfer.h"

using namespace dpk;
using namespace dpk::capi;

namespace {

void giveEvent(dpk_event_t *out, runtime::Ref<runtime::Event> &event,
               const runtime::Queue &queue) {
  if (!out)
    return;
  event->setProfiled((queue.flags() & DPK_PL_QUEUE_PROFILING) != 0);
  *out = newHandle<dpk_event_t>(event);
}

} // namespace

extern "C" {

dpk_status_t dpk_mem_alloc(void **out, dpk_device_t device, dpk_mem_kind_t kind, size_t size) {
  return apiEntry("dpk_mem_alloc", [&] {
    if (!out)
      return nullArgument("out");
    Expected<runtime::Device *> resolved = toDevice(device);
    if (!resolved)
      return resolved.takeError();
    Expected<void *> ptr = runtime::allocateMemory(**resolved, kind, size);
    if (!ptr)
      return ptr.takeError();
    *out = *ptr;
    return Error::success();
  });
}

dpk_status_t dpk_mem_free(void *ptr) {
  return apiEntry("dpk_mem_free", [&] {
    if (!ptr)
      return Error::success(); // like free(NULL)
    return runtime::freeMemory(ptr);
  });
}

dpk_status_t dpk_enqueue_copy(dpk_event_t *out_event, dpk_queue_t queue, void *dst,
                              const void *src, size_t bytes, uint32_t num_deps,
                              const dpk_event_t *deps) {
  return apiEntry("dpk_enqueue_copy", [&] {
    Expected<runtime::Queue *> resolved = toQueue(queue);
    if (!resolved)
      return resolved.takeError();
    if (bytes > 0 && (!dst || !src))
      return nullArgument(!dst ? "dst" : "src");
    Expected<std::vector<runtime::Event *>> events = toEvents(num_deps, deps, "deps");
    if (!events)
      return events.takeError();
    Expected<runtime::Ref<runtime::Event>> event =
        runtime::enqueueCopy(**resolved, dst, src, bytes, *events, out_event != nullptr);
    if (!event)
      return event.takeError();
    giveEvent(out_event, *event, **resolved);
    return Error::success();
  });
}

dpk_status_t dpk_enqueue_fill(dpk_event_t *out_event, dpk_queue_t queue, void *dst,
                              const void *pattern, size_t pattern_size, size_t bytes,
                              uint32_t num_deps, const dpk_event_t *deps) {
  return apiEntry("dpk_enqueue_fill", [&] {
    Expected<runtime::Queue *> resolved = toQueue(queue);
    if (!resolved)
      return resolved.takeError();
    if (!pattern)
      return nullArgument("pattern");
    if (bytes > 0 && !dst)
      return nullArgument("dst");
    Expected<std::vector<runtime::Event *>> events = toEvents(num_deps, deps, "deps");
    if (!events)
      return events.takeError();
    Expected<runtime::Ref<runtime::Event>> event =
        runtime::enqueueFill(**resolved, dst, pattern, pattern_size, bytes, *events);
    if (!event)
      return event.takeError();
    giveEvent(out_event, *event, **resolved);
    return Error::success();
  });
}

} // extern "C"

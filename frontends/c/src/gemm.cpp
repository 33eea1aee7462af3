// gemm.cpp - dpk_enqueue_gemm.
#include "ApiGuard.h"

#include "runtime/Gemm.h"

using namespace dpk;
using namespace dpk::capi;

extern "C" {

dpk_status_t dpk_enqueue_gemm(dpk_event_t *out_event, dpk_queue_t queue,
                              const dpk_gemm_desc_t *desc, uint32_t num_deps,
                              const dpk_event_t *deps) {
  return apiEntry("dpk_enqueue_gemm", [&] {
    Expected<runtime::Queue *> resolved = toQueue(queue);
    if (!resolved)
      return resolved.takeError();
    if (!desc)
      return nullArgument("desc");
    if (desc->struct_size < sizeof(dpk_gemm_desc_t))
      return Error(DPK_ERROR_INVALID_ARGUMENT,
                   "desc->struct_size is " + std::to_string(desc->struct_size) +
                       " (set it to sizeof(dpk_gemm_desc_t))");
    Expected<std::vector<runtime::Event *>> events = toEvents(num_deps, deps, "deps");
    if (!events)
      return events.takeError();
    Expected<runtime::Ref<runtime::Event>> event = runtime::enqueueGemm(**resolved, *desc, *events);
    if (!event)
      return event.takeError();
    if (out_event) {
      (*event)->setProfiled(((*resolved)->flags() & DPK_PL_QUEUE_PROFILING) != 0);
      *out_event = newHandle<dpk_event_t>(*event);
    }
    return Error::success();
  });
}

} // extern "C"

// memory.hpp - host memory entry points.
#ifndef DPK_BACKENDS_HOST_MEMORY_HPP
#define DPK_BACKENDS_HOST_MEMORY_HPP

#include "dpk/plugin.h"

namespace dpk::host {
dpk_status_t memAlloc(dpk_pl_context_t context, dpk_mem_kind_t kind, size_t size, size_t alignment,
                      void **out);
dpk_status_t memFree(dpk_pl_context_t context, void *ptr);
} // namespace dpk::host

#endif

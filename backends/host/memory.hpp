// memory.hpp - host memory entry points.
#ifndef DPK_BACKENDS_HOST_MEMORY_HPP
#define DPK_BACKENDS_HOST_MEMORY_HPP

#include "dpk/plugin.h"
#include "entries.hpp"

namespace dpk::host {
} // namespace dpk::host

#endif

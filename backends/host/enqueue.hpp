// enqueue.hpp - commands of the host backend: copies, fills, kernel launches.
#ifndef DPK_BACKENDS_HOST_ENQUEUE_HPP
#define DPK_BACKENDS_HOST_ENQUEUE_HPP

#include "dpk/plugin.h"
#include "entries.hpp"

namespace dpk::host {
} // namespace dpk::host

#endif

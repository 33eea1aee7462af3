// enqueue.hpp - commands: copies, fills and kernel launches.
#ifndef DPK_BACKENDS_LEVEL_ZERO_ENQUEUE_HPP
#define DPK_BACKENDS_LEVEL_ZERO_ENQUEUE_HPP

#include "dpk/plugin.h"
#include "entries.hpp"

namespace dpk::level_zero {


} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_ENQUEUE_HPP

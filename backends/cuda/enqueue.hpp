// enqueue.hpp - commands: copies, fills and kernel launches.
#ifndef DPK_BACKENDS_CUDA_ENQUEUE_HPP
#define DPK_BACKENDS_CUDA_ENQUEUE_HPP

#include "dpk/plugin.h"
#include "entries.hpp"

namespace dpk::cuda {


} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_ENQUEUE_HPP

// common.hpp - the one CUresult -> dpk_status_t mapping and the early-exit macro of the CUDA
// backend.
#ifndef DPK_BACKENDS_CUDA_COMMON_HPP
#define DPK_BACKENDS_CUDA_COMMON_HPP

#include "driver_api.hpp"

#include "PluginSupport.h"
#include "RefCounted.h"
#include "dpk/plugin.h"

#include <string>

namespace dpk::cuda {

using plugin::fail;
using plugin::RefCounted;

/// The dpk status a driver result stands for.
dpk_status_t mapCudaResult(CUresult result);

/// "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", from the driver's own tables.
std::string describeCudaResult(CUresult result);

/// Records "<call>: <description>[: <context>]" with the native code as this thread's last
/// error and returns the mapped status; DPK_SUCCESS (recording nothing) for CUDA_SUCCESS.
dpk_status_t checkCu(CUresult result, const char *call, const std::string &context = {});

/// Makes `context` current on the calling thread: the driver keeps the current context per
/// thread, and dpk entry points may be called from any thread.
dpk_status_t makeCurrent(CUcontext context);

} // namespace dpk::cuda

/// Returns from the enclosing entry point when a driver call fails, recording its name.
#define CUDA_RETURN_ON_FAILURE(expr, callName)                                                     \
  do {                                                                                             \
    ::dpk::cuda::CUresult cudaResult_ = (expr);                                                    \
    if (cudaResult_ != ::dpk::cuda::CUDA_SUCCESS)                                                  \
      return ::dpk::cuda::checkCu(cudaResult_, callName);                                          \
  } while (0)

/// Returns when a dpk_status_t expression is not DPK_SUCCESS.
#define RETURN_ON_FAILURE(expr) DPK_RETURN_ON_FAILURE(expr)

#endif // DPK_BACKENDS_CUDA_COMMON_HPP

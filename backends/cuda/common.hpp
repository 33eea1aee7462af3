// common.hpp - the one CUresult -> dpk_status_t mapping and the early-exit macro of the CUDA
// backend.
#ifndef DPK_BACKENDS_CUDA_COMMON_HPP
#define DPK_BACKENDS_CUDA_COMMON_HPP

#include "driver_api.hpp"

#include "PluginSupport.h"
#include "RefCounted.h"
#include "dpk/plugin.h"

#include <cstdint>
#include <string>

namespace dpk::cuda {

using plugin::fail;
using plugin::RefCounted;

/// A dpk pointer as the driver's device address: with unified addressing every device, managed
/// and pinned host pointer is its own CUdeviceptr (memory.cpp).
inline CUdeviceptr devicePointer(const void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

/// The dpk status a driver result stands for.
dpk_status_t mapCudaResult(CUresult result);

/// "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", from the driver's own tables.
std::string describeCudaResult(CUresult result);

/// Records "<call>: <description>[: <context>]" with the native code as this thread's last
/// error and returns the mapped status; DPK_SUCCESS (recording nothing) for CUDA_SUCCESS.
dpk_status_t checkCu(CUresult result, const char *call, const std::string &context = {});

/// cuCtxSetCurrent, its failure recorded: makeCurrent's path when the context differs.
dpk_status_t setCurrent(CUcontext context);

/// Makes `context` current on the calling thread: the driver keeps the current context per
/// thread, and dpk entry points may be called from any thread. Inline: every command and wait
/// runs it.
inline dpk_status_t makeCurrent(CUcontext context) {
  // Every entry point runs on the caller's thread, whose current context may have been changed
  // since dpk's last call by other CUDA code on that thread (CuPy, PyTorch or the application
  // selecting another GPU), so the thread's current context is read each time, never remembered
  // by dpk: a cache of our own would launch into the wrong context after such a switch. Reading it
  // is cheaper than setting it, and setting it is needed only when it differs, which on a thread
  // that uses one dpk device is only the first call.
  CUcontext current = nullptr;
  if (cu.ctxGetCurrent(&current) == CUDA_SUCCESS && current == context)
    return DPK_SUCCESS;
  return setCurrent(context);
}

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

// driver_api.cpp - loads libcuda.so.1 and resolves the driver entry points.
#include "driver_api.hpp"

#include <cstdlib>
#include <dlfcn.h>

namespace dpk::cuda {

DriverApi cu;

namespace {

template <typename Fn> bool resolve(void *library, const char *symbol, Fn &out) {
  out = reinterpret_cast<Fn>(dlsym(library, symbol));
  return out != nullptr;
}

} // namespace

std::string loadDriver() {
  const char *override = std::getenv("DPK_CUDA_LIBRARY");
  const char *name = override && *override ? override : "libcuda.so.1";
  // RTLD_LOCAL keeps the driver's symbols out of the process's global namespace; the handle is
  // never closed because libcuda leaves threads behind that would run unmapped code.
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return std::string(name) + " not found (" + (why ? why : "dlopen failed") +
           "): no NVIDIA driver on this machine";
  }
  DriverApi api;
#define DPK_CUDA_RESOLVE(member, symbol, ret, params)                                              \
  if (!resolve(library, symbol, api.member))                                                       \
    return std::string(name) + " lacks " symbol ": the NVIDIA driver is too old";
  DPK_CUDA_DRIVER_FUNCTIONS(DPK_CUDA_RESOLVE)
#undef DPK_CUDA_RESOLVE
  if (!resolve(library, "cuEventElapsedTime_v2", api.eventElapsedTime) &&
      !resolve(library, "cuEventElapsedTime", api.eventElapsedTime))
    return std::string(name) + " lacks cuEventElapsedTime: the NVIDIA driver is too old";
  resolve(library, "cuFuncGetParamInfo", api.funcGetParamInfo);
  cu = api;
  return {};
}

} // namespace dpk::cuda

// cublas_api.cpp - loads cuBLAS and maps its statuses.
#include "cublas_api.hpp"

#include "common.hpp"

#include "OptionalLibrary.h"

#include <dlfcn.h>

namespace dpk::cuda {
namespace {

constexpr const char *kSearchList[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11",
                                       "libcublas.so"};

template <typename Fn> bool resolve(void *library, const char *symbol, Fn &out) {
  out = reinterpret_cast<Fn>(dlsym(library, symbol));
  return out != nullptr;
}

/// Opens `name` and resolves every function; "" on success, else why not.
std::string tryLibrary(const char *name, CublasApi &out) {
  // Never closed, as libcuda is not: its handles' workspaces live as long as the contexts.
  std::string why;
  void *library = plugin::openLocalLibrary(name, why);
  if (!library)
    return why;
  CublasApi api;
#define DPK_CUBLAS_RESOLVE(member, symbol, params)                                                 \
  if (!resolve(library, symbol, api.member))                                                       \
    return std::string(name) + " lacks " symbol;
  DPK_CUBLAS_FUNCTIONS(DPK_CUBLAS_RESOLVE)
#undef DPK_CUBLAS_RESOLVE
  api.library = name;
  out = api;
  return {};
}

struct Loaded {
  CublasApi api;
  bool found = false;
  std::string whyNot;
};

Loaded load() {
  Loaded loaded;
  loaded.whyNot = plugin::loadOptionalLibrary(
      "DPK_CUBLAS_LIBRARY", kSearchList, "no cuBLAS found (install the CUDA toolkit's libcublas)",
      [&](const char *name) { return tryLibrary(name, loaded.api); });
  if (loaded.whyNot.rfind("switched off", 0) == 0)
    loaded.whyNot = "cuBLAS " + loaded.whyNot;
  loaded.found = loaded.whyNot.empty();
  return loaded;
}

const char *statusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "cuBLAS status";
}

dpk_status_t mapCublasStatus(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return DPK_SUCCESS;
  case CUBLAS_STATUS_ALLOC_FAILED:
    return DPK_ERROR_OUT_OF_DEVICE_MEMORY;
  case CUBLAS_STATUS_INVALID_VALUE:
    return DPK_ERROR_INVALID_ARGUMENT;
  case CUBLAS_STATUS_ARCH_MISMATCH:
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return DPK_ERROR_UNSUPPORTED;
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return DPK_ERROR_LAUNCH;
  }
  return DPK_ERROR_DEVICE;
}

} // namespace

const CublasApi *loadCublas(std::string &whyNot) {
  static const Loaded loaded = load();
  if (!loaded.found) {
    whyNot = loaded.whyNot;
    return nullptr;
  }
  return &loaded.api;
}

std::string describeCublasStatus(cublasStatus_t status) {
  return std::string(statusName(status)) + " (" + std::to_string(status) + ")";
}

dpk_status_t checkCublas(cublasStatus_t status, const char *call) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return DPK_SUCCESS;
  return fail(mapCublasStatus(status), status, std::string(call) + ": " + describeCublasStatus(status));
}

} // namespace dpk::cuda

// context.hpp - a cl_context for one device and the allocations made in it.
#ifndef DPK_BACKENDS_OPENCL_CONTEXT_HPP
#define DPK_BACKENDS_OPENCL_CONTEXT_HPP

#include "device.hpp"
#include "memory.hpp"
#include "entries.hpp"

#include <map>
#include <mutex>

struct dpk_pl_context_s {
  dpk_pl_device_t device = nullptr;
  cl_context native = nullptr;
  std::mutex mutex;                                         // guards allocations
  std::map<uintptr_t, dpk::opencl::Allocation> allocations; // by base address

  dpk_pl_context_s() = default;
  dpk_pl_context_s(const dpk_pl_context_s &) = delete;
  dpk_pl_context_s &operator=(const dpk_pl_context_s &) = delete;
  ~dpk_pl_context_s(); // frees what the user left allocated, then the cl_context
};

namespace dpk::opencl {


} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_CONTEXT_HPP

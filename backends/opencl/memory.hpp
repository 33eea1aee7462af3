// memory.hpp - dpk's pointer-addressed allocations over USM, SVM or cl_mem buffers, and the
// translation of a pointer into what an OpenCL call takes.
#ifndef DPK_BACKENDS_OPENCL_MEMORY_HPP
#define DPK_BACKENDS_OPENCL_MEMORY_HPP

#include "common.hpp"
#include "entries.hpp"

#include <cstdint>

struct dpk_pl_context_s;

namespace dpk::opencl {

struct Allocation {
  size_t size = 0;
  dpk_mem_kind_t kind = DPK_MEM_DEVICE;
  // Buffer strategy only: the buffer behind the address, and the PROT_NONE reservation that
  // keeps the address from ever naming host memory.
  cl_mem buffer = nullptr;
  void *reservation = nullptr;
  size_t reservationSize = 0;
};

/// Where a pointer lies in a context.
struct Location {
  bool inAllocation = false; // false: host memory (or a foreign pointer)
  cl_mem buffer = nullptr;   // the allocation's buffer (Buffer strategy only)
  size_t offset = 0;         // from the allocation's start
  size_t available = 0;      // bytes from the pointer to the allocation's end
};

Location locate(dpk_pl_context_s &context, const void *ptr);

/// Gives the allocation at `address` back to the driver (not removed from the map).
void releaseAllocation(dpk_pl_context_s &context, uintptr_t address, Allocation &allocation);

/// Sets pointer argument `index` of `kernel` to the device address `ptr`. With the Buffer
/// strategy a pointer inside an allocation becomes a sub-buffer, returned in *subBuffer for the
/// caller to release after the launch was enqueued.
dpk_status_t setPointerArgument(dpk_pl_context_s &context, cl_kernel kernel, cl_uint index,
                                const void *ptr, cl_mem *subBuffer);


} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_MEMORY_HPP

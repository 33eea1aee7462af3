// memory.cpp - host allocations. Every kind is plain host memory, so device, shared and host
// allocations are all directly addressable by the CPU and by kernels.
#include "device.hpp"
#include "memory.hpp"

#include "PluginSupport.h"

#include <sys/mman.h>

#include <cstdlib>
#include <limits>
#include <string>

namespace plugin = dpk::plugin;

namespace dpk::host {
namespace {

// Large allocations ask for transparent huge pages. Data-parallel kernels stream through big
// arrays; with 4 KiB pages every page boundary costs a TLB miss and stops the hardware
// prefetchers, with 2 MiB pages neither happens. Debian's kernels default THP to "madvise",
// so memory gets huge pages only when it asks. Small allocations keep the allocator's pages.
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugePageThreshold = 4 * kHugePage;

void adviseHugePages(void *ptr, size_t bytes) {
#ifdef MADV_HUGEPAGE
  // Advice only: a kernel without THP refuses it and the memory works the same.
  (void)madvise(ptr, bytes, MADV_HUGEPAGE);
#else
  (void)ptr;
  (void)bytes;
#endif
}

// DPK_HOST_HUGE_PAGES=0 turns the advice off (to measure its effect, or on a kernel where
// khugepaged's compaction costs more than it brings).
bool hugePagesWanted() {
  static const bool wanted = [] {
    const char *value = std::getenv("DPK_HOST_HUGE_PAGES");
    return !value || std::string(value) != "0";
  }();
  return wanted;
}

} // namespace

dpk_status_t memAlloc(void **out, dpk_pl_context_t context, dpk_mem_kind_t kind, size_t size, size_t alignment) {
  // Every kind is host memory. 64 bytes: a cache line and a full AVX-512 vector, so kernels
  // never split vector accesses.
  size_t align = alignment > 64 ? alignment : 64;
  const bool huge = size >= kHugePageThreshold && hugePagesWanted();
  if (huge && align < kHugePage)
    align = kHugePage;
  // Rounding a size near SIZE_MAX up to the alignment wraps to a small number, and
  // aligned_alloc would then hand out a small block for a huge request.
  if (size > std::numeric_limits<size_t>::max() - (align - 1))
    return plugin::fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY,
                        "mem_alloc: " + std::to_string(size) + " bytes is more than an address space holds");
  size_t rounded = (size + align - 1) / align * align;
  void *ptr = std::aligned_alloc(align, rounded);
  if (!ptr)
    return plugin::fail(DPK_ERROR_OUT_OF_DEVICE_MEMORY, "mem_alloc: cannot allocate " + std::to_string(size) + " bytes of host memory");
  if (huge)
    adviseHugePages(ptr, rounded);
  *out = ptr;
  return DPK_SUCCESS;
}

dpk_status_t memFree(dpk_pl_context_t context, void *ptr) {
  std::free(ptr);
  return DPK_SUCCESS;
}

} // namespace dpk::host

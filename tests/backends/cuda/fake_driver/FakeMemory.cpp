// FakeMemory.cpp - allocations (host memory standing in for device, managed and pinned memory),
// pointer attributes, copies and fills, all done at once on the calling thread.
#include "FakeState.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

using namespace fake_cuda;

namespace {

enum class MemoryKind { Device, Managed, PinnedHost };

struct Block {
  size_t size;
  MemoryKind kind;
};

std::mutex blocksLock;
std::map<uintptr_t, Block> blocks; // by base address; guarded by blocksLock

CUresult allocate(void **out, size_t bytes, size_t alignment, MemoryKind kind) {
  if (!out || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void *memory = std::aligned_alloc(alignment, rounded);
  if (!memory)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> guard(blocksLock);
  blocks[reinterpret_cast<uintptr_t>(memory)] = Block{bytes, kind};
  *out = memory;
  return CUDA_SUCCESS;
}

CUresult release(uintptr_t base, bool pinnedHost) {
  std::lock_guard<std::mutex> guard(blocksLock);
  auto it = blocks.find(base);
  if (it == blocks.end() || (it->second.kind == MemoryKind::PinnedHost) != pinnedHost)
    return CUDA_ERROR_INVALID_VALUE;
  blocks.erase(it);
  std::free(reinterpret_cast<void *>(base));
  return CUDA_SUCCESS;
}

/// The allocation that holds `address`, or null for memory the fake did not hand out.
const Block *owningBlock(uintptr_t address) {
  auto it = blocks.upper_bound(address);
  if (it == blocks.begin())
    return nullptr;
  --it;
  return address < it->first + it->second.size ? &it->second : nullptr;
}

void *hostAddress(CUdeviceptr ptr) { return reinterpret_cast<void *>(static_cast<uintptr_t>(ptr)); }

template <typename T> CUresult fillWith(CUdeviceptr dst, T value, size_t count) {
  T *out = static_cast<T *>(hostAddress(dst));
  for (size_t i = 0; i < count; ++i)
    std::memcpy(out + i, &value, sizeof(T));
  return CUDA_SUCCESS;
}

} // namespace

FAKE_CUDA_EXPORT CUresult cuMemGetInfo_v2(size_t *freeBytes, size_t *totalBytes) {
  *freeBytes = TotalMemory;
  *totalBytes = TotalMemory;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  if (int rc = injectedFailure("cuMemAlloc_v2"))
    return rc;
  void *memory = nullptr;
  CUresult rc = allocate(&memory, bytes, 256, MemoryKind::Device);
  *ptr = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(memory));
  return rc;
}

FAKE_CUDA_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned) {
  void *memory = nullptr;
  CUresult rc = allocate(&memory, bytes, 256, MemoryKind::Managed);
  *ptr = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(memory));
  return rc;
}

FAKE_CUDA_EXPORT CUresult cuMemHostAlloc(void **ptr, size_t bytes, unsigned) {
  return allocate(ptr, bytes, 4096, MemoryKind::PinnedHost);
}

FAKE_CUDA_EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
  return release(static_cast<uintptr_t>(ptr), /*pinnedHost=*/false);
}

FAKE_CUDA_EXPORT CUresult cuMemFreeHost(void *ptr) {
  return release(reinterpret_cast<uintptr_t>(ptr), /*pinnedHost=*/true);
}

FAKE_CUDA_EXPORT CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr) {
  std::lock_guard<std::mutex> guard(blocksLock);
  const Block *block = owningBlock(static_cast<uintptr_t>(ptr));
  if (!block)
    return CUDA_ERROR_INVALID_VALUE; // the real driver's answer for pageable host memory
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_CONTEXT:
    *static_cast<CUcontext *>(data) = primaryContext();
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    *static_cast<int *>(data) = 0;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    *static_cast<unsigned *>(data) =
        block->kind == MemoryKind::PinnedHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

FAKE_CUDA_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                        CUstream) {
  if (int rc = injectedFailure("cuMemcpyAsync"))
    return rc;
  std::memmove(hostAddress(dst), hostAddress(src), bytes);
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
                                          CUstream) {
  return fillWith(dst, value, count);
}

FAKE_CUDA_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                                           CUstream) {
  if (static_cast<uintptr_t>(dst) % 2)
    return CUDA_ERROR_INVALID_VALUE;
  return fillWith(dst, value, count);
}

FAKE_CUDA_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                                           CUstream) {
  if (static_cast<uintptr_t>(dst) % 4)
    return CUDA_ERROR_INVALID_VALUE;
  return fillWith(dst, value, count);
}

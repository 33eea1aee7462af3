// small_read.cpp - the copy kernel, its module per context and the staging block per queue.
#include "small_read.hpp"

#include <cstdint>
#include <cstring>

namespace dpk::cuda {
namespace {

constexpr const char *KernelName = "dpk_cuda_small_read";
constexpr unsigned MaxThreads = 256;

// One block copies `bytes` bytes from src to dst, thread t taking bytes t, t + ntid, ...
// (generic addressing: dst is pinned host memory mapped into the device's address space).
// PTX 6.0 for sm_50: the driver JIT compiles it for whatever GPU the context is on.
constexpr const char *KernelPtx = R"(.version 6.0
.target sm_50
.address_size 64

.visible .entry dpk_cuda_small_read(.param .u64 dst, .param .u64 src, .param .u64 bytes)
{
  .reg .pred %p;
  .reg .b16 %byte;
  .reg .b32 %r<3>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [src];
  ld.param.u64 %rd3, [bytes];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd4, %r1;
  mov.u32 %r2, %ntid.x;
  cvt.u64.u32 %rd5, %r2;
NEXT:
  setp.ge.u64 %p, %rd4, %rd3;
  @%p bra DONE;
  add.u64 %rd6, %rd2, %rd4;
  ld.u8 %byte, [%rd6];
  add.u64 %rd7, %rd1, %rd4;
  st.u8 [%rd7], %byte;
  add.u64 %rd4, %rd4, %rd5;
  bra.uni NEXT;
DONE:
  ret;
}
)";

/// The context's copy kernel, loaded on first use; null when the driver refused the module (then
/// never asked again: reads keep the copy engine).
CUfunction readKernel(Context &context) {
  std::lock_guard<std::mutex> guard(context.lock);
  if (!context.smallReadTried) {
    context.smallReadTried = true;
    CUmodule module = nullptr;
    if (cu.moduleLoadDataEx(&module, KernelPtx, 0, nullptr, nullptr) != CUDA_SUCCESS)
      return nullptr;
    CUfunction function = nullptr;
    if (cu.moduleGetFunction(&function, module, KernelName) != CUDA_SUCCESS) {
      cu.moduleUnload(module);
      return nullptr;
    }
    context.smallReadModule = module;
    context.smallReadKernel = function;
  }
  return context.smallReadKernel;
}

} // namespace

bool isSmallRead(Queue &queue, void *dst, const void *src, size_t bytes) {
  if (bytes == 0 || bytes > SmallReadMaxBytes)
    return false;
  // Cheapest first: an idle stream keeps the copy engine, whatever the pointers. A stream only
  // dpk submits to is idle when nothing was submitted since the plugin last synchronized it (no
  // driver call); a borrowed one (another library's) is asked.
  if (queue.ownsStream ? !queue.unsynced.load(std::memory_order_relaxed)
                       : cu.streamQuery(queue.stream) != CUDA_ERROR_NOT_READY)
    return false;
  CUcontext owner = nullptr;
  unsigned memoryType = 0;
  if (cu.pointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, devicePointer(src)) !=
          CUDA_SUCCESS ||
      owner != queue.context->native ||
      cu.pointerGetAttribute(&memoryType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, devicePointer(src)) !=
          CUDA_SUCCESS ||
      memoryType != CU_MEMORYTYPE_DEVICE)
    return false;
  // Pageable host memory is the one kind the driver has no attributes for.
  CUcontext dstOwner = nullptr;
  return cu.pointerGetAttribute(&dstOwner, CU_POINTER_ATTRIBUTE_CONTEXT, devicePointer(dst)) ==
         CUDA_ERROR_INVALID_VALUE;
}

dpk_status_t smallRead(Queue &queue, void *dst, const void *src, size_t bytes) {
  CUfunction kernel = readKernel(*queue.context);
  if (!kernel)
    return DPK_ERROR_UNSUPPORTED; // (no message: the caller copies with the copy engine)
  // One staging block per queue: concurrent reads on one queue take turns.
  std::lock_guard<std::mutex> guard(queue.readLock);
  if (!queue.readStaging &&
      cu.memHostAlloc(&queue.readStaging, SmallReadMaxBytes,
                      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS) {
    queue.readStaging = nullptr;
    return DPK_ERROR_UNSUPPORTED;
  }
  CUdeviceptr staging = devicePointer(queue.readStaging);
  CUdeviceptr from = devicePointer(src);
  uint64_t count = bytes;
  void *params[] = {&staging, &from, &count};
  unsigned threads =
      bytes < MaxThreads ? static_cast<unsigned>((bytes + 31) / 32 * 32) : MaxThreads;
  CUDA_RETURN_ON_FAILURE(
      cu.launchKernel(kernel, 1, 1, 1, threads, 1, 1, 0, queue.stream, params, nullptr),
      "cuLaunchKernel");
  queue.noteSynchronized(); // before the call: what is submitted during it sets it again
  CUresult rc = cu.streamSynchronize(queue.stream);
  if (rc != CUDA_SUCCESS) {
    std::string what = "reading " + std::to_string(bytes) + " bytes on " +
                       queue.context->device->label();
    if (auto last = queue.latestKernel())
      what += ", after kernel '" + *last + "' (the last kernel launched on this queue)";
    return checkCu(rc, "cuStreamSynchronize", what);
  }
  std::memcpy(dst, queue.readStaging, bytes);
  return DPK_SUCCESS;
}

void releaseSmallReadStaging(Queue &queue) {
  if (queue.readStaging)
    cu.memFreeHost(queue.readStaging);
  queue.readStaging = nullptr;
}

void releaseSmallReadKernel(Context &context) {
  if (context.smallReadModule)
    cu.moduleUnload(context.smallReadModule);
  context.smallReadModule = nullptr;
  context.smallReadKernel = nullptr;
}

} // namespace dpk::cuda

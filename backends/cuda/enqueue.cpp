// enqueue.cpp - copies, fills and kernel launches on a queue's stream.
//
// Kernel ABI (what the PTX a launch runs must look like; docs/backends/cuda.md):
//  - the .entry has one .param per dpk argument, in order;
//  - DPK_ARG_POINTER: a .u64 holding the device address;
//  - DPK_ARG_SCALAR: the scalar's bytes (.u32/.f32/.u64/.f64/... of the same size);
//  - DPK_ARG_LOCAL: a .u64 holding a BYTE OFFSET into the kernel's dynamic shared memory
//    (`.extern .shared .align 16 .b8 dpk_local[]`); the kernel adds it to the window's base.
//    The plugin lays the LOCAL arguments out one after another in argument order, each at an
//    offset aligned to 16 bytes, and launches with their total as the dynamic shared memory
//    size. The plugin cannot pass addresses: where dynamic shared memory starts depends on the
//    kernel's static shared memory, which only the kernel knows.
//  - dpk dimension d of an n-dimensional launch is CUDA dimension n-1-d (see geometry.hpp).
//
// The core checked the handles, argument kinds and values, the range's shape and the fill
// pattern before these entries run (core/runtime/PluginValidation.cpp); what is checked here is
// what only the kernel and the device know.
#include "enqueue.hpp"

#include "event.hpp"
#include "geometry.hpp"
#include "kernel.hpp"
#include "peer.hpp"
#include "small_read.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace dpk::cuda {
namespace {

constexpr size_t LocalArgAlignment = 16;
constexpr uint32_t InlineArgs = 32; // launches with more arguments allocate

const char *kindName(dpk_arg_kind_t kind) {
  switch (kind) {
  case DPK_ARG_POINTER:
    return "pointer";
  case DPK_ARG_SCALAR:
    return "scalar";
  case DPK_ARG_LOCAL:
    return "local";
  }
  return "unknown";
}

/// Fills with a pattern the memset calls cannot express (8..128 bytes, or a misaligned
/// destination): one chunk of the repeated pattern is copied in from the host, then the filled
/// prefix doubles with device-to-device copies, so a fill of N bytes costs log2(N / 64 KiB)
/// copies. The pageable source may go away on return: the driver stages pageable host-to-device
/// copies before cuMemcpyAsync returns.
dpk_status_t fillByDoubling(CUstream stream, CUdeviceptr dst, const void *pattern,
                            size_t patternSize, size_t bytes) {
  constexpr size_t Chunk = 65536; // a multiple of every pattern size dpk allows
  size_t first = bytes < Chunk ? bytes : Chunk;
  std::vector<unsigned char> staging(first);
  for (size_t i = 0; i < first; i += patternSize)
    std::memcpy(staging.data() + i, pattern, patternSize);
  CUDA_RETURN_ON_FAILURE(cu.memcpyAsync(dst, devicePointer(staging.data()), first, stream),
                         "cuMemcpyAsync");
  for (size_t filled = first; filled < bytes;) {
    size_t n = bytes - filled < filled ? bytes - filled : filled;
    CUDA_RETURN_ON_FAILURE(cu.memcpyAsync(dst + filled, dst, n, stream), "cuMemcpyAsync");
    filled += n;
  }
  return DPK_SUCCESS;
}

dpk_status_t fill(CUstream stream, void *dst, const void *pattern, size_t patternSize,
                  size_t bytes) {
  CUdeviceptr d = devicePointer(dst);
  size_t count = bytes / patternSize;
  bool aligned = reinterpret_cast<uintptr_t>(dst) % patternSize == 0;
  switch (patternSize) {
  case 1: {
    unsigned char v;
    std::memcpy(&v, pattern, 1);
    return checkCu(cu.memsetD8Async(d, v, count, stream), "cuMemsetD8Async");
  }
  case 2:
    if (aligned) {
      unsigned short v;
      std::memcpy(&v, pattern, 2);
      return checkCu(cu.memsetD16Async(d, v, count, stream), "cuMemsetD16Async");
    }
    break;
  case 4:
    if (aligned) {
      unsigned v;
      std::memcpy(&v, pattern, 4);
      return checkCu(cu.memsetD32Async(d, v, count, stream), "cuMemsetD32Async");
    }
    break;
  }
  return fillByDoubling(stream, d, pattern, patternSize, bytes);
}

} // namespace

dpk_status_t enqueueCopy(dpk_pl_event_t *outEvent, dpk_pl_queue_t handle, void *dst, const void *src, size_t bytes,
                         uint32_t numDeps, const dpk_pl_event_t *deps) {
  Queue &queue = *toQueue(handle);
  RETURN_ON_FAILURE(makeCurrent(queue.context->native));
  RETURN_ON_FAILURE(waitForDependencies(queue, numDeps, deps));
  if (numDeps)
    queue.noteSubmitted(); // the stream may wait for other work now
  // A few bytes to pageable memory behind running work (a reduction's result): the copy kernel
  // (small_read.hpp), or the copy engine when it is unavailable. Asked before this copy counts
  // as submitted work.
  bool small = isSmallRead(queue, dst, src, bytes);
  queue.noteSubmitted();
  std::unique_ptr<Event> event;
  RETURN_ON_FAILURE(beginCommandEvent(queue, outEvent != nullptr, CommandKind::Copy, bytes,
                                      queue.latestKernel(), event));
  dpk_status_t read = DPK_ERROR_UNSUPPORTED;
  if (small) {
    read = smallRead(queue, dst, src, bytes);
    if (read != DPK_SUCCESS && read != DPK_ERROR_UNSUPPORTED)
      return read;
  }
  // Unified addressing: the driver infers the direction (host pageable, pinned, device,
  // managed) from the pointers; between two GPUs it copies directly once peer access is on.
  if (bytes >= PeerCheckMinBytes)
    enablePeerAccessFor(*queue.context, dst, src);
  if (bytes && read != DPK_SUCCESS)
    CUDA_RETURN_ON_FAILURE(
        cu.memcpyAsync(devicePointer(dst), devicePointer(src), bytes, queue.stream),
        "cuMemcpyAsync");
  return endCommandEvent(queue, event, outEvent);
}

dpk_status_t enqueueFill(dpk_pl_event_t *outEvent, dpk_pl_queue_t handle, void *dst, const void *pattern, size_t patternSize,
                         size_t bytes, uint32_t numDeps, const dpk_pl_event_t *deps) {
  Queue &queue = *toQueue(handle);
  RETURN_ON_FAILURE(makeCurrent(queue.context->native));
  RETURN_ON_FAILURE(waitForDependencies(queue, numDeps, deps));
  queue.noteSubmitted();
  std::unique_ptr<Event> event;
  RETURN_ON_FAILURE(beginCommandEvent(queue, outEvent != nullptr, CommandKind::Fill, bytes,
                                      queue.latestKernel(), event));
  if (bytes)
    RETURN_ON_FAILURE(fill(queue.stream, dst, pattern, patternSize, bytes));
  return endCommandEvent(queue, event, outEvent);
}

dpk_status_t enqueueLaunch(dpk_pl_event_t *outEvent, dpk_pl_queue_t handle, dpk_pl_kernel_t kernelHandle,
                           const dpk_launch_config_t *config, uint32_t numArgs,
                           const dpk_kernel_arg_t *args, uint32_t numDeps,
                           const dpk_pl_event_t *deps) {
  Queue &queue = *toQueue(handle);
  Kernel &kernel = *toKernel(kernelHandle);
  const Device &device = *queue.context->device;
  auto where = [&] { return "kernel '" + *kernel.name + "' on " + device.label(); };

  if (kernel.paramsKnown && kernel.paramSizes.size() != numArgs)
    return fail(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch: " + where() + " takes " +
                                                std::to_string(kernel.paramSizes.size()) +
                                                " arguments, " + std::to_string(numArgs) +
                                                " given");

  // Marshal the arguments: kernelParams[i] points to argument i's bytes.
  void *inlineParams[InlineArgs];
  uint64_t inlineOffsets[InlineArgs];
  std::unique_ptr<void *[]> heapParams;
  std::unique_ptr<uint64_t[]> heapOffsets;
  void **params = inlineParams;
  uint64_t *localOffsets = inlineOffsets;
  if (numArgs > InlineArgs) {
    heapParams.reset(new void *[numArgs]);
    heapOffsets.reset(new uint64_t[numArgs]);
    params = heapParams.get();
    localOffsets = heapOffsets.get();
  }
  // Read once: the stores into params[] below could alias the vector as far as the compiler
  // knows, which made it reload the kernel's list for every argument.
  const size_t *expectedSizes = kernel.paramsKnown ? kernel.paramSizes.data() : nullptr;
  uint64_t localBytes = 0;
  for (uint32_t i = 0; i < numArgs; ++i) {
    const dpk_kernel_arg_t &arg = args[i];
    size_t passed = 0;
    switch (arg.kind) {
    case DPK_ARG_POINTER:
      params[i] = const_cast<void *>(arg.value);
      passed = sizeof(void *);
      break;
    case DPK_ARG_SCALAR:
      params[i] = const_cast<void *>(arg.value);
      passed = arg.size;
      break;
    case DPK_ARG_LOCAL:
      localBytes = (localBytes + LocalArgAlignment - 1) & ~uint64_t(LocalArgAlignment - 1);
      localOffsets[i] = localBytes;
      localBytes += arg.size;
      params[i] = &localOffsets[i];
      passed = sizeof(uint64_t);
      break;
    }
    if (expectedSizes && expectedSizes[i] != passed)
      return fail(DPK_ERROR_INVALID_ARGUMENT,
                  "enqueue_launch: " + std::string(kindName(arg.kind)) + " argument " +
                      std::to_string(i) + " of " + where() + " is " + std::to_string(passed) +
                      " bytes, the kernel's parameter is " + std::to_string(expectedSizes[i]));
  }

  // Dynamic shared memory: past the default 48 KiB the kernel must opt in, up to the device's
  // opt-in limit minus the kernel's static shared memory.
  uint64_t sharedLimit = static_cast<uint64_t>(device.sharedPerBlockOptin - kernel.staticShared);
  if (localBytes > sharedLimit)
    return fail(DPK_ERROR_INVALID_RANGE,
                "enqueue_launch: " + where() + " needs " + std::to_string(localBytes) +
                    " bytes of local memory; the device allows " + std::to_string(sharedLimit) +
                    " (plus " + std::to_string(kernel.staticShared) + " bytes of static)");
  RETURN_ON_FAILURE(makeCurrent(queue.context->native));
  if (localBytes >
      static_cast<uint64_t>(kernel.dynamicSharedLimit.load(std::memory_order_relaxed))) {
    CUDA_RETURN_ON_FAILURE(cu.funcSetAttribute(kernel.function,
                                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               static_cast<int>(localBytes)),
                           "cuFuncSetAttribute");
    // Only ever raise the limit, also when several threads race here.
    int seen = kernel.dynamicSharedLimit.load();
    while (seen < static_cast<int>(localBytes) &&
           !kernel.dynamicSharedLimit.compare_exchange_weak(seen, static_cast<int>(localBytes))) {
    }
  }

  // A configuration launched before has its geometry remembered; a new one is checked against
  // the kernel's and the device's limits (every time, while it fails them).
  const Geometry *geometry = kernel.geometries.find(*config);
  Geometry computed;
  if (!geometry) {
    std::string why = computeGeometry(*config, kernel.limits, computed);
    if (!why.empty())
      return fail(DPK_ERROR_INVALID_RANGE, "enqueue_launch: " + where() + ": " + why);
    kernel.geometries.remember(*config, computed);
    geometry = &computed;
  }

  if (numDeps)
    RETURN_ON_FAILURE(waitForDependencies(queue, numDeps, deps));
  // Nobody can ask about a launch without an out-event (beginCommandEvent would make none).
  std::unique_ptr<Event> event;
  if (outEvent)
    RETURN_ON_FAILURE(
        beginCommandEvent(queue, true, CommandKind::Kernel, 0, kernel.name, event));
  CUresult rc =
      cu.launchKernel(kernel.function, geometry->grid[0], geometry->grid[1], geometry->grid[2],
                      geometry->block[0], geometry->block[1], geometry->block[2],
                      static_cast<unsigned>(localBytes), queue.stream, params, nullptr);
  if (rc != CUDA_SUCCESS) {
    dpk_status_t status = checkCu(rc, "cuLaunchKernel", where());
    // A refusal at launch time is a launch error, whatever the driver code maps to elsewhere.
    if (status != DPK_ERROR_DEVICE && status != DPK_ERROR_OUT_OF_DEVICE_MEMORY)
      status = fail(DPK_ERROR_LAUNCH, rc, plugin::lastError(nullptr));
    return status;
  }
  queue.noteKernel(kernel.name);
  queue.noteSubmitted();
  if (!outEvent)
    return DPK_SUCCESS;
  return endCommandEvent(queue, event, outEvent);
}

} // namespace dpk::cuda

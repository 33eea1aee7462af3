// enqueue.cpp - copies, fills and launches, each one OpenCL command whose cl_event becomes the
// dpk event.
//
// The core checked the handles, argument kinds and values, the range's shape and the fill
// pattern before these entries run (core/runtime/PluginValidation.cpp); what is checked here is
// what only this context's allocations and the kernel know.
#include "enqueue.hpp"

#include <cstring>
#include <vector>

namespace dpk::opencl {
namespace {

/// A command that does nothing but order: for empty copies and fills.
dpk_status_t enqueueMarker(cl_command_queue queue, const WaitList &waitList,
                           dpk_pl_event_t *outEvent) {
  cl_event done = nullptr;
  CL_RETURN_ON_FAILURE(clEnqueueMarkerWithWaitList(queue, waitList.size(), waitList.data(),
                                                   outEvent ? &done : nullptr));
  return publishEvent(done, outEvent);
}

dpk_status_t checkExtent(const Location &where, size_t bytes, const char *what) {
  if (where.inAllocation && bytes > where.available)
    return fail(DPK_ERROR_INVALID_ARGUMENT, std::string(what) + " runs " +
                                                std::to_string(bytes - where.available) +
                                                " bytes past the end of its allocation");
  return DPK_SUCCESS;
}

/// Buffer strategy: a copy between host memory and/or buffers.
dpk_status_t copyBuffers(dpk_pl_queue_t queue, void *dst, const Location &to, const void *src,
                         const Location &from, size_t bytes, const WaitList &waitList,
                         cl_event *done) {
  cl_command_queue native = queue->native;
  if (to.inAllocation && from.inAllocation)
    return checkCl(clEnqueueCopyBuffer(native, from.buffer, to.buffer, from.offset, to.offset,
                                       bytes, waitList.size(), waitList.data(), done),
                   "clEnqueueCopyBuffer");
  if (to.inAllocation)
    return checkCl(clEnqueueWriteBuffer(native, to.buffer, CL_FALSE, to.offset, bytes, src,
                                        waitList.size(), waitList.data(), done),
                   "clEnqueueWriteBuffer");
  if (from.inAllocation)
    return checkCl(clEnqueueReadBuffer(native, from.buffer, CL_FALSE, from.offset, bytes, dst,
                                       waitList.size(), waitList.data(), done),
                   "clEnqueueReadBuffer");
  // Host to host: no OpenCL command copies that, so wait for the dependencies and copy here.
  if (waitList.size())
    CL_RETURN_ON_FAILURE(clWaitForEvents(waitList.size(), waitList.data()));
  std::memmove(dst, src, bytes);
  return checkCl(clEnqueueMarkerWithWaitList(native, 0, nullptr, done),
                 "clEnqueueMarkerWithWaitList");
}

/// Sets kernel argument `index`; a sub-buffer made for a pointer goes to `subBuffers`.
dpk_status_t setArgument(dpk_pl_context_s &context, dpk_pl_kernel_s &kernel, cl_uint index,
                         const dpk_kernel_arg_t &arg, std::vector<cl_mem> &subBuffers) {
  std::string which = "argument " + std::to_string(index) + " of kernel '" + kernel.name + "'";
  switch (arg.kind) {
  case DPK_ARG_POINTER: {
    cl_mem subBuffer = nullptr;
    dpk_status_t status = setPointerArgument(context, kernel.native, index,
                                             *static_cast<void *const *>(arg.value), &subBuffer);
    if (subBuffer)
      subBuffers.push_back(subBuffer);
    return status;
  }
  case DPK_ARG_SCALAR:
    return checkCl(clSetKernelArg(kernel.native, index, arg.size, arg.value), "clSetKernelArg",
                   which);
  case DPK_ARG_LOCAL:
    return checkCl(clSetKernelArg(kernel.native, index, arg.size, nullptr), "clSetKernelArg",
                   which);
  }
  // Not reached: the core checks argument kinds.
  return fail(DPK_ERROR_INVALID_ARGUMENT, which + ": unknown kind");
}

} // namespace

dpk_status_t enqueueCopy(dpk_pl_event_t *outEvent, dpk_pl_queue_t queue, void *dst, const void *src, size_t bytes,
                         uint32_t numDeps, const dpk_pl_event_t *deps) {
  WaitList waitList;
  waitList.assign(numDeps, deps);
  if (bytes == 0)
    return enqueueMarker(queue->native, waitList, outEvent);
  dpk_pl_context_s &context = *queue->context;
  Location to = locate(context, dst), from = locate(context, src);
  DPK_RETURN_ON_FAILURE(checkExtent(to, bytes, "copy destination"));
  DPK_RETURN_ON_FAILURE(checkExtent(from, bytes, "copy source"));
  cl_event done = nullptr;
  cl_event *doneSlot = outEvent ? &done : nullptr;
  switch (context.device->memory) {
  case MemoryStrategyKind::Usm:
    DPK_RETURN_ON_FAILURE(
        checkCl(context.device->usm.enqueueMemcpy(queue->native, CL_FALSE, dst, src, bytes,
                                                  waitList.size(), waitList.data(), doneSlot),
                "clEnqueueMemcpyINTEL"));
    break;
  case MemoryStrategyKind::SvmFine:
  case MemoryStrategyKind::SvmCoarse:
    // clEnqueueSVMMemcpy takes plain host pointers for either end as well.
    CL_RETURN_ON_FAILURE(clEnqueueSVMMemcpy(queue->native, CL_FALSE, dst, src, bytes,
                                            waitList.size(), waitList.data(), doneSlot));
    break;
  case MemoryStrategyKind::Buffer:
    DPK_RETURN_ON_FAILURE(copyBuffers(queue, dst, to, src, from, bytes, waitList, doneSlot));
    break;
  }
  return publishEvent(done, outEvent);
}

dpk_status_t enqueueFill(dpk_pl_event_t *outEvent, dpk_pl_queue_t queue, void *dst, const void *pattern, size_t patternSize,
                         size_t bytes, uint32_t numDeps, const dpk_pl_event_t *deps) {
  WaitList waitList;
  waitList.assign(numDeps, deps);
  if (bytes == 0)
    return enqueueMarker(queue->native, waitList, outEvent);
  dpk_pl_context_s &context = *queue->context;
  Location to = locate(context, dst);
  if (!to.inAllocation)
    return fail(DPK_ERROR_INVALID_ARGUMENT,
                "enqueue_fill: the destination is not an allocation of this context");
  DPK_RETURN_ON_FAILURE(checkExtent(to, bytes, "fill destination"));
  if (to.offset % patternSize)
    return fail(DPK_ERROR_INVALID_ARGUMENT,
                "enqueue_fill: the destination is not aligned to the pattern size");
  cl_event done = nullptr;
  cl_event *doneSlot = outEvent ? &done : nullptr;
  switch (context.device->memory) {
  case MemoryStrategyKind::Usm:
    DPK_RETURN_ON_FAILURE(checkCl(
        context.device->usm.enqueueMemFill(queue->native, dst, pattern, patternSize, bytes,
                                           waitList.size(), waitList.data(), doneSlot),
        "clEnqueueMemFillINTEL"));
    break;
  case MemoryStrategyKind::SvmFine:
  case MemoryStrategyKind::SvmCoarse:
    CL_RETURN_ON_FAILURE(clEnqueueSVMMemFill(queue->native, dst, pattern, patternSize, bytes,
                                             waitList.size(), waitList.data(), doneSlot));
    break;
  case MemoryStrategyKind::Buffer:
    CL_RETURN_ON_FAILURE(clEnqueueFillBuffer(queue->native, to.buffer, pattern, patternSize,
                                             to.offset, bytes, waitList.size(), waitList.data(),
                                             doneSlot));
    break;
  }
  return publishEvent(done, outEvent);
}

dpk_status_t enqueueLaunch(dpk_pl_event_t *outEvent, dpk_pl_queue_t queue, dpk_pl_kernel_t kernel,
                           const dpk_launch_config_t *config, uint32_t numArgs,
                           const dpk_kernel_arg_t *args, uint32_t numDeps,
                           const dpk_pl_event_t *deps) {
  if (kernel->context != queue->context)
    return fail(DPK_ERROR_INVALID_ARGUMENT,
                "enqueue_launch: kernel '" + kernel->name + "' belongs to another context");
  if (numArgs != kernel->numArgs)
    return fail(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch: kernel '" + kernel->name +
                                                "' takes " + std::to_string(kernel->numArgs) +
                                                " arguments, " + std::to_string(numArgs) +
                                                " given");
  // dpk's dimension d is OpenCL's dims-1-d: dpk's fastest-varying last dimension is OpenCL's 0.
  // OpenCL 2.0+ would quietly run a partial last work-group where dpk requires whole ones; the
  // core has checked that an NdRange's local sizes divide its global sizes.
  uint32_t dims = config->dims;
  size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  bool rangeLaunch = true;
  for (uint32_t d = 0; d < dims; ++d) {
    global[dims - 1 - d] = config->global_size[d];
    local[dims - 1 - d] = config->local_size[d];
    rangeLaunch = rangeLaunch && config->local_size[d] == 0;
  }
  WaitList waitList;
  waitList.assign(numDeps, deps);

  std::vector<cl_mem> subBuffers;
  auto releaseSubBuffers = [&] {
    for (cl_mem buffer : subBuffers) // the enqueued command keeps its own reference
      clReleaseMemObject(buffer);
  };
  std::lock_guard<std::mutex> lock(kernel->launchMutex);
  dpk_status_t status = DPK_SUCCESS;
  for (cl_uint i = 0; i < numArgs && status == DPK_SUCCESS; ++i)
    status = setArgument(*queue->context, *kernel, i, args[i], subBuffers);
  cl_event done = nullptr;
  if (status == DPK_SUCCESS)
    status = checkCl(clEnqueueNDRangeKernel(queue->native, kernel->native, dims, nullptr, global,
                                            rangeLaunch ? nullptr : local, waitList.size(),
                                            waitList.data(), outEvent ? &done : nullptr),
                     "clEnqueueNDRangeKernel", "kernel '" + kernel->name + "'");
  releaseSubBuffers();
  DPK_RETURN_ON_FAILURE(status);
  return publishEvent(done, outEvent);
}

// OpenCL has no BLAS of its own (clBLAS and CLBlast are separate libraries dpk does not load):
// callers run their own kernel.
dpk_status_t enqueueGemm(dpk_pl_event_t *, dpk_pl_queue_t, const dpk_gemm_desc_t *, uint32_t,
                         const dpk_pl_event_t *) {
  return fail(DPK_ERROR_UNSUPPORTED,
              "enqueue_gemm: the OpenCL backend has no vendor BLAS (use a kernel)");
}

} // namespace dpk::opencl

// memory.cpp - mem_alloc and mem_free over Level Zero USM. dpk's memory kinds are USM's, so
// each maps to one call; zeMemFree frees all three.
#include "memory.hpp"

namespace dpk::level_zero {

dpk_status_t memAlloc(void **out, dpk_pl_context_t handle, dpk_mem_kind_t kind, size_t size, size_t alignment) {
  Context &context = *toContext(handle);
  ze_device_mem_alloc_desc_t deviceDesc{};
  deviceDesc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  ze_host_mem_alloc_desc_t hostDesc{};
  hostDesc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  void *ptr = nullptr;
  ze_result_t rc = ZE_RESULT_ERROR_INVALID_ENUMERATION;
  const char *call = "mem_alloc";
  switch (kind) {
  case DPK_MEM_DEVICE:
    call = "zeMemAllocDevice";
    rc = zeMemAllocDevice(context.native, &deviceDesc, size, alignment, context.device->native,
                          &ptr);
    break;
  case DPK_MEM_SHARED:
    call = "zeMemAllocShared";
    rc = zeMemAllocShared(context.native, &deviceDesc, &hostDesc, size, alignment,
                          context.device->native, &ptr);
    break;
  case DPK_MEM_HOST:
    call = "zeMemAllocHost";
    rc = zeMemAllocHost(context.native, &hostDesc, size, alignment, &ptr);
    break;
  }
  if (rc != ZE_RESULT_SUCCESS)
    return checkZe(rc, call, std::to_string(size) + " bytes on " + context.device->label());
  *out = ptr;
  return DPK_SUCCESS;
}

dpk_status_t memFree(dpk_pl_context_t handle, void *ptr) {
  if (!ptr)
    return DPK_SUCCESS;
  ZE_RETURN_ON_FAILURE(zeMemFree(toContext(handle)->native, ptr), "zeMemFree");
  return DPK_SUCCESS;
}

} // namespace dpk::level_zero

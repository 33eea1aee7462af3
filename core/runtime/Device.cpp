// Device.cpp - device descriptions and lazily created per-device plugin objects.
#include "runtime/Device.h"

namespace dpk::runtime {

const char *deviceTypeText(dpk_device_type_t type) {
  switch (type) {
  case DPK_DEVICE_TYPE_CPU: return "cpu";
  case DPK_DEVICE_TYPE_GPU: return "gpu";
  case DPK_DEVICE_TYPE_ACCELERATOR: return "accelerator";
  }
  return "unknown";
}

Device::Device(std::shared_ptr<Plugin> plugin, dpk_pl_device_t native,
               const dpk_device_props_t &props, uint32_t indexInGroup)
    : plugin_(std::move(plugin)), native_(native), props_(props), indexInGroup_(indexInGroup) {
  filterString_ = plugin_->backend + ":" + deviceTypeText(props_.type) + ":" +
                  std::to_string(indexInGroup_);
}

Device::~Device() {
  if (utilityQueue_)
    (void)plugin_->table.queue_release(utilityQueue_);
  context_.reset();
}

std::string Device::describe() const {
  return "'" + std::string(props_.name) + "' (" + filterString_ + ")";
}

Expected<dpk_pl_context_t> Device::context() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (context_)
    return context_->native();
  dpk_pl_context_t native = nullptr;
  if (Error error = plugin_->check(plugin_->table.context_create(&native, native_),
                                   "creating a context on " + describe()))
    return error;
  context_ = std::make_unique<Context>(*plugin_, native);
  return native;
}

Expected<dpk_pl_queue_t> Device::utilityQueue() {
  Expected<dpk_pl_context_t> ctx = context();
  if (!ctx)
    return ctx.takeError();
  std::lock_guard<std::mutex> lock(mutex_);
  if (utilityQueue_)
    return utilityQueue_;
  dpk_pl_queue_t queue = nullptr;
  if (Error error = plugin_->check(plugin_->table.queue_create(&queue, *ctx, DPK_PL_QUEUE_IN_ORDER),
                                   "creating a queue on " + describe()))
    return error;
  utilityQueue_ = queue;
  return queue;
}

} // namespace dpk::runtime

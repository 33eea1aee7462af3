// Gemm.cpp - placement and bounds of a GEMM's operands, then the plugin's enqueue_gemm.
#include "runtime/Gemm.h"

#include "runtime/Device.h"
#include "runtime/GemmShape.h"
#include "runtime/Queue.h"
#include "runtime/Registry.h"
#include "runtime/RuntimePolicy.h"

#include <chrono>

namespace dpk::runtime {
namespace {

/// Refuses an operand in another device's memory or running past its allocation. Addresses
/// dpk did not allocate pass unchecked, as in copies (foreign arrays, plain host memory).
Error checkOperand(const dpk_gemm_desc_t &desc, const GemmOperand &operand, const Device &device) {
  uint64_t bytes = gemmOperandBytes(desc, operand);
  if (bytes == 0)
    return Error::success();
  std::optional<Allocation> allocation = Registry::get().allocations().find(operand.data);
  if (!allocation)
    return Error::success();
  if (allocation->kind == DPK_MEM_DEVICE && allocation->device != &device)
    return Error(DPK_ERROR_PLACEMENT, std::string("gemm operand ") + operand.name +
                                          " is device memory of " + allocation->device->describe() +
                                          ", but the queue is on " + device.describe());
  uint64_t offset = static_cast<const char *>(operand.data) - static_cast<const char *>(allocation->base);
  if (bytes > allocation->size - offset)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 std::string("gemm operand ") + operand.name + " spans " + std::to_string(bytes) +
                     " bytes from offset " + std::to_string(offset) + ", past its allocation of " +
                     std::to_string(allocation->size) + " bytes");
  return Error::success();
}

std::string describeGemm(const dpk_gemm_desc_t &desc) {
  std::string text = std::string(gemmTypeName(desc.type)) + " gemm " + std::to_string(desc.m) +
                     "x" + std::to_string(desc.n) + "x" + std::to_string(desc.k);
  if (desc.batch != 1)
    text += " (batch " + std::to_string(desc.batch) + ")";
  return text;
}

} // namespace

Expected<Ref<Event>> enqueueGemm(Queue &queue, const dpk_gemm_desc_t &desc,
                                 const std::vector<Event *> &deps) {
  Device &device = queue.device();
  // The shape is the validation layer's to check; it is checked here first too because the
  // extents below are only meaningful for a well-formed descriptor.
  if (std::string problem = gemmDescProblem(desc); !problem.empty())
    return Error(DPK_ERROR_INVALID_ARGUMENT, problem);
  GemmOperand operands[3];
  gemmOperands(desc, operands);
  for (const GemmOperand &operand : operands) {
    if (Error error = checkOperand(desc, operand, device))
      return error;
  }
  Expected<std::vector<dpk_pl_event_t>> natives = queue.resolveDependencies(deps);
  if (!natives)
    return natives.takeError();
  bool timed = diagnosticsEnabled(3);
  auto start = std::chrono::steady_clock::now();
  dpk_pl_event_t native = nullptr;
  dpk_status_t status = device.plugin().table.enqueue_gemm(
      &native, queue.native(), &desc, static_cast<uint32_t>(natives->size()), natives->data());
  if (status != DPK_SUCCESS)
    return device.plugin().check(status, describeGemm(desc) + " on " + device.describe());
  Ref<Event> event = Event::fromPlugin(device, native, "gemm", "");
  queue.track(event);
  if (timed) {
    Error waited = event->wait(); // level 3 times each GEMM, as it does launches
    emitDiagnostic(3, "gemm",
                   {{"device", device.filterString()},
                    {"type", gemmTypeName(desc.type)},
                    {"m", static_cast<unsigned long long>(desc.m)},
                    {"n", static_cast<unsigned long long>(desc.n)},
                    {"k", static_cast<unsigned long long>(desc.k)},
                    {"batch", static_cast<unsigned long long>(desc.batch)},
                    {"time_ms", std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - start)
                                    .count()},
                    {"ok", !waited}});
  }
  return event;
}

} // namespace dpk::runtime

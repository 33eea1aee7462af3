// Fallback.cpp - the host run of a kernel whose device failed, with data migration.
#include "runtime/HostFallback.h"

#include "runtime/Device.h"
#include "runtime/Kernel.h"
#include "runtime/Launch.h"
#include "runtime/Queue.h"
#include "runtime/Registry.h"
#include "runtime/RuntimePolicy.h"
#include "runtime/Transfer.h"

#include <chrono>
#include <map>
#include <memory>

namespace dpk::runtime {
namespace {

/// A device allocation copied to the host for the fallback run.
struct MigratedAllocation {
  Allocation allocation;
  std::unique_ptr<char[]> hostCopy;
};

/// Copies every device allocation of `failed` that the arguments point into to host memory and
/// rewrites the arguments to point there.
Expected<std::map<void *, MigratedAllocation>> migrateToHost(MarshalledArgs &args, Device &failed) {
  std::map<void *, MigratedAllocation> migrated;
  AllocationTable &table = Registry::get().allocations();
  for (size_t index : args.pointerArgs()) {
    void *address = args.pointer(index);
    std::optional<Allocation> allocation = table.find(address);
    if (!allocation || allocation->kind != DPK_MEM_DEVICE || allocation->device != &failed)
      continue;
    auto it = migrated.find(allocation->base);
    if (it == migrated.end()) {
      MigratedAllocation copy{*allocation, std::make_unique<char[]>(allocation->size + 1)};
      if (Error error = copyOnDevice(failed, copy.hostCopy.get(), allocation->base,
                                     allocation->size))
        return Error(error.status(),
                     "copying argument data to the host for the fallback failed: " +
                         error.message());
      it = migrated.emplace(allocation->base, std::move(copy)).first;
    }
    size_t offset = static_cast<char *>(address) - static_cast<char *>(allocation->base);
    args.setPointer(index, it->second.hostCopy.get() + offset);
  }
  return migrated;
}

Error copyBack(const std::map<void *, MigratedAllocation> &migrated, Device &failed) {
  for (const auto &entry : migrated) {
    const MigratedAllocation &copy = entry.second;
    if (Error error = copyOnDevice(failed, copy.allocation.base, copy.hostCopy.get(),
                                   copy.allocation.size))
      return Error(error.status(), "copying results of the host fallback back to " +
                                       failed.describe() + " failed: " + error.message());
  }
  return Error::success();
}

} // namespace

Error checkPlacement(const MarshalledArgs &args, const Device &device, const std::string &kernel) {
  // The usual case, one device with device memory, costs two atomic loads and no gathering.
  AllocationTable &allocations = Registry::get().allocations();
  if (allocations.noOtherDeviceHoldsMemory(&device))
    return Error::success();
  const auto &pointerArgs = args.pointerArgs();
  InlineVector<const void *, MarshalledArgs::InlineArgs> pointers;
  pointers.reserve(pointerArgs.size());
  for (size_t index : pointerArgs)
    pointers.push_back(args.pointer(index));
  std::optional<std::pair<size_t, Allocation>> foreign =
      allocations.firstInOtherDevicesMemory(pointers.data(), pointers.size(), &device);
  if (!foreign)
    return Error::success();
  const Allocation &allocation = foreign->second;
  return Error(DPK_ERROR_PLACEMENT,
               "kernel '" + kernel + "': argument " +
                   std::to_string(args.userIndex(pointerArgs[foreign->first])) +
                   " points to device memory of " + allocation.device->describe() +
                   ", but the kernel is launched on " + device.describe() +
                   " (copy the data there first)");
}

Expected<Ref<Event>> runOnHost(Queue &queue, Kernel &kernel, const dpk_launch_config_t &config,
                               MarshalledArgs &args, const std::vector<Event *> &deps,
                               dpk_status_t status, const std::string &cause) {
  Device &from = queue.device();
  const std::string &name = kernel.name();
  Device *host = Registry::get().hostDevice();
  if (!host)
    return Error(status, cause + "; the policy allows running it on the host, but the host "
                                 "backend is not loaded");
  if (Error error = kernel.program().checkRunsOn(*host))
    return Error(status, cause + "; it cannot run on the host instead: " + error.message());
  if (Error error = validateForDevice(deviceRangeFor(*host, kernel, config), config, args, *host,
                                      name))
    return Error(status, cause + "; it cannot run on the host instead: " + error.message());

  // The host run is ordered after everything before it on the queue, and finishes here.
  if (Error error = queue.drainBefore(deps))
    return error;
  auto start = std::chrono::steady_clock::now();
  Expected<std::map<void *, MigratedAllocation>> migrated = migrateToHost(args, from);
  if (!migrated)
    return Error(status, cause + "; " + migrated.error().message());
  Expected<dpk_pl_queue_t> hostQueue = host->utilityQueue();
  if (!hostQueue)
    return Error(status, cause + "; " + hostQueue.error().message());
  Expected<dpk_pl_event_t> submitted = submitOnDevice(*host, *hostQueue, kernel, config, args, {});
  if (!submitted)
    return Error(status, cause + "; the host run failed too: " + submitted.error().message());
  Ref<Event> hostEvent = Event::fromPlugin(*host, *submitted, "launch", name);
  if (Error error = hostEvent->wait())
    return Error(status, cause + "; the host run failed too: " + error.message());
  if (Error error = copyBack(*migrated, from))
    return Error(status, cause + "; " + error.message());
  uint64_t elapsed = static_cast<uint64_t>(
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  if (diagnosticsEnabled(1))
    emitDiagnostic(1, "kernel.launch",
                   {{"kernel", name},
                    {"device", host->filterString()},
                    {"name", std::string_view(host->name())},
                    {"fallback_from", from.filterString()},
                    {"migrated_buffers", static_cast<unsigned long long>(migrated->size())}});
  return Event::finished(host, "launch", name, Error::success(), elapsed);
}

Expected<Ref<Event>> fallBackOrFail(Queue &queue, Kernel &kernel,
                                    const dpk_launch_config_t &config, MarshalledArgs &args,
                                    const std::vector<Event *> &deps, Error failure) {
  Device &failed = queue.device();
  std::optional<policy::FailureClass> failureClass = failureClassOf(failure.status());
  if (!failureClass || failed.isHost())
    return failure;
  const std::string &name = kernel.name();
  policy::FallbackDecision decision =
      decideFallback(Registry::get().policy(), name, failed.filterString(), *failureClass,
                     failure.message());
  if (decision.action == policy::FallbackAction::Fail)
    return decision.error ? std::move(decision.error) : std::move(failure);

  std::string cause = "kernel '" + name + "' failed on " + failed.describe() + " (" +
                      policy::failureClassName(*failureClass) + "): " + failure.message();
  Expected<Ref<Event>> ran = runOnHost(queue, kernel, config, args, deps, failure.status(), cause);
  if (!ran)
    return ran.takeError();
  Device *host = Registry::get().hostDevice();
  reportFallbackRun(decision, host->filterString());
  return ran;
}

} // namespace dpk::runtime

// BoundsCheckLaunch.cpp - the status record around a bounds-checked launch.
#include "runtime/BoundsCheckLaunch.h"

#include "compiler/BoundsCheck.h"
#include "runtime/Device.h"
#include "runtime/Kernel.h"
#include "runtime/Memory.h"
#include "runtime/Queue.h"
#include "runtime/Transfer.h"

#include <map>
#include <mutex>
#include <vector>

namespace dpk::runtime {
namespace {

/// Zeroed status records of each device, kept for the next launch: a launch that finds no
/// failure leaves its record zero, so the common path costs no allocation, fill or free. A record
/// that holds a failure, or whose launch failed, is freed instead. Devices live as long as the
/// process (architecture.md), and so does this pool.
class RecordPool {
public:
  /// A zeroed record of `device`: `zeroed` false when it was just allocated.
  Expected<void *> acquire(Device &device, bool &zeroed) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::vector<void *> &records = clean_[&device];
      if (!records.empty()) {
        void *record = records.back();
        records.pop_back();
        zeroed = true;
        return record;
      }
    }
    zeroed = false;
    return allocateMemory(device, DPK_MEM_DEVICE, compiler::kBoundsRecordBytes);
  }
  void giveBack(Device &device, void *record) {
    std::lock_guard<std::mutex> lock(mutex_);
    clean_[&device].push_back(record);
  }

private:
  std::mutex mutex_;
  std::map<Device *, std::vector<void *>> clean_;
};

RecordPool &recordPool() {
  static RecordPool *pool = new RecordPool; // never destroyed, as the registry
  return *pool;
}

/// Launches with the record appended and reads it back into `record` once the kernel finished.
Expected<Ref<Event>> launchAndRead(Queue &queue, Kernel &kernel,
                                   const dpk_launch_config_t &config, const LaunchArg *args,
                                   uint32_t numArgs, const std::vector<Event *> &deps,
                                   void *status, bool zeroed,
                                   int64_t (&record)[compiler::kBoundsRecordWords]) {
  std::vector<Event *> after = deps;
  Expected<Ref<Event>> zeroing = Ref<Event>();
  if (!zeroed) {
    zeroing = enqueueFill(queue, status, record, sizeof(record[0]), sizeof(record), deps);
    if (!zeroing)
      return zeroing.takeError();
    if (*zeroing)
      after.push_back(zeroing->get());
  }
  std::vector<LaunchArg> withStatus(args, args + numArgs);
  LaunchArg statusArg;
  statusArg.kind = LaunchArgKind::Pointer;
  statusArg.size = sizeof(void *);
  statusArg.value = status;
  withStatus.push_back(statusArg);
  Expected<Ref<Event>> launched =
      launchUnchecked(queue, kernel, config, withStatus.data(),
                      static_cast<uint32_t>(withStatus.size()), after, true);
  if (!launched)
    return launched.takeError();
  if (*launched) {
    if (Error failed = (*launched)->wait())
      return failed;
  }
  Expected<Ref<Event>> copied = enqueueCopy(queue, record, status, sizeof(record), {});
  if (!copied)
    return copied.takeError();
  if (*copied) {
    if (Error failed = (*copied)->wait())
      return failed;
  }
  return launched;
}

} // namespace

Expected<Ref<Event>> launchBoundsChecked(Queue &queue, Kernel &kernel,
                                         const dpk_launch_config_t &config, const LaunchArg *args,
                                         uint32_t numArgs, const std::vector<Event *> &deps,
                                         bool wantEvent) {
  Device &device = queue.device();
  bool zeroed = false;
  Expected<void *> status = recordPool().acquire(device, zeroed);
  if (!status)
    return status.takeError();
  int64_t record[compiler::kBoundsRecordWords] = {};
  Expected<Ref<Event>> launched =
      launchAndRead(queue, kernel, config, args, numArgs, deps, *status, zeroed, record);
  bool failed = !launched || record[compiler::BoundsSite] != 0;
  if (failed) {
    Error freed = freeMemory(*status);
    if (!launched)
      return launched.takeError();
    if (freed)
      return freed;
  } else {
    recordPool().giveBack(device, *status);
  }
  if (record[compiler::BoundsSite] != 0 && kernel.program().module())
    return Error(DPK_ERROR_OUT_OF_BOUNDS,
                 compiler::describeBoundsFailure(*kernel.program().module(), kernel.name(),
                                                 record) +
                     " (on " + device.describe() + ")");
  if (!wantEvent)
    return Ref<Event>();
  return launched;
}

} // namespace dpk::runtime

// Launch.h - kernel launches: range validation, argument marshalling, submission and fallback.
//
// A launch is checked in this order, each failure a message that names the kernel:
//  1. the range: 1-3 dims, global sizes > 0, local sizes all zero (Range) or all set (NdRange)
//     and dividing the global size per dimension;
//  2. the arguments: views expanded into pointer + shape + strides, then, for IR kernels, count,
//     kinds and scalar sizes against the kernel's signature;
//  3. placement: no pointer into device memory of another device;
//  4. the device's limits, against the range as the plugin will get it (LaunchRange.h,
//     deviceRangeProblem; a Range launch on a SPIR-V or OpenCL C device gets its work-group
//     shape from the core, DeviceRange), and local memory.
// Then the kernel is built for the device (compile errors surface here, synchronously) and
// submitted. A compile, launch or out-of-memory failure goes to the policy's fallback rule.
// A launch that repeats the kernel, queue order and device, configuration and argument kinds
// and sizes of one that passed all this takes that launch's plan (LaunchPlan.h) instead: it
// checks its argument values and placement and submits.
#ifndef DPK_CORE_RUNTIME_LAUNCH_H
#define DPK_CORE_RUNTIME_LAUNCH_H

#include "dpk/plugin.h"
#include "runtime/Event.h"
#include "runtime/Program.h"
#include "support/Error.h"
#include "support/InlineVector.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace dpk::runtime {

class Device;
class Kernel;
class Queue;

/// An n-D array view argument: marshalling expands it into a pointer followed by the shape and
/// the strides (in elements) as int64 scalars.
struct ViewArg {
  void *data = nullptr;
  uint32_t ndim = 0;
  int64_t shape[3] = {};
  int64_t strides[3] = {};
};

enum class LaunchArgKind { Pointer, Scalar, Local, View };

/// One kernel argument as the runtime takes it: the plugin ABI's kinds plus views. Frontends
/// translate their own argument structs into these (the C API: dpk_arg_t in enqueue.cpp). Kept
/// small (views by pointer): the launch path builds one per argument.
struct LaunchArg {
  LaunchArgKind kind = LaunchArgKind::Pointer;
  size_t size = 0;             ///< Scalar: bytes; Local: bytes of local memory
  const void *value = nullptr; ///< Pointer: the address itself; Scalar: points to the bytes
  const ViewArg *view = nullptr; ///< View only; never null for a view
};

/// Launch arguments in the plugin ABI's form, with the storage they point into.
class MarshalledArgs {
public:
  /// Launches with up to this many launch arguments (views expanded) marshal without allocating.
  static constexpr size_t InlineArgs = 16;
  using ArgList = InlineVector<dpk_kernel_arg_t, InlineArgs>;

  MarshalledArgs() = default;
  MarshalledArgs(const MarshalledArgs &) = delete;
  MarshalledArgs &operator=(const MarshalledArgs &) = delete;

  const ArgList &args() const { return args_; }
  /// Indices (into args()) of pointer arguments, whose address may be rewritten.
  const InlineVector<size_t, InlineArgs> &pointerArgs() const { return pointerArgs_; }
  void *pointer(size_t argIndex) const {
    return *static_cast<void *const *>(args_[argIndex].value);
  }
  void setPointer(size_t argIndex, void *address);
  /// Which user argument (LaunchArg index) produced each launch argument.
  unsigned userIndex(size_t argIndex) const { return userIndex_[argIndex]; }
  uint64_t localMemoryBytes() const { return localBytes_; }

  friend Error expandArguments(const Kernel &kernel, const LaunchArg *args, uint32_t count,
                               MarshalledArgs &out);

private:
  // Inline storage: a launch marshals on the stack (InlineVector.h says why). args_ points into
  // pointers_ and viewScalars_, which are sized to their final sizes before it does.
  ArgList args_;
  InlineVector<void *, InlineArgs> pointers_;
  InlineVector<int64_t, InlineArgs> viewScalars_;
  InlineVector<size_t, InlineArgs> pointerArgs_;
  InlineVector<unsigned, InlineArgs> userIndex_;
  uint64_t localBytes_ = 0;
};

/// Checks dims, global sizes, local sizes (all or none) and divisibility.
Error validateRange(const dpk_launch_config_t &config, const std::string &kernel);
/// One launch of a Range that runs in pieces (compiler/RangeGuard.h).
struct RangePiece {
  dpk_launch_config_t config{}; ///< this piece's global sizes, in the range's work-group shape
  int64_t offset[3] = {0, 0, 0};
  bool guarded = false;         ///< rounded up to whole work-groups: the guarded build runs it
};

/// How a launch reaches the device's plugin. A Range launch on a device that takes SPIR-V or
/// OpenCL C gets a work-group shape picked by the core (LaunchRange.h, pickRangeLocal) instead
/// of none, so the OpenCL implementation never picks (and compiles) one per global size. A range
/// of whole work-groups is one launch of the kernel as written in that shape. Otherwise, when
/// the kernel can run in pieces (compiler/RangeGuard.h), it runs as the bulk of whole
/// work-groups plus, per dimension with a remainder, one guarded piece rounded up to whole
/// work-groups (on an out-of-order queue, and for ranges of at most 64 work-groups: one guarded
/// piece for the whole range).
struct DeviceRange {
  /// The range as checked against the device's limits: local sizes zero when the backend picks
  /// them; for a Range in pieces, the global sizes rounded up to the shape.
  dpk_launch_config_t config{};
  uint32_t pieceCount = 0;      ///< 0: one launch of `config`
  RangePiece pieces[4];
  int64_t realGlobal[3] = {0, 0, 0};
  /// The new position of each work-item dimension in the build (ir/LaneMapping.h): a Range
  /// launch of a remapped kernel arrives with its global size already permuted.
  std::array<unsigned, 3> lanes = kLiteralLanes;
};
/// `inOrder`: the launch's queue runs commands in order, so pieces need no events between them.
DeviceRange deviceRangeFor(const Device &device, const Kernel &kernel,
                           const dpk_launch_config_t &config, bool inOrder = true);

/// Checks the range the device runs (`range`, made from the launch's `config`) and the local
/// memory against the device's limits (LaunchRange.h, deviceRangeProblem).
Error validateForDevice(const DeviceRange &range, const dpk_launch_config_t &config,
                        const MarshalledArgs &args, const Device &device,
                        const std::string &kernel);
/// Checks each argument on its own (a scalar has a value and a size, local memory a size, a view
/// 1 to 3 dimensions) and expands views into `out` (a fresh MarshalledArgs). The launch then
/// checks the result against an IR kernel's signature, unless a plan (LaunchPlan.h) did.
Error expandArguments(const Kernel &kernel, const LaunchArg *args, uint32_t count,
                      MarshalledArgs &out);

/// The whole launch (see the file comment). `deps` are waited for as Queue explains. Without
/// `wantEvent` (the caller passed no out-event) the result may be a null Ref: the launch then
/// has no plugin event, and the queue's wait reports its failure.
Expected<Ref<Event>> launchKernel(Queue &queue, Kernel &kernel, const dpk_launch_config_t &config,
                                  const LaunchArg *args, uint32_t numArgs,
                                  const std::vector<Event *> &deps, bool wantEvent = true);

/// launchKernel without the bounds-check wrapper (BoundsCheckLaunch.h), which calls it with the
/// status record's pointer appended to the caller's arguments.
Expected<Ref<Event>> launchUnchecked(Queue &queue, Kernel &kernel,
                                     const dpk_launch_config_t &config, const LaunchArg *args,
                                     uint32_t numArgs, const std::vector<Event *> &deps,
                                     bool wantEvent = true);

/// Builds and submits on `device` through `nativeQueue` without fallback: used for the first
/// attempt and for the host run of a fallback.
Expected<dpk_pl_event_t> submitOnDevice(Device &device, dpk_pl_queue_t nativeQueue,
                                        Kernel &kernel, const dpk_launch_config_t &config,
                                        const MarshalledArgs &args,
                                        const std::vector<dpk_pl_event_t> &deps);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_LAUNCH_H

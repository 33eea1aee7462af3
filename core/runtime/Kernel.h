// Kernel.h - a named kernel of a program and, for IR kernels, its launch signature.
#ifndef DPK_CORE_RUNTIME_KERNEL_H
#define DPK_CORE_RUNTIME_KERNEL_H

#include "compiler/Compiler.h"
#include "ir/LaneMapping.h"
#include "runtime/LaunchPlan.h"
#include "runtime/Program.h"

#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace dpk::runtime {

class Kernel final : public RefCounted {
public:
  /// DPK_ERROR_NOT_FOUND (listing the program's kernels) when there is no such kernel.
  static Expected<Ref<Kernel>> create(Program &program, const std::string &name);

  Program &program() const { return *program_; }
  const std::string &name() const { return name_; }
  /// A number no other kernel of the process has (addresses are reused once a kernel goes).
  uint64_t serial() const { return serial_; }
  /// IR kernels: the function, and its ABI after view expansion. Null/empty otherwise.
  const ir::Function *function() const { return function_; }
  const std::vector<compiler::AbiArg> &abi() const { return abi_; }
  bool hasSignature() const { return function_ != nullptr; }
  /// IR kernels: how many launch dimensions the kernel indexes, through calls
  /// (ir::dimensionsUsed); a launch needs at least that many. 0 for other kernels.
  unsigned dimensionsUsed() const { return dimensionsUsed_; }
  /// IR kernels: which dimension a Range launch feeds to the fastest lanes
  /// (ir/LaneMapping.h), analysed once.
  const ir::LaneChoice &laneChoice() const { return laneChoice_; }
  /// Whether the lane choice was reported (diagnostics level 3) yet.
  bool laneChoiceReported() { return laneChoiceReported_.exchange(true); }
  /// IR kernels that cannot see work-groups (compiler::rangeGuardApplies): a Range launch on a
  /// SPIR-V or OpenCL C device runs them padded to a fixed work-group shape.
  bool rangeGuardable() const { return rangeGuardable_; }
  /// IR kernels: private memory per work-item, through calls (compiler::privateMemoryBytes).
  uint64_t privateBytes() const { return privateBytes_; }
  /// IR kernels with a view parameter, whose builds depend on the innermost strides a launch
  /// passes (Specialization::unitInnerStrideViews).
  bool hasViewParameters() const { return hasViewParameters_; }
  /// The plans of launches that passed every check (LaunchPlan.h).
  LaunchPlanCache &launchPlans() { return launchPlans_; }

  /// The plugin kernel of this kernel built for `device` with `spec` (Program::build, then the
  /// build's kernel). The last few answers are remembered here: a warm launch finds its
  /// plugin kernel with a few compares instead of the program's map lookup under its lock.
  Expected<dpk_pl_kernel_t> nativeFor(Device &device, const Specialization &spec);

private:
  Kernel(Ref<Program> program, std::string name);

  /// One remembered answer of nativeFor. Builds live as long as their program, which this
  /// kernel keeps alive, so the plugin kernel stays valid.
  struct NativeMemo {
    Device *device = nullptr;
    Specialization spec;
    dpk_pl_kernel_t native = nullptr;
  };
  static constexpr size_t MemoSize = 4;

  Ref<Program> program_;
  std::string name_;
  uint64_t serial_;
  const ir::Function *function_ = nullptr;
  std::vector<compiler::AbiArg> abi_;
  unsigned dimensionsUsed_ = 0;
  ir::LaneChoice laneChoice_;
  std::atomic<bool> laneChoiceReported_{false};
  bool rangeGuardable_ = false;
  uint64_t privateBytes_ = 0;
  bool hasViewParameters_ = false;
  LaunchPlanCache launchPlans_;
  std::mutex memoMutex_;
  std::array<NativeMemo, MemoSize> memo_;
  size_t memoNext_ = 0; ///< the slot the next new answer replaces (round robin)
};

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_KERNEL_H

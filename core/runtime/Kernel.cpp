// Kernel.cpp - kernel lookup by name.
#include "runtime/Kernel.h"

#include "compiler/RangeGuard.h"
#include "ir/LaunchDimensions.h"
#include "runtime/Device.h"

namespace dpk::runtime {

Kernel::Kernel(Ref<Program> program, std::string name)
    : RefCounted(HandleKind::Kernel), program_(std::move(program)), name_(std::move(name)) {
  static std::atomic<uint64_t> lastSerial{0};
  serial_ = ++lastSerial; // from 1: 0 is "no kernel" (Queue's last eventless launch)
}

Expected<Ref<Kernel>> Kernel::create(Program &program, const std::string &name) {
  Ref<Kernel> kernel = Ref<Kernel>::adopt(new Kernel(Ref<Program>::share(&program), name));
  switch (program.kind()) {
  case ProgramKind::Ir: {
    const ir::Function *function = program.module()->lookup(name);
    if (function && function->isKernel) {
      kernel->function_ = function;
      kernel->abi_ = compiler::kernelAbi(*function);
      if (program.boundsCheck()) // the status record (compiler/BoundsCheck.h), passed last
        kernel->abi_.push_back({DPK_ARG_POINTER, sizeof(void *),
                                static_cast<unsigned>(function->params.size())});
      kernel->dimensionsUsed_ = ir::dimensionsUsed(*function, *program.module());
      kernel->laneChoice_ = ir::chooseLaneMapping(*function, *program.module());
      kernel->rangeGuardable_ = compiler::rangeGuardApplies(*function, *program.module());
      kernel->privateBytes_ = compiler::privateMemoryBytes(*function, *program.module());
      for (const ir::Value *param : function->params)
        kernel->hasViewParameters_ = kernel->hasViewParameters_ || param->type.isView();
      return kernel;
    }
    std::string known;
    for (const auto &candidate : program.module()->functions) {
      if (candidate->isKernel)
        known += (known.empty() ? "'" : ", '") + candidate->name + "'";
    }
    std::string what = function ? "is a device function, not a kernel" : "does not exist";
    return Error(DPK_ERROR_NOT_FOUND, "kernel '" + name + "' " + what + " in program '" +
                                          program.label() + "' (kernels: " +
                                          (known.empty() ? "none" : known) + ")");
  }
  case ProgramKind::Host:
    if (program.hostEntry(name))
      return kernel;
    return Error(DPK_ERROR_NOT_FOUND, "no host kernel entry named '" + name + "'");
  case ProgramKind::Spirv: {
    Device &device = *program.boundDevice();
    Expected<std::shared_ptr<ProgramBuild>> build = program.build(device, {}, name);
    if (!build)
      return build.takeError();
    Expected<dpk_pl_kernel_t> native = (*build)->kernel(name);
    if (!native) {
      Error error = native.takeError();
      return Error(DPK_ERROR_NOT_FOUND, error.message());
    }
    return kernel;
  }
  }
  return kernel;
}

Expected<dpk_pl_kernel_t> Kernel::nativeFor(Device &device, const Specialization &spec) {
  {
    std::lock_guard<std::mutex> lock(memoMutex_);
    for (const NativeMemo &entry : memo_) {
      if (entry.native && entry.device == &device && entry.spec == spec)
        return entry.native;
    }
  }
  Expected<std::shared_ptr<ProgramBuild>> build = program_->build(device, spec, name_);
  if (!build)
    return build.takeError();
  Expected<dpk_pl_kernel_t> native = (*build)->kernel(name_);
  if (!native)
    return native;
  std::lock_guard<std::mutex> lock(memoMutex_);
  memo_[memoNext_] = {&device, spec, *native};
  memoNext_ = (memoNext_ + 1) % MemoSize;
  return native;
}

} // namespace dpk::runtime

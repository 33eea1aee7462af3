// ScalarizeGathers.h - the host pass that turns unmasked gathers into lane-by-lane loads.
#ifndef DPK_CORE_COMPILER_SCALARIZEGATHERS_H
#define DPK_CORE_COMPILER_SCALARIZEGATHERS_H

#include <llvm/IR/PassManager.h>

namespace llvm {
class TargetMachine;
}

namespace dpk::compiler {

/// After vectorization: unmasked gathers become scalar loads inserted lane by lane, their
/// addresses computed with scalar arithmetic (for CPUs whose gathers are slow: AMD Zen).
struct ScalarizeGathersPass : llvm::PassInfoMixin<ScalarizeGathersPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &manager);
};

/// The CPU runs gathers slowly (AMD Zen microcodes them; Intel Skylake to Tiger Lake since the
/// Gather Data Sampling microcode): the host pipeline scalarizes them, and the host lowering
/// asks for 256-bit, non-interleaved vectorization of loops with strided view loads.
bool hasSlowGathers(const llvm::TargetMachine &machine);
/// (cpuHasSlowGathers, in Targets.h, says it for a CPU name.)

} // namespace dpk::compiler

#endif // DPK_CORE_COMPILER_SCALARIZEGATHERS_H

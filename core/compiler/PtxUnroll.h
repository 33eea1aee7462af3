// PtxUnroll.h - PTX: small innermost loops of unknown trip count unrolled by four.
#ifndef DPK_CORE_COMPILER_PTXUNROLL_H
#define DPK_CORE_COMPILER_PTXUNROLL_H

#include <llvm/IR/PassManager.h>

namespace dpk::compiler {

/// Marks for unrolling by kPtxUnrollCount the innermost loops of at most kPtxUnrollMaxInstructions instructions, without convergent
/// operations and not already unrolled or vectorized, are unrolled by four with a remainder
/// loop, as NVIDIA's compilers do: its OpenCL compiler unrolled dpk's n-body loop so, and ran
/// it in 2.83 ms where the PTX of LLVM's default pipeline (whose NVPTX unroller allows only a
/// quarter of the usual size, too little for a loop with a square root and a division) took
/// 2.93 ms on an H100. Runs last in the optimization pipeline, on optimized loops.
struct RequestPtxUnrollPass : llvm::PassInfoMixin<RequestPtxUnrollPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &manager);
};

/// The marking, then the unrolling and its clean-up: what the PTX pipeline runs last
/// (optimizeModule, for NVPTX at -O2 and above).
void addPtxUnrollPasses(llvm::FunctionPassManager &passes);

constexpr unsigned kPtxUnrollMaxInstructions = 48;
constexpr unsigned kPtxUnrollCount = 4;

} // namespace dpk::compiler

#endif // DPK_CORE_COMPILER_PTXUNROLL_H

// Targets.h - the per-target back halves of compileModule(), and the pieces they share.
//
// Each target lowers the IR into a fresh LLVM module, optimizes it and emits its artifact.
// `Output` lets dpkc stop at an intermediate stage (LLVM IR text, host assembly).
#ifndef DPK_CORE_COMPILER_TARGETS_H
#define DPK_CORE_COMPILER_TARGETS_H

#include "compiler/Compiler.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class Target;
class TargetMachine;
} // namespace llvm

namespace dpk::compiler {

/// What a target compile returns.
enum class Output {
  Artifact,   // the backend's artifact (object, SPIR-V, PTX)
  LlvmIR,     // optimized LLVM IR text
  Assembly    // host: assembly text of the object
};

/// Whether an x86 CPU (an LLVM CPU name) runs gathers slowly, so that the host compiler
/// scalarizes them (ScalarizeGathers.h): AMD Zen, and Intel Skylake to Tiger Lake under the
/// Gather Data Sampling microcode.
bool cpuHasSlowGathers(const std::string &cpu);

Expected<std::vector<uint8_t>> compileHost(const ir::Module &module,
                                           const CompileOptions &options, Output output);
Expected<std::vector<uint8_t>> compileSpirv(const ir::Module &module,
                                            const CompileOptions &options, Output output);
Expected<std::vector<uint8_t>> compilePtx(const ir::Module &module,
                                          const CompileOptions &options, Output output);

/// Whether LLVM's `target` knows the processor `cpu` for `triple`. Asked before a target
/// machine is made: LLVM only warns about a processor it does not know, and code generation
/// for it may then abort the process (a host object for "sm_90" did).
bool isKnownProcessor(const llvm::Target &target, const std::string &triple,
                      const std::string &cpu);

/// Lowers every kernel of `module` into host work-group functions (HostTarget.cpp).
Expected<std::unique_ptr<llvm::Module>> lowerHostModule(const ir::Module &module,
                                                        const CompileOptions &options,
                                                        llvm::LLVMContext &context,
                                                        llvm::TargetMachine &machine);

/// Runs the new pass manager's default pipeline at `optLevel` (0-3) for `machine` (null: no
/// target-specific cost model). With `hostVectorLibrary` the target library info maps math
/// calls to glibc's libmvec, so they vectorize; `vectorize` enables the loop/SLP vectorizers.
void optimizeModule(llvm::Module &module, llvm::TargetMachine *machine, int optLevel,
                    bool hostVectorLibrary, bool vectorize);

/// Machine code for the module: an object file, or assembly text when `assembly`.
Expected<std::vector<uint8_t>> emitMachineCode(llvm::Module &module,
                                               llvm::TargetMachine &machine, bool assembly,
                                               bool hostVectorLibrary);

/// Fails with DPK_ERROR_COMPILE if the module is not valid LLVM IR (a lowering bug).
Error verifyLlvmModule(const llvm::Module &module, const std::string &stage);

/// LLVM IR as text.
std::string printLlvmModule(const llvm::Module &module);

/// Level-4 dumps: writes `content` to <options.dumpDirectory>/<moduleName>.<extension> when a
/// dump directory is set. Failures to write are ignored (dumps are diagnostics only).
void dumpStage(const CompileOptions &options, const std::string &moduleName,
               const std::string &extension, const std::string &content);
/// The name dumps use for a module: its first kernel's name.
std::string dumpName(const ir::Module &module);

/// Initializes the LLVM targets dpk uses (X86/host, NVPTX), once per process.
void initializeLlvmTargets();

} // namespace dpk::compiler

#endif // DPK_CORE_COMPILER_TARGETS_H

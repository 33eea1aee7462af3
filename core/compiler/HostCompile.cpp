// HostCompile.cpp - host target: lower, optimize for this CPU, emit an ELF object.
#include "compiler/Link.h"
#include "compiler/Targets.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Host.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/Utils/Cloning.h>

namespace dpk::compiler {

namespace {

Expected<std::unique_ptr<llvm::TargetMachine>> hostMachine(const CompileOptions &options) {
  initializeLlvmTargets();
  std::string triple = llvm::sys::getProcessTriple();
  std::string message;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target) return Error(DPK_ERROR_COMPILE, "no LLVM target for " + triple + ": " + message);
  std::string cpu = options.targetId.empty() ? llvm::sys::getHostCPUName().str() : options.targetId;
  if (!options.targetId.empty() && !isKnownProcessor(*target, triple, cpu))
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "host: unknown CPU '" + cpu + "' for " + triple +
                     "; give a CPU name LLVM knows (x86-64, x86-64-v3, skylake-avx512, znver3, "
                     "...), or none for this machine's CPU");
  std::string features;
  llvm::StringMap<bool> hostFeatures;
  if (options.targetId.empty() && llvm::sys::getHostCPUFeatures(hostFeatures)) {
    for (auto &feature : hostFeatures) {
      if (!features.empty()) features += ",";
      features += (feature.second ? "+" : "-") + feature.first().str();
    }
  }
  llvm::TargetOptions targetOptions;
  // Contract a * b + c into FMA, as OpenCL C (FP_CONTRACT on), CUDA and GCC's default
  // -ffp-contract=fast do: one rounding instead of two, one instruction instead of two.
  targetOptions.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  auto level = options.optLevel >= 3   ? llvm::CodeGenOpt::Aggressive
               : options.optLevel >= 1 ? llvm::CodeGenOpt::Default
                                       : llvm::CodeGenOpt::None;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, targetOptions, llvm::Reloc::PIC_, llvm::CodeModel::Small, level));
  if (!machine) return Error(DPK_ERROR_COMPILE, "cannot create a target machine for " + cpu);
  return machine;
}

std::vector<uint8_t> bytesOf(const std::string &text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

} // namespace

Expected<std::vector<uint8_t>> compileHost(const ir::Module &module,
                                           const CompileOptions &options, Output output) {
  Expected<std::unique_ptr<llvm::TargetMachine>> machine = hostMachine(options);
  if (!machine) return machine.takeError();
  llvm::LLVMContext context;
  Expected<std::unique_ptr<llvm::Module>> lowered =
      lowerHostModule(module, options, context, **machine);
  if (!lowered) return lowered.takeError();
  llvm::Module &llvmModule = **lowered;
  if (Error e = linkLlvmInputs(llvmModule, module, options, false)) return e;
  std::string name = dumpName(module);
  if (!options.dumpDirectory.empty()) dumpStage(options, name, "host.ll", printLlvmModule(llvmModule));

  optimizeModule(llvmModule, machine->get(), options.optLevel, true, true);
  if (Error e = verifyLlvmModule(llvmModule, "optimization")) return e;
  if (!options.dumpDirectory.empty()) {
    dumpStage(options, name, "host.opt.ll", printLlvmModule(llvmModule));
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(llvmModule);
    Expected<std::vector<uint8_t>> assembly = emitMachineCode(*copy, **machine, true, true);
    if (assembly) dumpStage(options, name, "s", std::string(assembly->begin(), assembly->end()));
  }
  switch (output) {
  case Output::LlvmIR: return bytesOf(printLlvmModule(llvmModule));
  case Output::Assembly: return emitMachineCode(llvmModule, **machine, true, true);
  case Output::Artifact: return emitMachineCode(llvmModule, **machine, false, true);
  }
  return Error(DPK_ERROR_COMPILE, "unknown output kind");
}

} // namespace dpk::compiler

// Link.h - linking external device code into a kernel's module (docs/linking.md).
//
// A module declares external functions (`extern func @name(...) -> T`, ir::Function::isExternal)
// and CompileOptions::linkInputs lists files that define them. Each target links the files of
// the kinds it can use and ignores the others, so one list may carry a definition per target:
//   host, SPIR-V: LLVM IR text (.ll) and bitcode (.bc), whose target triple is empty or the
//                 target's own (linked into the lowered LLVM module before optimization)
//   PTX:          the same, plus PTX (.ptx) and CUDA C (.cu, compiled with NVRTC when
//                 libnvrtc can be loaded), merged into the PTX text after code generation
//   OpenCL C:     OpenCL C source (.cl), appended to the emitted source after prototypes
// Every failure is DPK_ERROR_LINK and names the file, the symbol and the target: a declared
// symbol that no usable file defines, a definition whose signature differs from the
// declaration, a file that cannot be read as its kind, or link inputs of which none can serve
// the target.
#ifndef DPK_CORE_COMPILER_LINK_H
#define DPK_CORE_COMPILER_LINK_H

#include "compiler/Compiler.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace dpk::compiler {

enum class LinkFileKind { LlvmText, LlvmBitcode, OpenCLC, Ptx, CudaC, Unknown };

/// The kind of a link input, from its path's extension (.ll .bc .cl .ptx .cu).
LinkFileKind linkFileKind(const std::string &path);
/// "LLVM IR", "LLVM bitcode", "OpenCL C source", "PTX", "CUDA C source", "unknown".
const char *linkFileKindName(LinkFileKind kind);
/// Whether `target` links files of `kind` at all.
bool targetLinks(TargetKind target, LinkFileKind kind);
/// Which targets do, in words ("host, SPIR-V and PTX targets"), for messages.
const char *linkFileKindUsers(LinkFileKind kind);

/// The external functions of `module` that its kernels reach, in module order.
std::vector<const ir::Function *> reachedExternals(const ir::Module &module);
/// An external function's signature in IR types: "i32(i32, i32)", "void(ptr<global, f32>)".
std::string externalSignature(const ir::Function &function);

/// Checks the link inputs against `module` for `target` before any code is generated: every
/// input has a known kind, and when the module reaches external functions, at least one input
/// can serve the target (else the error names each file and which targets it serves).
Error checkLinkInputs(const ir::Module &module, const CompileOptions &options);

/// Host, SPIR-V, PTX: parses the usable .ll/.bc inputs into `llvmModule`'s context, checks that
/// every external function the lowering declared is defined by one of them with the
/// declaration's type, and links them in (only what is needed; definitions become internal).
/// On PTX, symbols left undefined may still come from .ptx/.cu inputs (`deferUndefined`).
Error linkLlvmInputs(llvm::Module &llvmModule, const ir::Module &module,
                     const CompileOptions &options, bool deferUndefined);

/// OpenCL C: checks that the .cl inputs define every external function (a light parse of
/// their function definitions: name, parameter count and types) and appends them to the
/// emitted `source`, each after a #line directive naming its file.
Expected<std::string> linkOpenCLCInputs(const ir::Module &module, const CompileOptions &options,
                                        std::string source);

/// PTX: the external functions still declared `.extern .func` in `ptx` are defined from the
/// .ptx inputs and from .cu inputs compiled with NVRTC; their definitions are merged into the
/// PTX text (after its header; the declarations removed, the version raised to the highest).
Expected<std::string> linkPtxInputs(const ir::Module &module, const CompileOptions &options,
                                    std::string ptx);

} // namespace dpk::compiler

#endif // DPK_CORE_COMPILER_LINK_H

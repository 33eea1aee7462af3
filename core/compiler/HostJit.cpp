// HostJit.cpp - loadHostCode(): links a host object into this process with ORC's LLJIT.
//
// One LLJIT per HostCode keeps the code alive exactly as long as the HostCode. Symbols the
// object needs (libm, glibc's libmvec vector math, memset/memcpy) resolve against the process,
// with libmvec loaded on first use because few programs link it.
//
// The object is linked with JITLink (ObjectLinkingLayer), not LLVM 15's default for ELF x86-64,
// RuntimeDyld with SectionMemoryManager. The code is compiled for the small code model, so its
// text reaches its constant pools and data with 32-bit PC-relative offsets; SectionMemoryManager
// maps each section on its own and may place them more than 2 GiB apart, and then those
// offsets silently wrap. That happened on the H100 machine (many mappings in a big Python
// process): host kernels died with SIGSEGV on their first launch, intermittently
// (docs/gpu-machine.md). JITLink allocates all of an object's segments in one slab and makes
// GOT entries and stubs for what lies far away, such as libm.
#include "compiler/Compiler.h"
#include "compiler/Targets.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <mutex>

namespace dpk::compiler {

namespace {

std::string takeMessage(llvm::Error error) { return llvm::toString(std::move(error)); }

class JitHostCode final : public HostCode {
public:
  JitHostCode(std::unique_ptr<llvm::orc::LLJIT> jit, std::vector<std::string> names)
      : jit_(std::move(jit)), names_(std::move(names)) {}

  Error resolve(const std::array<uint64_t, 3> &requiredLocalSize) {
    entries_.resize(names_.size());
    for (size_t i = 0; i < names_.size(); ++i) {
      auto address = jit_->lookup("dpk_wg_" + names_[i]);
      if (!address)
        return Error(DPK_ERROR_NOT_FOUND, "host code has no kernel '" + names_[i] +
                                              "': " + takeMessage(address.takeError()));
      dpk_host_kernel_entry_t &entry = entries_[i];
      entry.name = names_[i].c_str();
      entry.kind = DPK_HOST_KERNEL_GROUP;
      entry.fn = address->toPtr<void (*)(void)>();
      for (unsigned d = 0; d < 3; ++d) entry.required_local_size[d] = requiredLocalSize[d];
    }
    module_.struct_size = sizeof(dpk_host_module_t);
    module_.num_kernels = static_cast<uint32_t>(entries_.size());
    module_.kernels = entries_.data();
    return Error::success();
  }

  const dpk_host_module_t &module() const override { return module_; }

private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::vector<std::string> names_;
  std::vector<dpk_host_kernel_entry_t> entries_;
  dpk_host_module_t module_{};
};

void loadMathLibraries() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Global (RTLD_GLOBAL) so the process-wide symbol search below finds them.
    llvm::sys::DynamicLibrary::LoadLibraryPermanently("libm.so.6");
    llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
  });
}

} // namespace

Expected<std::shared_ptr<HostCode>> loadHostCode(const std::vector<uint8_t> &object,
                                                 const std::vector<std::string> &kernelNames,
                                                 const std::array<uint64_t, 3> &requiredLocalSize) {
  initializeLlvmTargets();
  loadMathLibraries();
  auto jit = llvm::orc::LLJITBuilder()
                 .setObjectLinkingLayerCreator(
                     [](llvm::orc::ExecutionSession &session, const llvm::Triple &)
                         -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                       return std::make_unique<llvm::orc::ObjectLinkingLayer>(session);
                     })
                 .create();
  if (!jit)
    return Error(DPK_ERROR_COMPILE, "cannot start the host JIT: " + takeMessage(jit.takeError()));
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator)
    return Error(DPK_ERROR_COMPILE, "cannot search this process for symbols: " +
                                        takeMessage(generator.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));

  llvm::StringRef bytes(reinterpret_cast<const char *>(object.data()), object.size());
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(bytes, "dpk-host-object");
  if (llvm::Error e = (*jit)->addObjectFile(std::move(buffer)))
    return Error(DPK_ERROR_COMPILE, "cannot load host code: " + takeMessage(std::move(e)));

  auto code = std::make_shared<JitHostCode>(std::move(*jit), kernelNames);
  if (Error e = code->resolve(requiredLocalSize)) return e;
  return std::shared_ptr<HostCode>(std::move(code));
}

} // namespace dpk::compiler

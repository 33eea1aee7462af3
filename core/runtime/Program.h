// Program.h - a program: dpk IR compiled per device on demand, SPIR-V for one device, or native
// host functions.
//
// IR programs are parsed and verified when created and compiled the first time one of their
// kernels is launched on a device, through the kernel cache. A build is kept per (device,
// specialization, compile unit): host NdRange launches are specialized on the local size, every
// other launch uses the generic build of its dimensionality; every launch of an IR program is
// also specialized on which view arguments have a unit innermost stride. The compile unit of a
// one-kernel program is the whole module; a program of several kernels compiles each kernel with
// its callees as a unit of its own, since the launch's dimension count belongs to one kernel
// (a 1-D and a 2-D kernel may share a program).
#ifndef DPK_CORE_RUNTIME_PROGRAM_H
#define DPK_CORE_RUNTIME_PROGRAM_H

#include "compiler/Compiler.h"
#include "dpk/plugin.h"
#include "ir/IR.h"
#include "runtime/RefCounted.h"
#include "support/Error.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace dpk::runtime {

class Device;

enum class ProgramKind { Ir, Spirv, Host };

/// Specialization::lanes of a kernel run as written.
constexpr std::array<unsigned, 3> kLiteralLanes{0, 1, 2};

/// What a build is specialized on.
struct Specialization {
  std::array<uint64_t, 3> localSize{0, 0, 0}; // all zero: generic
  uint32_t dims = 0;
  /// IR programs: bit i = view parameter i has innermost stride 1 at this launch
  /// (CompileOptions::unitInnerStrideViews).
  uint32_t unitInnerStrideViews = 0;
  /// IR Range launches: the new position of each work-item dimension (ir/LaneMapping.h);
  /// kLiteralLanes is the kernel as written.
  std::array<unsigned, 3> lanes = kLiteralLanes;
  /// IR programs: a Range launch in pieces (CompileOptions::rangeGuard).
  compiler::RangeGuardKind rangeGuard = compiler::RangeGuardKind::None;
  /// OpenCL C and PTX devices: every global size of the launch is below 2^32
  /// (CompileOptions::idsFit32).
  bool idsFit32 = false;
  /// Every field, for the comparisons below: a field added above must be added here.
  auto fields() const {
    return std::tie(localSize, dims, unitInnerStrideViews, lanes, rangeGuard, idsFit32);
  }
  bool operator==(const Specialization &other) const { return fields() == other.fields(); }
  bool operator<(const Specialization &other) const { return fields() < other.fields(); }
};

/// One program built for one device: the plugin program and its kernels.
class ProgramBuild {
public:
  ProgramBuild(Device &device, dpk_pl_program_t native,
               std::shared_ptr<compiler::HostCode> hostCode);
  ProgramBuild(const ProgramBuild &) = delete;
  ProgramBuild &operator=(const ProgramBuild &) = delete;
  ~ProgramBuild();

  Device &device() const { return device_; }
  /// The plugin kernel of that name, created on first use.
  Expected<dpk_pl_kernel_t> kernel(const std::string &name);

private:
  Device &device_;
  dpk_pl_program_t native_;
  std::shared_ptr<compiler::HostCode> hostCode_; // keeps JIT-ed host code alive
  std::mutex mutex_;
  std::map<std::string, dpk_pl_kernel_t> kernels_;
};

class Program final : public RefCounted {
public:
  /// `boundsCheck`: the program's bounds-check mode; nullopt takes the policy's (the
  /// `boundscheck:` key or DPK_BOUNDSCHECK).
  static Expected<Ref<Program>> fromIr(std::string_view text, std::string label,
                                       std::optional<bool> boundsCheck = std::nullopt,
                                       std::vector<compiler::LinkInput> linkInputs = {});
  /// The link inputs of `paths`, each file read now (DPK_ERROR_NOT_FOUND naming one that
  /// cannot be read; DPK_ERROR_LINK for a kind no target links).
  static Expected<std::vector<compiler::LinkInput>> readLinkInputs(
      const std::vector<std::string> &paths);
  static Expected<Ref<Program>> fromSpirv(Device &device, const void *spirv, size_t size);
  static Expected<Ref<Program>> fromHost(const dpk_host_kernel_entry_t *entries, uint32_t count);

  ProgramKind kind() const { return kind_; }
  const std::string &label() const { return label_; }
  /// IR programs in bounds-check mode (compiler/BoundsCheck.h): every kernel takes one more
  /// launch argument, last, the status record's pointer, and launches go through
  /// launchBoundsChecked (BoundsCheckLaunch.h).
  bool boundsCheck() const { return boundsCheck_; }
  /// IR programs: the verified module.
  const ir::Module *module() const { return module_.get(); }
  /// SPIR-V programs: the one device they were made for.
  Device *boundDevice() const { return boundDevice_; }
  /// Host programs: the entry of that name, or null.
  const dpk_host_kernel_entry_t *hostEntry(const std::string &name) const;

  /// Whether kernels of this program can run on `device` at all (and why not).
  Error checkRunsOn(const Device &device) const;
  /// The build for `device` and `specialization`, compiling (through the cache) on first use.
  /// `kernel` names the kernel that asked, for diagnostics and messages.
  Expected<std::shared_ptr<ProgramBuild>> build(Device &device, const Specialization &spec,
                                                const std::string &kernel);

private:
  /// What one IR build compiles: the module or one kernel's slice of it, and its printed text
  /// (the cache key's IR text).
  struct CompileUnit {
    const ir::Module *module = nullptr;
    const std::string *canonicalText = nullptr;
  };
  struct KernelSliceUnit {
    std::unique_ptr<ir::Module> module;
    std::string canonicalText;
  };

  Program(ProgramKind kind, std::string label);
  /// Whether a build with `lanes` compiles the whole module (one kernel, as written) rather
  /// than one kernel's slice of it.
  bool compilesWholeModule(const std::array<unsigned, 3> &lanes) const {
    return !severalKernels_ && lanes == kLiteralLanes;
  }
  /// The unit that compiles `kernel` with its work-item dimensions moved to `lanes` (callers
  /// hold mutex_).
  Expected<CompileUnit> compileUnitFor(const std::string &kernel,
                                       const std::array<unsigned, 3> &lanes);
  Expected<std::shared_ptr<ProgramBuild>> buildIr(Device &device, const Specialization &spec,
                                                  const std::string &kernel,
                                                  const CompileUnit &unit);
  Expected<std::shared_ptr<ProgramBuild>> createBuild(Device &device,
                                                      dpk_artifact_format_t format,
                                                      const void *data, size_t size,
                                                      std::shared_ptr<compiler::HostCode> host);

  ProgramKind kind_;
  std::string label_;
  bool boundsCheck_ = false;
  std::unique_ptr<ir::Module> module_;
  bool severalKernels_ = false; // IR programs: more than one kernel (ir::kernelCount)
  std::string canonicalText_; // printer output: the cache key's IR text
  /// IR programs: files linked into every build (CompileOptions::linkInputs).
  std::vector<compiler::LinkInput> linkInputs_;
  Device *boundDevice_ = nullptr;
  std::vector<uint8_t> spirv_;
  std::vector<std::string> hostNames_; // owns the names hostEntries_ point to
  std::vector<dpk_host_kernel_entry_t> hostEntries_;
  dpk_host_module_t hostModule_{};

  std::mutex mutex_;
  /// Multi-kernel IR programs, and kernels launched with their lanes permuted: each
  /// (kernel, lanes) unit, made on its first build.
  std::map<std::pair<std::string, std::array<unsigned, 3>>, KernelSliceUnit> kernelUnits_;
  /// Keyed by device, specialization and the kernel whose unit was built ("" when the unit is
  /// the whole program).
  std::map<std::tuple<Device *, Specialization, std::string>, std::shared_ptr<ProgramBuild>>
      builds_;
};

/// The compile target for a device (HOST_NATIVE -> host, PTX -> ptx, SPIR-V preferred over
/// OpenCL C unless DPK_OPENCL_INPUT=opencl-c), or DPK_ERROR_UNSUPPORTED.
Expected<compiler::TargetKind> targetFor(const Device &device);
/// The sub-group size of IR kernels compiled for `device`'s target: 32 for PTX (warps), 1 for
/// every other target (their lowering makes sub-groups of one work-item; docs/ir.md).
uint32_t subGroupSize(const Device &device);
/// "host", "spirv", "opencl-c", "ptx" (as compiler::targetName, without linking the compiler).
const char *targetText(compiler::TargetKind target);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_PROGRAM_H

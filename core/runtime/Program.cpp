// Program.cpp - creating programs and building them for devices.
#include "runtime/Program.h"

#include "ir/KernelSlice.h"
#include "ir/LaneMapping.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "runtime/Device.h"
#include "runtime/Registry.h"
#include "runtime/RuntimePolicy.h"

#include "ir/Verifier.h"
#include "cache/KernelCache.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dpk::runtime {
namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

cache::KernelCache &configuredCache() {
  static std::once_flag once;
  std::call_once(once, [] {
    const policy::CacheSettings &settings = Registry::get().policy().cache;
    cache::CacheMode mode = cache::CacheMode::ReadWrite;
    switch (settings.mode) {
    case policy::CacheMode::ReadWrite: mode = cache::CacheMode::ReadWrite; break;
    case policy::CacheMode::ReadOnly: mode = cache::CacheMode::ReadOnly; break;
    case policy::CacheMode::Off: mode = cache::CacheMode::Off; break;
    }
    cache::KernelCache::global().configure(settings.dir, mode);
  });
  return cache::KernelCache::global();
}

/// Compiles through the kernel cache, reporting cache and compile events.
Expected<compiler::Artifact> compileCached(const ir::Module &module, const std::string &irText,
                                           const compiler::CompileOptions &options,
                                           const Device &device, const std::string &kernel,
                                           const std::string &label) {
  auto compile = [&]() { return compiler::compileModule(module, options); };
  cache::CacheKey key = cache::CacheKey::make(irText, options, device.props().target_id);
  cache::CacheOutcome outcome;
  Expected<compiler::Artifact> artifact = configuredCache().getOrCompile(key, compile, &outcome);
  if (diagnosticsEnabled(2)) {
    bool hit = outcome.kind != cache::CacheOutcomeKind::Miss;
    diag::Fields fields = {{"kernel", kernel},
                           {"program", label},
                           {"device", device.filterString()},
                           {"target", targetText(options.target)},
                           {"key", outcome.digest.substr(0, 16)},
                           {"layer", outcome.kind == cache::CacheOutcomeKind::HitMemory ? "memory"
                                     : outcome.kind == cache::CacheOutcomeKind::HitDisk ? "disk"
                                                                                        : "none"}};
    fields.push_back({"time_ms", hit ? outcome.loadMs : outcome.compileMs});
    if (!outcome.note.empty())
      fields.push_back({"note", outcome.note});
    emitDiagnostic(2, hit ? "cache.hit" : "cache.miss", fields);
  }
  return artifact;
}

} // namespace

const char *targetText(compiler::TargetKind target) {
  switch (target) {
  case compiler::TargetKind::Host: return "host";
  case compiler::TargetKind::SpirV: return "spirv";
  case compiler::TargetKind::OpenCLC: return "opencl-c";
  case compiler::TargetKind::Ptx: return "ptx";
  }
  return "unknown";
}

Expected<compiler::TargetKind> targetFor(const Device &device) {
  if (device.accepts(DPK_FORMAT_HOST_NATIVE))
    return compiler::TargetKind::Host;
  if (device.accepts(DPK_FORMAT_PTX))
    return compiler::TargetKind::Ptx;
  bool spirv = device.accepts(DPK_FORMAT_SPIRV);
  bool openclC = device.accepts(DPK_FORMAT_OPENCL_C);
  if (spirv && openclC) {
    const char *choice = std::getenv("DPK_OPENCL_INPUT");
    if (choice && std::strcmp(choice, "opencl-c") == 0)
      return compiler::TargetKind::OpenCLC;
    return compiler::TargetKind::SpirV;
  }
  if (spirv)
    return compiler::TargetKind::SpirV;
  if (openclC)
    return compiler::TargetKind::OpenCLC;
  return Error(DPK_ERROR_UNSUPPORTED, "device " + device.describe() +
                                          " accepts no artifact format dpk can produce");
}

uint32_t subGroupSize(const Device &device) {
  Expected<compiler::TargetKind> target = targetFor(device);
  return target && *target == compiler::TargetKind::Ptx ? 32 : 1;
}

// ---- ProgramBuild ------------------------------------------------------------------------

ProgramBuild::ProgramBuild(Device &device, dpk_pl_program_t native,
                           std::shared_ptr<compiler::HostCode> hostCode)
    : device_(device), native_(native), hostCode_(std::move(hostCode)) {}

ProgramBuild::~ProgramBuild() {
  const ValidatedDispatch &table = device_.plugin().table;
  for (auto &entry : kernels_)
    (void)table.kernel_release(entry.second);
  (void)table.program_release(native_);
}

Expected<dpk_pl_kernel_t> ProgramBuild::kernel(const std::string &name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(name);
  if (it != kernels_.end())
    return it->second;
  dpk_pl_kernel_t native = nullptr;
  if (Error error = device_.plugin().check(
          device_.plugin().table.kernel_create(&native, native_, name.c_str()),
          "creating kernel '" + name + "' on " + device_.describe()))
    return error;
  kernels_.emplace(name, native);
  return native;
}

// ---- Program -----------------------------------------------------------------------------

Program::Program(ProgramKind kind, std::string label)
    : RefCounted(HandleKind::Program), kind_(kind), label_(std::move(label)) {}

Expected<std::vector<compiler::LinkInput>> Program::readLinkInputs(
    const std::vector<std::string> &paths) {
  std::vector<compiler::LinkInput> inputs;
  for (const std::string &path : paths) {
    std::string extension = path.substr(std::min(path.size(), path.find_last_of('.')));
    if (extension != ".ll" && extension != ".bc" && extension != ".cl" && extension != ".ptx" &&
        extension != ".cu")
      return Error(DPK_ERROR_LINK, "link: " + path +
                                       ": unknown kind of file (link .ll or .bc LLVM IR, .cl "
                                       "OpenCL C, .ptx PTX or .cu CUDA C)");
    std::ifstream file(path, std::ios::binary);
    if (!file)
      return Error(DPK_ERROR_NOT_FOUND, "link: cannot read " + path + ": " + std::strerror(errno));
    std::ostringstream contents;
    contents << file.rdbuf();
    if (file.bad())
      return Error(DPK_ERROR_NOT_FOUND, "link: cannot read " + path);
    inputs.push_back({path, contents.str()});
  }
  return inputs;
}

Expected<Ref<Program>> Program::fromIr(std::string_view text, std::string label,
                                       std::optional<bool> boundsCheck,
                                       std::vector<compiler::LinkInput> linkInputs) {
  if (label.empty())
    label = "<ir>";
  Expected<std::unique_ptr<ir::Module>> parsed = ir::parseModule(text, label);
  if (!parsed)
    return parsed.takeError();
  if (Error error = ir::verifyModule(**parsed))
    return Error(error.status(), label + ": " + error.message());
  Ref<Program> program = Ref<Program>::adopt(new Program(ProgramKind::Ir, std::move(label)));
  program->module_ = std::move(*parsed);
  program->severalKernels_ = ir::kernelCount(*program->module_) > 1;
  if (!boundsCheck) {
    if (Error error = Registry::ensure())
      return error;
    boundsCheck = Registry::get().policy().boundsCheck;
  }
  program->boundsCheck_ = *boundsCheck;
  program->linkInputs_ = std::move(linkInputs);
  program->canonicalText_ = ir::printModule(*program->module_);
  dumpCompileStage(program->label_, "input", "dpkir", program->canonicalText_);
  return program;
}

Expected<Ref<Program>> Program::fromSpirv(Device &device, const void *spirv, size_t size) {
  if (!device.accepts(DPK_FORMAT_SPIRV))
    return Error(DPK_ERROR_UNSUPPORTED, "device " + device.describe() + " does not accept SPIR-V");
  if (size < 20 || size % 4 != 0)
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "SPIR-V binary of " + std::to_string(size) +
                     " bytes is not a whole number of words with a 5-word header");
  Ref<Program> program = Ref<Program>::adopt(new Program(ProgramKind::Spirv, "<spirv>"));
  program->boundDevice_ = &device;
  const auto *bytes = static_cast<const uint8_t *>(spirv);
  program->spirv_.assign(bytes, bytes + size);
  // Build now so a bad binary is reported here rather than at the first launch.
  Expected<std::shared_ptr<ProgramBuild>> built = program->build(device, {}, "");
  if (!built)
    return built.takeError();
  return program;
}

Expected<Ref<Program>> Program::fromHost(const dpk_host_kernel_entry_t *entries, uint32_t count) {
  Ref<Program> program = Ref<Program>::adopt(new Program(ProgramKind::Host, "<host>"));
  program->hostNames_.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    const dpk_host_kernel_entry_t &entry = entries[i];
    std::string where = "host kernel entry " + std::to_string(i);
    if (!entry.name || !*entry.name)
      return Error(DPK_ERROR_INVALID_ARGUMENT, where + " has no name");
    if (!entry.fn)
      return Error(DPK_ERROR_INVALID_ARGUMENT, where + " ('" + entry.name + "') has no function");
    if (entry.kind != DPK_HOST_KERNEL_GROUP && entry.kind != DPK_HOST_KERNEL_ITEM)
      return Error(DPK_ERROR_INVALID_ARGUMENT, where + " ('" + entry.name + "') has kind " +
                                                   std::to_string(int(entry.kind)) +
                                                   ", expected DPK_HOST_KERNEL_GROUP or _ITEM");
    for (const std::string &name : program->hostNames_) {
      if (name == entry.name)
        return Error(DPK_ERROR_INVALID_ARGUMENT,
                     "two host kernel entries are named '" + name + "'");
    }
    program->hostNames_.push_back(entry.name);
  }
  for (uint32_t i = 0; i < count; ++i) {
    dpk_host_kernel_entry_t entry = entries[i];
    entry.name = program->hostNames_[i].c_str();
    program->hostEntries_.push_back(entry);
  }
  program->hostModule_.struct_size = sizeof(dpk_host_module_t);
  program->hostModule_.num_kernels = count;
  program->hostModule_.kernels = program->hostEntries_.data();
  return program;
}

const dpk_host_kernel_entry_t *Program::hostEntry(const std::string &name) const {
  for (const dpk_host_kernel_entry_t &entry : hostEntries_) {
    if (name == entry.name)
      return &entry;
  }
  return nullptr;
}

Error Program::checkRunsOn(const Device &device) const {
  switch (kind_) {
  case ProgramKind::Ir:
    return Error::success();
  case ProgramKind::Spirv:
    if (&device == boundDevice_)
      return Error::success();
    return Error(DPK_ERROR_PLACEMENT, "the SPIR-V program was created for " +
                                          boundDevice_->describe() + ", not " +
                                          device.describe());
  case ProgramKind::Host:
    if (device.accepts(DPK_FORMAT_HOST_NATIVE))
      return Error::success();
    return Error(DPK_ERROR_UNSUPPORTED, "a program of native host functions runs only on the "
                                        "host device, not on " +
                                            device.describe());
  }
  return Error::success();
}

Expected<std::shared_ptr<ProgramBuild>>
Program::createBuild(Device &device, dpk_artifact_format_t format, const void *data, size_t size,
                     std::shared_ptr<compiler::HostCode> host) {
  Expected<dpk_pl_context_t> context = device.context();
  if (!context)
    return context.takeError();
  dpk_pl_program_t native = nullptr;
  if (Error error = device.plugin().check(
          device.plugin().table.program_create(&native, *context, format, data, size, nullptr),
          "building program '" + label_ + "' for " + device.describe()))
    return error;
  return std::make_shared<ProgramBuild>(device, native, std::move(host));
}

Expected<std::shared_ptr<ProgramBuild>> Program::build(Device &device, const Specialization &spec,
                                                       const std::string &kernel) {
  if (Error error = checkRunsOn(device))
    return error;
  // One lock for the whole build: two threads launching the same new kernel compile it once.
  std::lock_guard<std::mutex> lock(mutex_);
  bool perKernel = kind_ == ProgramKind::Ir && !compilesWholeModule(spec.lanes);
  auto key = std::make_tuple(&device, spec, perKernel ? kernel : std::string());
  auto it = builds_.find(key);
  if (it != builds_.end())
    return it->second;

  Expected<std::shared_ptr<ProgramBuild>> built = Error(DPK_ERROR_GENERIC, "unreachable");
  switch (kind_) {
  case ProgramKind::Ir: {
    Expected<CompileUnit> unit = compileUnitFor(kernel, spec.lanes);
    if (!unit)
      return unit.takeError();
    built = buildIr(device, spec, kernel, *unit);
    break;
  }
  case ProgramKind::Spirv:
    built = createBuild(device, DPK_FORMAT_SPIRV, spirv_.data(), spirv_.size(), nullptr);
    break;
  case ProgramKind::Host:
    built = createBuild(device, DPK_FORMAT_HOST_NATIVE, &hostModule_, sizeof(hostModule_), nullptr);
    break;
  }
  if (!built)
    return built;
  builds_.emplace(key, *built);
  return built;
}

Expected<Program::CompileUnit> Program::compileUnitFor(const std::string &kernel,
                                                      const std::array<unsigned, 3> &lanes) {
  if (compilesWholeModule(lanes))
    return CompileUnit{module_.get(), &canonicalText_};
  auto found = kernelUnits_.find({kernel, lanes});
  if (found == kernelUnits_.end()) {
    const ir::Function *function = module_->lookup(kernel);
    if (!function || !function->isKernel)
      return Error(DPK_ERROR_NOT_FOUND,
                   "kernel '" + kernel + "' is not a kernel of program '" + label_ + "'");
    // Printed with source locations so diagnostics of the slice still point at the source;
    // the printer's round trip is exact (Printer.h), and the slice of a verified module is one.
    ir::PrintOptions withLocations;
    withLocations.locations = true;
    Expected<std::unique_ptr<ir::Module>> parsed =
        ir::parseModule(ir::printKernelSlice(*module_, *function, withLocations), label_);
    if (!parsed)
      return Error(DPK_ERROR_GENERIC, "internal: re-reading kernel '" + kernel + "' of '" +
                                          label_ + "': " + parsed.takeError().message());
    KernelSliceUnit unit;
    unit.module = std::move(*parsed);
    // The slice is this kernel's alone, so its callees may be rewritten with it.
    if (lanes != kLiteralLanes)
      ir::permuteWorkItemDimensions(*unit.module, lanes);
    unit.canonicalText = ir::printModule(*unit.module);
    found = kernelUnits_.emplace(std::make_pair(kernel, lanes), std::move(unit)).first;
  }
  return CompileUnit{found->second.module.get(), &found->second.canonicalText};
}

Expected<std::shared_ptr<ProgramBuild>> Program::buildIr(Device &device, const Specialization &spec,
                                                         const std::string &kernel,
                                                         const CompileUnit &unit) {
  Expected<compiler::TargetKind> target = targetFor(device);
  if (!target)
    return target.takeError();
  // An OpenCL device that takes both SPIR-V and OpenCL C gets the input its link files serve:
  // OpenCL C source links only into OpenCL C, LLVM IR only into SPIR-V (docs/linking.md).
  if (!linkInputs_.empty() && device.accepts(DPK_FORMAT_SPIRV) &&
      device.accepts(DPK_FORMAT_OPENCL_C)) {
    auto has = [&](const char *extension) {
      for (const compiler::LinkInput &input : linkInputs_) {
        size_t dot = input.path.find_last_of('.');
        if (dot != std::string::npos && input.path.substr(dot) == extension)
          return true;
      }
      return false;
    };
    if (has(".cl"))
      target = compiler::TargetKind::OpenCLC;
    else if (has(".ll") || has(".bc"))
      target = compiler::TargetKind::SpirV;
  }
  compiler::CompileOptions options;
  options.target = *target;
  options.localSize = spec.localSize;
  options.dims = spec.dims;
  options.unitInnerStrideViews = spec.unitInnerStrideViews;
  options.rangeGuard = spec.rangeGuard;
  options.idsFit32 = spec.idsFit32;
  // The host compiles for the CPU it runs on, or for the CPU that DPK_HOST_CPU names (an LLVM
  // CPU name: x86-64-v3 for AVX2 code without AVX-512, say); device targets name their
  // architecture.
  if (*target != compiler::TargetKind::Host)
    options.targetId = device.props().target_id;
  else if (const char *hostCpu = std::getenv("DPK_HOST_CPU"); hostCpu && *hostCpu)
    options.targetId = hostCpu;
  options.dumpDirectory = stageDumpDirectory();
  options.boundsCheck = boundsCheck_;
  options.linkInputs = linkInputs_;

  auto start = std::chrono::steady_clock::now();
  Expected<compiler::Artifact> artifact =
      compileCached(*unit.module, *unit.canonicalText, options, device, kernel, label_);
  if (!artifact) {
    Error error = artifact.takeError();
    bool keep = error.status() == DPK_ERROR_UNSUPPORTED || error.status() == DPK_ERROR_LINK;
    return Error(keep ? error.status() : DPK_ERROR_COMPILE,
                 "compiling kernel '" + kernel + "' for " + device.describe() + " (" +
                     targetText(*target) + "): " + error.message());
  }
  double compileMs = millisecondsSince(start);

  std::shared_ptr<compiler::HostCode> hostCode;
  Expected<std::shared_ptr<ProgramBuild>> built = Error(DPK_ERROR_GENERIC, "unreachable");
  if (*target == compiler::TargetKind::Host) {
    std::vector<std::string> names;
    for (const auto &function : unit.module->functions) {
      if (function->isKernel)
        names.push_back(function->name);
    }
    Expected<std::shared_ptr<compiler::HostCode>> loaded =
        compiler::loadHostCode(artifact->bytes, names, spec.localSize);
    if (!loaded) {
      Error error = loaded.takeError();
      return Error(DPK_ERROR_COMPILE, "loading host code of kernel '" + kernel + "': " +
                                          error.message());
    }
    hostCode = *loaded;
    built = createBuild(device, DPK_FORMAT_HOST_NATIVE, &hostCode->module(),
                        sizeof(dpk_host_module_t), hostCode);
  } else {
    std::vector<uint8_t> bytes = std::move(artifact->bytes);
    // OpenCL C and PTX are text that the plugins read as a C string.
    if (artifact->format != DPK_FORMAT_SPIRV && (bytes.empty() || bytes.back() != 0))
      bytes.push_back(0);
    built = createBuild(device, artifact->format, bytes.data(), bytes.size(), nullptr);
  }
  if (!built) {
    Error error = built.takeError();
    dpk_status_t status =
        error.status() == DPK_ERROR_OUT_OF_DEVICE_MEMORY ? error.status() : DPK_ERROR_COMPILE;
    return Error(status, "kernel '" + kernel + "': " + error.message());
  }
  if (diagnosticsEnabled(2))
    emitDiagnostic(2, "kernel.compile",
                   {{"kernel", kernel},
                    {"program", label_},
                    {"device", device.filterString()},
                    {"target", targetText(*target)},
                    {"local_size", std::to_string(spec.localSize[0]) + "," +
                                       std::to_string(spec.localSize[1]) + "," +
                                       std::to_string(spec.localSize[2])},
                    {"unit_inner_stride_views", std::to_string(spec.unitInnerStrideViews)},
                    {"ids32", spec.idsFit32 ? "1" : "0"},
                    {"time_ms", millisecondsSince(start)},
                    {"compile_ms", compileMs}});
  return built;
}

} // namespace dpk::runtime

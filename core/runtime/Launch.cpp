// Launch.cpp - validation, marshalling and submission of kernel launches.
#include "runtime/Launch.h"

#include "runtime/BoundsCheckLaunch.h"
#include "runtime/Device.h"
#include "runtime/HostFallback.h"
#include "runtime/Kernel.h"
#include "runtime/LaunchRange.h"
#include "runtime/Queue.h"
#include "runtime/Registry.h"
#include "runtime/RuntimePolicy.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

namespace dpk::runtime {
namespace {

/// A launch argument's kind after marshalling (views are expanded by then).
const char *argKindText(dpk_arg_kind_t kind) {
  switch (kind) {
  case DPK_ARG_POINTER: return "a pointer";
  case DPK_ARG_SCALAR: return "a scalar";
  case DPK_ARG_LOCAL: return "local memory";
  }
  return "an unknown kind";
}

std::string sizesText(const uint64_t *sizes, uint32_t dims) {
  std::string text;
  for (uint32_t d = 0; d < dims; ++d)
    text += (d ? "x" : "") + std::to_string(sizes[d]);
  return text;
}

/// The IR parameter's description for messages: "parameter 2 ('n': i64)".
std::string parameterText(const Kernel &kernel, unsigned paramIndex) {
  std::string text = "parameter " + std::to_string(paramIndex);
  const ir::Function *function = kernel.function();
  if (!function || paramIndex >= function->params.size())
    return text;
  const ir::Value *param = function->params[paramIndex];
  text += " (";
  if (!param->name.empty())
    text += "'" + param->name + "': ";
  return text + ir::typeToString(param->type) + ")";
}

Error checkSignature(const Kernel &kernel, const MarshalledArgs &marshalled, uint32_t userCount) {
  const std::vector<compiler::AbiArg> &abi = kernel.abi();
  const MarshalledArgs::ArgList &args = marshalled.args();
  size_t params = kernel.function()->params.size();
  if (args.size() != abi.size())
    return Error(DPK_ERROR_INVALID_ARGUMENT,
                 "kernel '" + kernel.name() + "' takes " + std::to_string(params) +
                     " parameters (" + std::to_string(abi.size()) +
                     " launch arguments with views expanded), but " + std::to_string(userCount) +
                     " arguments were given (" + std::to_string(args.size()) + " expanded)");
  for (size_t i = 0; i < abi.size(); ++i) {
    const compiler::AbiArg &expected = abi[i];
    const dpk_kernel_arg_t &given = args[i];
    auto where = [&] {
      return "kernel '" + kernel.name() + "': argument " + std::to_string(marshalled.userIndex(i)) +
             " for " + parameterText(kernel, expected.paramIndex);
    };
    if (given.kind != expected.kind)
      return Error(DPK_ERROR_INVALID_ARGUMENT, where() + " must be " + argKindText(expected.kind) +
                                                   ", got " + argKindText(given.kind));
    if (expected.kind == DPK_ARG_SCALAR && given.size != expected.size)
      return Error(DPK_ERROR_INVALID_ARGUMENT, where() + " must be a scalar of " +
                                                   std::to_string(expected.size) +
                                                   " bytes, got " + std::to_string(given.size));
  }
  return Error::success();
}

} // namespace

void MarshalledArgs::setPointer(size_t argIndex, void *address) {
  *static_cast<void **>(const_cast<void *>(args_[argIndex].value)) = address;
}

Error validateRange(const dpk_launch_config_t &config, const std::string &kernel) {
  std::string problem = launchRangeProblem(config, /*allowEmpty=*/true);
  if (problem.empty())
    return Error::success();
  return Error(DPK_ERROR_INVALID_RANGE, "launch of kernel '" + kernel + "': " + problem);
}

/// A Range in pieces of at most this many work-groups runs as one guarded launch instead.
constexpr uint64_t kSingleLaunchGroups = 64;

/// DPK_LANE_MAPPING: "auto" (the default) lets Range kernels run with their contiguous
/// dimension on the fastest lanes; "literal" maps dpk's last dimension there, as written.
static bool laneMappingEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("DPK_LANE_MAPPING");
    if (!value || !*value || std::strcmp(value, "auto") == 0)
      return true;
    if (std::strcmp(value, "literal") != 0 && diagnosticsEnabled(1))
      emitDiagnostic(1, "config.warning",
                     {{"what", "DPK_LANE_MAPPING=" + std::string(value) +
                                   " is not auto or literal; using literal"}});
    return false;
  }();
  return enabled;
}

/// The new position of each dimension when `kernel` runs over a Range of `config`'s
/// dimensionality with its lanes remapped (ir/LaneMapping.h), or null for the literal mapping.
/// It depends only on the kernel, the launch kind and the dimension count, so the permuted
/// range and the build (prepareOnDevice) agree wherever the launch goes, fallback included.
static const ir::LaneChoice *laneRemap(const Kernel &kernel, const dpk_launch_config_t &config) {
  const ir::LaneChoice &choice = kernel.laneChoice();
  if (!kernel.hasSignature() || !choice.permutes() || choice.dims != config.dims ||
      !isRangeLaunch(config) || !laneMappingEnabled())
    return nullptr;
  return &choice;
}

/// `config` over the permuted dimensions when the lanes are remapped, else `config` itself.
static const dpk_launch_config_t &permuteForLanes(Kernel &kernel, const Device &device,
                                                  const dpk_launch_config_t &config,
                                                  dpk_launch_config_t &storage) {
  const ir::LaneChoice *remap = laneRemap(kernel, config);
  if (diagnosticsEnabled(3) && kernel.hasSignature() && config.dims >= 2 &&
      isRangeLaunch(config) && !kernel.laneChoiceReported())
    emitDiagnostic(3, "kernel.lanes",
                   {{"kernel", kernel.name()},
                    {"device", device.filterString()},
                    {"mapping", remap ? "Range dim " + std::to_string(remap->fastDimension) +
                                            " -> lanes"
                                      : std::string("literal")},
                    {"reason", laneMappingEnabled() ? kernel.laneChoice().reason
                                                    : std::string("DPK_LANE_MAPPING=literal")}});
  if (!remap)
    return config;
  storage = config;
  std::array<unsigned, 3> position = remap->newPosition();
  for (uint32_t d = 0; d < config.dims; ++d)
    storage.global_size[position[d]] = config.global_size[d];
  return storage;
}

/// Whether the core picks the work-group shape of Range launches on `device`: devices that take
/// SPIR-V or OpenCL C, whose implementations compile a work-group function per shape
/// (compiler/RangeGuard.h says why). The host and CUDA pick their own without compiling.
static bool corePicksRangeShape(const Device &device) {
  return !device.accepts(DPK_FORMAT_HOST_NATIVE) && !device.accepts(DPK_FORMAT_PTX) &&
         (device.accepts(DPK_FORMAT_SPIRV) || device.accepts(DPK_FORMAT_OPENCL_C));
}

DeviceRange deviceRangeFor(const Device &device, const Kernel &kernel,
                           const dpk_launch_config_t &config, bool inOrder) {
  DeviceRange range;
  range.config = config;
  if (const ir::LaneChoice *remap = laneRemap(kernel, config))
    range.lanes = remap->newPosition();
  if (!isRangeLaunch(config) || isEmptyRange(config) || !corePicksRangeShape(device))
    return range;
  bool inPieces = kernel.program().kind() == ProgramKind::Ir && kernel.rangeGuardable();
  uint64_t *local = range.config.local_size;
  pickRangeLocal(config, device.props(), inPieces, local,
                 groupItemsFor(kernel.privateBytes(), device.props()));
  if (!inPieces)
    return range;
  const uint32_t dims = config.dims;
  uint64_t whole[3] = {0, 0, 0}; // each dimension's extent in whole work-groups
  bool bulk = true;
  bool divides = true;
  for (uint32_t d = 0; d < dims; ++d) {
    uint64_t global = config.global_size[d];
    range.realGlobal[d] = static_cast<int64_t>(global);
    range.config.global_size[d] = roundUp(global, local[d]);
    whole[d] = global / local[d] * local[d];
    bulk = bulk && whole[d] != 0;
    divides = divides && whole[d] == global;
  }
  // Whole work-groups only: one launch of the kernel as written in the picked shape, no pieces.
  // (The bulk's build adds run-time offsets to the ids, which kept NVIDIA's OpenCL from doing
  // index arithmetic in 32 bits: pairwise distance n = 16384 1.15 ms in pieces.)
  if (divides)
    return range;
  auto add = [&](const uint64_t *global, const uint64_t *offset, bool guarded) {
    RangePiece &piece = range.pieces[range.pieceCount++];
    piece.config = range.config;
    for (uint32_t d = 0; d < dims; ++d) {
      piece.config.global_size[d] = global[d];
      piece.offset[d] = static_cast<int64_t>(offset[d]);
    }
    piece.guarded = guarded;
  };
  const uint64_t zero[3] = {0, 0, 0};
  // One guarded launch where pieces cannot be ordered without events (an out-of-order queue),
  // and where the range is small: a second launch then costs more than the guard does (PoCL
  // and Intel's runtime: 5-15 us a launch; the guard about 0.07 ns a work-item).
  uint64_t groups = 1;
  for (uint32_t d = 0; d < dims; ++d)
    groups *= range.config.global_size[d] / local[d];
  if (!inOrder || groups <= kSingleLaunchGroups) {
    add(range.config.global_size, zero, /*guarded=*/true);
    return range;
  }
  if (bulk)
    add(whole, zero, /*guarded=*/false);
  // The remainder of dimension t: whole work-groups before it, its rest rounded up to one
  // work-group, every extent after it rounded up; the guard skips what lies past the range.
  for (uint32_t t = 0; t < dims; ++t) {
    if (whole[t] == config.global_size[t])
      continue;
    uint64_t global[3], offset[3] = {0, 0, 0};
    bool empty = false;
    for (uint32_t d = 0; d < dims; ++d) {
      global[d] = d < t ? whole[d] : d == t ? local[d] : range.config.global_size[d];
      empty = empty || global[d] == 0;
    }
    offset[t] = whole[t];
    if (!empty)
      add(global, offset, /*guarded=*/true);
  }
  return range;
}

Error validateForDevice(const DeviceRange &range, const dpk_launch_config_t &config,
                        const MarshalledArgs &args, const Device &device,
                        const std::string &kernel) {
  auto who = [&] { return "launch of kernel '" + kernel + "' on " + device.describe() + ": "; };
  const dpk_device_props_t &props = device.props();
  if (props.local_mem_size != 0 && args.localMemoryBytes() > props.local_mem_size)
    return Error(DPK_ERROR_INVALID_RANGE,
                 who() + "local memory arguments take " + std::to_string(args.localMemoryBytes()) +
                     " bytes, the device has " + std::to_string(props.local_mem_size));
  uint64_t requested = 1;
  for (uint32_t d = 0; d < config.dims; ++d)
    requested *= config.global_size[d]; // validateRange: no overflow
  std::string problem = deviceRangeProblem(range.config, requested, props);
  if (problem.empty())
    return Error::success();
  if (range.config.local_size[0] != config.local_size[0] &&
      problem.find("work-group") != std::string::npos)
    problem += " (dpk picked the work-groups of this Range launch)";
  return Error(DPK_ERROR_INVALID_RANGE, who() + problem);
}

// A kernel that indexes dimension d needs a launch of more than d dimensions, on every device
// alike: device targets number dimensions from the launch's count (LaunchDimensions.h), so
// such a launch could not be compiled there, and would otherwise run only where the host took it.
static Error checkDimensionsUsed(const Kernel &kernel, const dpk_launch_config_t &config) {
  if (kernel.dimensionsUsed() <= config.dims)
    return Error::success();
  return Error(DPK_ERROR_INVALID_RANGE,
               "kernel '" + kernel.name() + "' indexes work-item dimension " +
                   std::to_string(kernel.dimensionsUsed() - 1) + ", so it needs a launch of " +
                   std::to_string(kernel.dimensionsUsed()) + " dimensions; this launch has " +
                   std::to_string(config.dims) + " (global " +
                   sizesText(config.global_size, config.dims) + ")");
}

/// An argument's own problem: "kernel 'k': argument i <problem>". Out of line, with the index
/// by value: a message lambda capturing the loop index kept it in memory on every launch.
static Error argumentError(const Kernel &kernel, uint32_t index, const std::string &problem) {
  return Error(DPK_ERROR_INVALID_ARGUMENT,
               "kernel '" + kernel.name() + "': argument " + std::to_string(index) + problem);
}

Error expandArguments(const Kernel &kernel, const LaunchArg *args, uint32_t count,
                      MarshalledArgs &out) {
  size_t pointerCount = 0;
  size_t scalarCount = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const LaunchArg &arg = args[i];
    switch (arg.kind) {
    case LaunchArgKind::Pointer:
      ++pointerCount;
      continue;
    case LaunchArgKind::Scalar:
      if (!arg.value || arg.size == 0)
        return argumentError(kernel, i, " is a scalar without a value or size");
      continue;
    case LaunchArgKind::Local:
      if (arg.size == 0)
        return argumentError(kernel, i, " asks for 0 bytes of local memory");
      continue;
    case LaunchArgKind::View:
      assert(arg.view && "a view argument without its ViewArg");
      if (arg.view->ndim < 1 || arg.view->ndim > 3)
        return argumentError(kernel, i,
                             " is a view of " + std::to_string(arg.view->ndim) +
                                 " dimensions; views have 1 to 3");
      ++pointerCount;
      scalarCount += 2u * arg.view->ndim;
      continue;
    }
  }

  // Every list at its final size before anything is written: the addresses args_ takes into
  // pointers_ and viewScalars_ stay valid, and the loop below writes through plain pointers
  // (this runs on every launch, planned ones too). Every user argument is one launch argument,
  // plus 2 * rank scalars per view.
  size_t expanded = count + scalarCount;
  out.args_.resize(expanded);
  out.userIndex_.resize(expanded);
  out.pointers_.resize(pointerCount);
  out.pointerArgs_.resize(pointerCount);
  out.viewScalars_.resize(scalarCount);
  dpk_kernel_arg_t *launchArgs = out.args_.data();
  unsigned *userIndex = out.userIndex_.data();
  void **pointers = out.pointers_.data();
  size_t *pointerArgs = out.pointerArgs_.data();
  int64_t *viewScalars = out.viewScalars_.data();
  size_t next = 0; // the next launch argument
  for (uint32_t i = 0; i < count; ++i) {
    const LaunchArg &arg = args[i];
    auto addPointer = [&](void *address) {
      *pointers = address;
      *pointerArgs++ = next;
      launchArgs[next] = {DPK_ARG_POINTER, sizeof(void *), pointers++};
      userIndex[next++] = i;
    };
    switch (arg.kind) {
    case LaunchArgKind::Pointer:
      addPointer(const_cast<void *>(arg.value));
      continue;
    case LaunchArgKind::Scalar:
      launchArgs[next] = {DPK_ARG_SCALAR, arg.size, arg.value};
      userIndex[next++] = i;
      continue;
    case LaunchArgKind::Local:
      launchArgs[next] = {DPK_ARG_LOCAL, arg.size, nullptr};
      userIndex[next++] = i;
      out.localBytes_ += arg.size;
      continue;
    case LaunchArgKind::View:
      addPointer(arg.view->data);
      for (const int64_t *values : {arg.view->shape, arg.view->strides}) {
        for (uint32_t d = 0; d < arg.view->ndim; ++d) {
          *viewScalars = values[d];
          launchArgs[next] = {DPK_ARG_SCALAR, sizeof(int64_t), viewScalars++};
          userIndex[next++] = i;
        }
      }
      continue;
    }
  }
  return Error::success();
}

/// Bit i set: IR parameter i is a view whose innermost stride is 1 in this launch. Its ABI
/// arguments are pointer, shape..., strides... (Compiler.h), so the stride is the last of them.
static uint32_t unitInnerStrideViews(const Kernel &kernel, const MarshalledArgs &args) {
  if (!kernel.hasViewParameters())
    return 0;
  const std::vector<compiler::AbiArg> &abi = kernel.abi();
  const MarshalledArgs::ArgList &launchArgs = args.args();
  const std::vector<ir::Value *> &params = kernel.function()->params;
  uint32_t mask = 0;
  for (size_t i = 0; i < abi.size() && i < launchArgs.size(); ++i) {
    unsigned param = abi[i].paramIndex;
    bool lastOfParam = i + 1 == abi.size() || abi[i + 1].paramIndex != param;
    if (!lastOfParam || param >= 32 || param >= params.size() || !params[param]->type.isView())
      continue;
    const dpk_kernel_arg_t &stride = launchArgs[i];
    if (params[param]->type.rank == 0 || stride.kind != DPK_ARG_SCALAR ||
        stride.size != sizeof(int64_t) || stride.value == nullptr)
      continue;
    int64_t value = 0;
    std::memcpy(&value, stride.value, sizeof value);
    if (value == 1)
      mask |= 1u << param;
  }
  return mask;
}

static Expected<dpk_pl_kernel_t> buildFor(Device &device, Kernel &kernel,
                                          const dpk_launch_config_t &config,
                                          compiler::RangeGuardKind rangeGuard,
                                          const std::array<unsigned, 3> &lanes,
                                          const MarshalledArgs &args) {
  Program &program = kernel.program();
  Specialization spec;
  spec.dims = config.dims;
  spec.rangeGuard = rangeGuard;
  spec.lanes = lanes;
  // IR programs are compiled with the constant 1 for unit innermost view strides; a launch with
  // other strides gets (and caches) its own build.
  if (program.kind() == ProgramKind::Ir)
    spec.unitInnerStrideViews = unitInnerStrideViews(kernel, args);
  // OpenCL C and PTX devices compute ids in 32 bits when the launch allows it (only they read
  // the flag: other devices get no second build for it).
  bool readsIdsFit32 = device.accepts(DPK_FORMAT_PTX) ||
                       (device.accepts(DPK_FORMAT_OPENCL_C) && !device.accepts(DPK_FORMAT_SPIRV));
  if (program.kind() == ProgramKind::Ir && readsIdsFit32) {
    spec.idsFit32 = true;
    for (uint32_t d = 0; d < config.dims; ++d)
      spec.idsFit32 = spec.idsFit32 && config.global_size[d] <= UINT32_MAX;
  }
  // Host and PTX NdRange launches get code specialized on their work-group shape (the host
  // runs the group's loops with constant trip counts; PTX declares `.maxntid`, so ptxas fits
  // registers to the group, and honours a kernel's min_groups_per_cu). Range launches and the
  // other device targets use the generic build.
  if (program.kind() == ProgramKind::Ir && !isRangeLaunch(config) &&
      (device.accepts(DPK_FORMAT_HOST_NATIVE) || device.accepts(DPK_FORMAT_PTX))) {
    for (uint32_t d = 0; d < config.dims; ++d)
      spec.localSize[d] = config.local_size[d];
  }
  return kernel.nativeFor(device, spec);
}

static Expected<PreparedKernels> prepareOnDevice(Device &device, Kernel &kernel,
                                                 const DeviceRange &range,
                                                 const MarshalledArgs &args) {
  PreparedKernels prepared;
  if (range.pieceCount == 0) {
    Expected<dpk_pl_kernel_t> whole =
        buildFor(device, kernel, range.config, compiler::RangeGuardKind::None, range.lanes, args);
    if (!whole)
      return whole.takeError();
    prepared.whole = *whole;
    return prepared;
  }
  for (uint32_t i = 0; i < range.pieceCount; ++i) {
    bool guarded = range.pieces[i].guarded;
    dpk_pl_kernel_t &slot = guarded ? prepared.guarded : prepared.offsets;
    if (slot)
      continue;
    Expected<dpk_pl_kernel_t> built =
        buildFor(device, kernel, range.config,
                 guarded ? compiler::RangeGuardKind::Guarded : compiler::RangeGuardKind::Offsets,
                 range.lanes, args);
    if (!built)
      return built.takeError();
    slot = *built;
  }
  return prepared;
}

/// One plugin launch of `config` (dims entries; the rest is filled in here) with `args`.
/// `planned`: the launch has a plan, so the plugin boundary's checks passed for its shape
/// already (ValidatedDispatch::enqueueLaunchPlanned).
static Expected<dpk_pl_event_t> enqueueOne(Device &device, dpk_pl_queue_t nativeQueue,
                                           dpk_pl_kernel_t native, const std::string &kernel,
                                           const dpk_launch_config_t &config, size_t numArgs,
                                           const dpk_kernel_arg_t *args,
                                           const std::vector<dpk_pl_event_t> &deps,
                                           bool wantEvent, bool planned) {
  dpk_launch_config_t pluginConfig = config;
  bool backendPicks = isRangeLaunch(config);
  if (backendPicks) {
    for (uint64_t &local : pluginConfig.local_size)
      local = 0;
  }
  for (uint32_t d = config.dims; d < 3; ++d) {
    pluginConfig.global_size[d] = 1;
    pluginConfig.local_size[d] = backendPicks ? 0 : 1;
  }
  dpk_pl_event_t event = nullptr;
  const ValidatedDispatch &table = device.plugin().table;
  dpk_status_t status =
      planned ? table.enqueueLaunchPlanned(wantEvent ? &event : nullptr, nativeQueue, native,
                                           &pluginConfig, static_cast<uint32_t>(numArgs), args,
                                           static_cast<uint32_t>(deps.size()), deps.data())
              : table.enqueue_launch(wantEvent ? &event : nullptr, nativeQueue, native,
                                     &pluginConfig, static_cast<uint32_t>(numArgs), args,
                                     static_cast<uint32_t>(deps.size()), deps.data());
  if (status != DPK_SUCCESS)
    return device.plugin().check(status,
                                 "launching kernel '" + kernel + "' on " + device.describe());
  return event;
}

/// Submits the launch: one plugin launch, or the range's pieces in order (on an in-order queue:
/// the first waits for `deps`, the last gives the event, which completes after all of them).
/// A plugin that refused a later piece after accepting the first would leave the first running
/// while the caller's fallback reran the whole kernel on the host; enqueue failures come from
/// the arguments and the range, which the first piece shares, so that is not expected.
static Expected<dpk_pl_event_t> enqueueOnDevice(Device &device, dpk_pl_queue_t nativeQueue,
                                                const PreparedKernels &prepared,
                                                const std::string &kernel,
                                                const DeviceRange &range,
                                                const MarshalledArgs &args,
                                                const std::vector<dpk_pl_event_t> &deps,
                                                bool wantEvent = true, bool planned = false) {
  const MarshalledArgs::ArgList &given = args.args();
  if (range.pieceCount == 0)
    return enqueueOne(device, nativeQueue, prepared.whole, kernel, range.config, given.size(),
                      given.data(), deps, wantEvent, planned);
  // The builds of a piece take the real sizes and the piece's offsets last.
  const uint32_t dims = range.config.dims;
  std::vector<dpk_kernel_arg_t> withRange;
  withRange.reserve(given.size() + 2 * dims);
  withRange.assign(given.begin(), given.end());
  for (uint32_t d = 0; d < dims; ++d)
    withRange.push_back({DPK_ARG_SCALAR, sizeof(int64_t), &range.realGlobal[d]});
  size_t offsetArgs = withRange.size();
  for (uint32_t d = 0; d < dims; ++d)
    withRange.push_back({DPK_ARG_SCALAR, sizeof(int64_t), nullptr});
  static const std::vector<dpk_pl_event_t> noDeps;
  dpk_pl_event_t event = nullptr;
  for (uint32_t i = 0; i < range.pieceCount; ++i) {
    const RangePiece &piece = range.pieces[i];
    for (uint32_t d = 0; d < dims; ++d)
      withRange[offsetArgs + d].value = &piece.offset[d];
    bool last = i + 1 == range.pieceCount;
    Expected<dpk_pl_event_t> submitted =
        enqueueOne(device, nativeQueue, piece.guarded ? prepared.guarded : prepared.offsets,
                   kernel, piece.config, withRange.size(), withRange.data(),
                   i == 0 ? deps : noDeps, last && wantEvent, planned);
    if (!submitted)
      return submitted.takeError();
    event = *submitted;
  }
  return event;
}

Expected<dpk_pl_event_t> submitOnDevice(Device &device, dpk_pl_queue_t nativeQueue,
                                        Kernel &kernel, const dpk_launch_config_t &config,
                                        const MarshalledArgs &args,
                                        const std::vector<dpk_pl_event_t> &deps) {
  DeviceRange range = deviceRangeFor(device, kernel, config, /*inOrder=*/false);
  Expected<PreparedKernels> prepared = prepareOnDevice(device, kernel, range, args);
  if (!prepared)
    return prepared.takeError();
  return enqueueOnDevice(device, nativeQueue, *prepared, kernel.name(), range, args, deps);
}

/// A launch on a device that a `kernels:` rule of the policy excludes for this kernel: it runs
/// on the host when the rule's choice is the host (with the same migration as a fallback),
/// otherwise it is a placement error naming the rule and the device the policy chooses.
static Expected<Ref<Event>> routeByPolicy(Queue &queue, Kernel &kernel,
                                          const dpk_launch_config_t &config,
                                          MarshalledArgs &args, const std::vector<Event *> &deps,
                                          const std::string &rule) {
  const std::string &name = kernel.name();
  Device &device = queue.device();
  std::string cause = "kernel '" + name + "' may not run on " + device.describe() + " under " +
                      rule;
  Expected<Device *> chosen = Registry::get().selectForKernel(name);
  if (!chosen)
    return Error(chosen.error().status(), cause + ": " + chosen.error().message());
  if (!(*chosen)->isHost())
    return Error(DPK_ERROR_PLACEMENT, cause + "; the policy chooses " + (*chosen)->describe() +
                                          " for it: launch it on a queue of that device");
  if (diagnosticsEnabled(1))
    emitDiagnostic(1, "policy.route", {{"kernel", name},
                                       {"from", device.filterString()},
                                       {"to", (*chosen)->filterString()},
                                       {"rule", rule}});
  return runOnHost(queue, kernel, config, args, deps, DPK_ERROR_PLACEMENT, cause);
}

/// What follows a submission the device accepted: the event is tracked (or the eventless launch
/// counted) and, at diagnostics level 1 and up, the launch reported. `config` is the caller's.
static Expected<Ref<Event>> recordLaunch(Queue &queue, Kernel &kernel,
                                         const dpk_launch_config_t &config,
                                         const MarshalledArgs &launchArgs,
                                         dpk_pl_event_t submitted, bool pluginEvent,
                                         std::chrono::steady_clock::time_point start) {
  Device &device = queue.device();
  const std::string &name = kernel.name();
  Ref<Event> event;
  if (pluginEvent) {
    event = Event::fromPlugin(device, submitted, "launch", name);
    queue.track(event);
  } else {
    queue.noteEventlessLaunch(kernel);
  }
  if (!diagnosticsEnabled(1))
    return event;
  diag::Fields fields = {{"kernel", name},
                         {"device", device.filterString()},
                         {"name", std::string_view(device.name())}};
  if (diagnosticsEnabled(3)) {
    // Level 3 times each launch: wait here (the outcome is reported again at the caller's wait).
    Error outcome = event->wait();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    fields.push_back({"range", isRangeLaunch(config) ? "range" : "nd_range"});
    fields.push_back({"global", sizesText(config.global_size, config.dims)});
    fields.push_back({"local", isRangeLaunch(config)
                                   ? std::string("auto")
                                   : sizesText(config.local_size, config.dims)});
    fields.push_back({"args", static_cast<unsigned long long>(launchArgs.args().size())});
    fields.push_back({"time_ms", ms});
    fields.push_back({"ok", !outcome});
  }
  emitDiagnostic(1, "kernel.launch", fields);
  return event;
}

/// A launch with a plan (LaunchPlan.h): everything its key decides passed when the plan was
/// made, so what is left is what each call brings: the placement of its pointers, its
/// dependencies and the submission, in the order the full path has them.
static Expected<Ref<Event>> launchPlanned(Queue &queue, Kernel &kernel,
                                          const dpk_launch_config_t &config,
                                          const LaunchPlan &plan, MarshalledArgs &launchArgs,
                                          const std::vector<Event *> &deps, bool wantEvent) {
  Device &device = queue.device();
  const std::string &name = kernel.name();
  if (Error error = checkPlacement(launchArgs, device, name))
    return error;
  Expected<std::vector<dpk_pl_event_t>> natives = queue.resolveDependencies(deps);
  if (!natives)
    return natives.takeError();
  bool pluginEvent = queue.needsPluginEvent(wantEvent);
  std::chrono::steady_clock::time_point start;
  if (diagnosticsEnabled(3))
    start = std::chrono::steady_clock::now();
  Expected<dpk_pl_event_t> submitted =
      enqueueOnDevice(device, queue.native(), plan.kernels, name, plan.range, launchArgs,
                      *natives, pluginEvent, /*planned=*/true);
  if (!submitted)
    return fallBackOrFail(queue, kernel, plan.launch, launchArgs, deps, submitted.takeError());
  return recordLaunch(queue, kernel, config, launchArgs, *submitted, pluginEvent, start);
}

Expected<Ref<Event>> launchKernel(Queue &queue, Kernel &kernel, const dpk_launch_config_t &config,
                                  const LaunchArg *args, uint32_t numArgs,
                                  const std::vector<Event *> &deps, bool wantEvent) {
  if (kernel.program().boundsCheck())
    return launchBoundsChecked(queue, kernel, config, args, numArgs, deps, wantEvent);
  return launchUnchecked(queue, kernel, config, args, numArgs, deps, wantEvent);
}

Expected<Ref<Event>> launchUnchecked(Queue &queue, Kernel &kernel,
                                     const dpk_launch_config_t &config, const LaunchArg *args,
                                     uint32_t numArgs, const std::vector<Event *> &deps,
                                     bool wantEvent) {
  Device &device = queue.device();
  const std::string &name = kernel.name();
  // Arguments whose values pass expansion may match a plan. Any other launch, and a launch of a
  // new shape, takes the full path below, which reports errors in the order Launch.h gives.
  MarshalledArgs launchArgs;
  Error expansion = expandArguments(kernel, args, numArgs, launchArgs);
  uint32_t unitStrideViews = 0;
  if (!expansion) {
    unitStrideViews = unitInnerStrideViews(kernel, launchArgs);
    LaunchPlanCache::Found plan =
        kernel.launchPlans().find(device, queue.inOrder(), config, launchArgs, unitStrideViews);
    if (plan)
      return launchPlanned(queue, kernel, config, *plan, launchArgs, deps, wantEvent);
  }

  if (Error error = validateRange(config, name))
    return error;
  if (Error error = checkDimensionsUsed(kernel, config))
    return error;
  if (expansion)
    return expansion;
  if (kernel.hasSignature()) {
    if (Error error = checkSignature(kernel, launchArgs, numArgs))
      return error;
  }
  if (Error error = checkPlacement(launchArgs, device, name))
    return error;
  // Range kernels run with the dimension whose accesses are contiguous on the fastest lanes
  // (ir/LaneMapping.h): from here on the launch is over the permuted range, which every path
  // below (policy routing, fallback, the device) builds the permuted kernel for.
  dpk_launch_config_t permuted;
  const dpk_launch_config_t &launch = permuteForLanes(kernel, device, config, permuted);

  DeviceRange range = deviceRangeFor(device, kernel, launch, queue.inOrder());
  if (Error error = validateForDevice(range, launch, launchArgs, device, name))
    return error;
  if (Error error = kernel.program().checkRunsOn(device))
    return error;
  // An empty range has no work-items (SYCL and kapi accept it): nothing is compiled or
  // submitted, and no plugin sees the range. Its event completes after what a launch's would
  // wait for: the dependencies and, on an in-order queue, everything submitted before.
  if (isEmptyRange(config)) {
    if (!wantEvent)
      return Ref<Event>();
    if (Error error = queue.drainBefore(deps))
      return error;
    return Event::finished(&device, "launch", name, Error::success());
  }

  // A `kernels:` rule of the policy that excludes the queue's device routes the kernel.
  std::string excludingRule;
  if (!Registry::get().kernelMayRunOn(name, device, &excludingRule))
    return routeByPolicy(queue, kernel, launch, launchArgs, deps, excludingRule);

  // Dependencies first: a failed dependency is the caller's error, never a reason to fall back.
  Expected<std::vector<dpk_pl_event_t>> natives = queue.resolveDependencies(deps);
  if (!natives)
    return natives.takeError();

  // Compile errors surface here, synchronously; launch errors at the enqueue below.
  Expected<PreparedKernels> native = prepareOnDevice(device, kernel, range, launchArgs);
  if (!native)
    return fallBackOrFail(queue, kernel, launch, launchArgs, deps, native.takeError());
  bool pluginEvent = queue.needsPluginEvent(wantEvent);
  // Only level 3 times launches; reading the clock is not free on the per-launch path.
  std::chrono::steady_clock::time_point start;
  if (diagnosticsEnabled(3))
    start = std::chrono::steady_clock::now();
  Expected<dpk_pl_event_t> submitted = enqueueOnDevice(device, queue.native(), *native, name,
                                                       range, launchArgs, *natives, pluginEvent);
  if (!submitted)
    return fallBackOrFail(queue, kernel, launch, launchArgs, deps, submitted.takeError());
  // The device took it: the next launch of this shape need not check or prepare again.
  kernel.launchPlans().remember(device, queue.inOrder(), config, launchArgs, unitStrideViews,
                                LaunchPlan{launch, range, *native});
  return recordLaunch(queue, kernel, config, launchArgs, *submitted, pluginEvent, start);
}

} // namespace dpk::runtime

// dpk-ls - lists dpk's plugins (loaded or skipped, with path and reason) and devices.
//
//   dpk-ls                      table of plugins and devices
//   dpk-ls --json               the same as one JSON document
//   dpk-ls --explain [FILTER]   every device under the current policy and environment: whether
//                               it is eligible and why, and which device a kernel would run on
//                               (with FILTER: the device dpk_device_select(FILTER) returns)
//   dpk-ls --explain --kernel NAME   as above for a kernel name (per-kernel policy overrides)
//
// Built as libdpk-ls.so and run by the dpk-ls executable (tools/local_launcher.c).
#include "dpk/dpk.h"
#include "runtime/Registry.h"
#include "runtime/RuntimePolicy.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace dpk;
using namespace dpk::runtime;

namespace {

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
        out += buffer;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

std::string formatsText(uint32_t formats) {
  std::string text;
  auto add = [&](uint32_t bit, const char *name) {
    if (formats & bit)
      text += (text.empty() ? "" : ",") + std::string(name);
  };
  add(DPK_FORMAT_HOST_NATIVE, "host");
  add(DPK_FORMAT_SPIRV, "spirv");
  add(DPK_FORMAT_OPENCL_C, "opencl-c");
  add(DPK_FORMAT_PTX, "ptx");
  return text.empty() ? "-" : text;
}

std::string aspectsText(uint32_t aspects) {
  std::string text;
  auto add = [&](uint32_t bit, const char *name) {
    if (aspects & bit)
      text += (text.empty() ? "" : ",") + std::string(name);
  };
  add(DPK_ASPECT_FP64, "fp64");
  add(DPK_ASPECT_FP16, "fp16");
  add(DPK_ASPECT_ATOMIC64, "atomic64");
  add(DPK_ASPECT_USM_DEVICE, "usm_device");
  add(DPK_ASPECT_USM_SHARED, "usm_shared");
  add(DPK_ASPECT_USM_HOST, "usm_host");
  add(DPK_ASPECT_PEER_COPY, "peer_copy");
  return text.empty() ? "-" : text;
}

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

bool isEligible(const Registry &registry, const Device *device) {
  for (const Device *eligible : registry.devices()) {
    if (eligible == device)
      return true;
  }
  return false;
}

/// Why a loaded plugin offers no device, or null when it offers some.
const EmptyPlugin *emptyPluginOf(const Registry &registry, const PluginRecord &record) {
  if (record.outcome != PluginOutcome::Loaded)
    return nullptr;
  for (const EmptyPlugin &empty : registry.emptyPlugins()) {
    if (empty.path == record.path)
      return &empty;
  }
  return nullptr;
}

/// A device as people tell devices apart: its name and who provides it. Names alone repeat (the
/// host backend and Intel's OpenCL CPU runtime both report the CPU's name); for OpenCL the
/// platform (the first part of the target id, "platform/device/driver") says which runtime.
std::string deviceTitle(const Device &device) {
  const dpk_device_props_t &props = device.props();
  std::string provider = props.vendor;
  if (device.backend() == "opencl") {
    std::string target = props.target_id;
    std::string platform = target.substr(0, target.find('/'));
    if (!platform.empty() && platform != provider)
      provider = platform + ", " + provider;
  }
  return std::string(props.name) + (provider.empty() ? "" : " [" + provider + "]");
}

void printTable(const Registry &registry) {
  std::printf("Plugins:\n");
  if (registry.plugins().empty())
    std::printf("  (no plugin files found; set DPK_PLUGIN_PATH or see docs/architecture.md)\n");
  // One entry per plugin file: a plugin that loaded but found no device says so in place of
  // "loaded", with the reason.
  for (const PluginRecord &record : registry.plugins()) {
    const EmptyPlugin *empty = emptyPluginOf(registry, record);
    std::printf("  %-12s %-19s %s\n", record.backend.empty() ? "?" : record.backend.c_str(),
                empty ? "loaded, no devices" : pluginOutcomeName(record.outcome),
                record.path.c_str());
    const std::string &reason = empty ? empty->reason : record.reason;
    if (!reason.empty())
      std::printf("  %-12s %-19s reason: %s\n", "", "", reason.c_str());
  }

  std::printf("\nDevices (policy order; * = default):\n");
  if (registry.allDevices().empty())
    std::printf("  (none)\n");
  bool first = true;
  for (const DeviceVerdictInfo &verdict : registry.verdicts()) {
    const Device &device = *verdict.device;
    const dpk_device_props_t &props = device.props();
    const char *mark = verdict.eligible ? (first ? "*" : " ") : "-";
    if (verdict.eligible)
      first = false;
    std::printf("%s %-16s %s\n", mark, device.filterString().c_str(), deviceTitle(device).c_str());
    std::printf("    vendor %s, driver %s, target %s\n", props.vendor, props.driver_version,
                props.target_id);
    std::printf("    %u compute units, global memory %s, local memory %llu KiB, max work-group "
                "%llu (%llu x %llu x %llu)\n",
                props.compute_units, mib(props.global_mem_size).c_str(),
                static_cast<unsigned long long>(props.local_mem_size >> 10),
                static_cast<unsigned long long>(props.max_work_group_size),
                static_cast<unsigned long long>(props.max_work_item_sizes[0]),
                static_cast<unsigned long long>(props.max_work_item_sizes[1]),
                static_cast<unsigned long long>(props.max_work_item_sizes[2]));
    std::printf("    formats %s; aspects %s\n", formatsText(props.formats).c_str(),
                aspectsText(props.aspects).c_str());
    if (props.numa_nodes || props.cache_sizes[0])
      std::printf("    NUMA nodes %u, caches L1d %llu KiB, L2 %llu KiB, L3 %llu KiB\n",
                  props.numa_nodes, static_cast<unsigned long long>(props.cache_sizes[0] >> 10),
                  static_cast<unsigned long long>(props.cache_sizes[1] >> 10),
                  static_cast<unsigned long long>(props.cache_sizes[2] >> 10));
    if (!verdict.eligible)
      std::printf("    not used: %s\n", verdict.reason.c_str());
  }
}

void printJson(const Registry &registry) {
  std::printf("{\n  \"plugins\": [");
  bool firstItem = true;
  for (const PluginRecord &record : registry.plugins()) {
    std::printf("%s\n    {\"backend\": %s, \"path\": %s, \"outcome\": %s, \"reason\": %s",
                firstItem ? "" : ",", jsonString(record.backend).c_str(),
                jsonString(record.path).c_str(),
                jsonString(pluginOutcomeName(record.outcome)).c_str(),
                jsonString(record.reason).c_str());
    if (!record.missingLibrary.empty())
      std::printf(", \"missing_library\": %s", jsonString(record.missingLibrary).c_str());
    if (const EmptyPlugin *empty = emptyPluginOf(registry, record))
      std::printf(", \"devices\": 0, \"no_devices_reason\": %s", jsonString(empty->reason).c_str());
    std::printf("}");
    firstItem = false;
  }
  std::printf("\n  ],\n  \"devices\": [");
  firstItem = true;
  for (const DeviceVerdictInfo &verdict : registry.verdicts()) {
    const Device &device = *verdict.device;
    const dpk_device_props_t &props = device.props();
    std::printf(
        "%s\n    {\"filter_string\": %s, \"backend\": %s, \"name\": %s, \"vendor\": %s, "
        "\"driver_version\": %s, \"target_id\": %s, \"type\": %s, \"compute_units\": %u, "
        "\"global_mem_size\": %llu, \"local_mem_size\": %llu, \"max_work_group_size\": %llu, "
        "\"max_work_item_sizes\": [%llu, %llu, %llu], \"formats\": %s, \"aspects\": %s, "
        "\"eligible\": %s, \"reason\": %s}",
        firstItem ? "" : ",", jsonString(device.filterString()).c_str(),
        jsonString(device.backend()).c_str(), jsonString(props.name).c_str(),
        jsonString(props.vendor).c_str(), jsonString(props.driver_version).c_str(),
        jsonString(props.target_id).c_str(), jsonString(deviceTypeText(props.type)).c_str(),
        props.compute_units, static_cast<unsigned long long>(props.global_mem_size),
        static_cast<unsigned long long>(props.local_mem_size),
        static_cast<unsigned long long>(props.max_work_group_size),
        static_cast<unsigned long long>(props.max_work_item_sizes[0]),
        static_cast<unsigned long long>(props.max_work_item_sizes[1]),
        static_cast<unsigned long long>(props.max_work_item_sizes[2]),
        jsonString(formatsText(props.formats)).c_str(),
        jsonString(aspectsText(props.aspects)).c_str(), verdict.eligible ? "true" : "false",
        jsonString(verdict.reason).c_str());
    firstItem = false;
  }
  std::printf("\n  ]\n}\n");
}

/// Every device's verdict under what --explain was asked about. Without a filter or kernel: the
/// policy's own. With a filter: as dpk_device_select(FILTER) sees them, the filter ranking the
/// devices the policy allows (those it does not are listed with the policy's reason). With a
/// kernel: under the kernel's selector (a kernel rule's, or the global one).
Error verdictsFor(const Registry &registry, const char *filter, const char *kernel,
                  std::vector<DeviceVerdictInfo> &out) {
  auto rank = [&](const policy::FilterList &selector, const std::vector<Device *> &devices) {
    std::vector<policy::DeviceIdentity> identities;
    for (const Device *device : devices)
      identities.push_back({device->backend(), device->props().type, device->indexInGroup()});
    policy::DeviceRanking ranking = rankDevicesBy(selector, identities);
    for (const policy::DeviceVerdict &verdict : ranking.eligible)
      out.push_back({devices[verdict.device], true, verdict.reason});
    for (const policy::DeviceVerdict &verdict : ranking.rejected)
      out.push_back({devices[verdict.device], false, verdict.reason});
  };
  if (kernel) {
    std::vector<Device *> all;
    for (const auto &device : registry.allDevices())
      all.push_back(device.get());
    rank(kernelSelector(registry.policy(), kernel).filter, all);
    return Error::success();
  }
  if (!filter || !*filter) {
    out = registry.verdicts();
    return Error::success();
  }
  Expected<policy::FilterList> parsed = parseDeviceFilter(filter);
  if (!parsed)
    return parsed.takeError();
  rank(*parsed, registry.devices());
  for (const DeviceVerdictInfo &verdict : registry.verdicts()) {
    if (!verdict.eligible)
      out.push_back({verdict.device, false, "the policy: " + verdict.reason});
  }
  return Error::success();
}

int explain(const Registry &registry, const char *filter, const char *kernel) {
  const policy::Policy &policy = registry.policy();
  std::printf("Policy: %s\n", policy.source.c_str());
  std::printf("  selector: '%s'%s\n", policy.selector.str().c_str(),
              policy.selectorOrigin.empty() ? ""
                                            : (" (from " + policy.selectorOrigin + ")").c_str());
  std::printf("  fallback: %s%s\n", policy::fallbackModeName(policy.fallback.mode),
              policy.fallback.origin.empty() ? ""
                                             : (" (from " + policy.fallback.origin + ")").c_str());
  for (const std::string &override : policy.environmentOverrides)
    std::printf("  environment: %s\n", override.c_str());
  for (const PluginRecord &record : registry.plugins()) {
    if (record.outcome != PluginOutcome::Loaded)
      std::printf("  plugin %s not loaded (%s): %s\n", record.backend.c_str(),
                  pluginOutcomeName(record.outcome), record.reason.c_str());
  }

  std::vector<DeviceVerdictInfo> verdicts;
  if (Error error = verdictsFor(registry, filter, kernel, verdicts)) {
    std::fprintf(stderr, "dpk-ls: %s\n", error.message().c_str());
    return 1;
  }
  std::printf("\nDevices%s:\n", kernel ? " (for this kernel's selector)"
                                        : filter && *filter ? " (for this filter)" : "");
  for (const DeviceVerdictInfo &verdict : verdicts)
    std::printf("  %-16s %-12s %-48s %s\n", verdict.device->filterString().c_str(),
                verdict.eligible ? "eligible" : "not eligible",
                deviceTitle(*verdict.device).c_str(), verdict.reason.c_str());

  std::printf("\n");
  Expected<Device *> chosen = Error(DPK_ERROR_GENERIC, "");
  if (kernel) {
    chosen = registry.selectForKernel(kernel);
    std::printf("A kernel named '%s' ", kernel);
  } else {
    chosen = registry.select(filter ? filter : "");
    if (filter && *filter)
      std::printf("With filter '%s', a kernel ", filter);
    else
      std::printf("A kernel ");
  }
  if (!chosen) {
    std::printf("would find no device:\n  %s\n", chosen.error().message().c_str());
    Device *host = registry.hostDevice();
    if (filter && *filter && !kernel)
      std::printf("  dpk_device_select('%s') returns %s: naming a device asks which exists, "
                  "and fallback does not apply to that.\n",
                  filter, dpk_status_name(chosen.error().status()));
    else if (host && policy.fallback.mode != policy::FallbackMode::Deny)
      std::printf("  The policy's fallback (%s) would run it on %s.\n",
                  policy::fallbackModeName(policy.fallback.mode), host->describe().c_str());
    return chosen.error().status() == DPK_ERROR_NO_DEVICE ? 0 : 1;
  }
  Device *device = *chosen;
  std::printf("would run on %s", device->describe().c_str());
  std::printf(isEligible(registry, device) ? " (the best eligible device).\n" : ".\n");
  return 0;
}

void usage() {
  std::printf("usage: dpk-ls [--json] | --explain [FILTER] [--kernel NAME]\n");
}

} // namespace

// The tool's entry point, run by the dpk-ls executable (local_launcher.c), which loads this
// library RTLD_LOCAL (the comment there says why).
extern "C" __attribute__((visibility("default"))) int dpk_ls_main(int argc, char **argv) {
  bool json = false;
  bool explainMode = false;
  const char *filter = nullptr;
  const char *kernel = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json")) {
      json = true;
    } else if (!std::strcmp(argv[i], "--explain")) {
      explainMode = true;
      if (i + 1 < argc && argv[i + 1][0] != '-')
        filter = argv[++i];
    } else if (!std::strcmp(argv[i], "--kernel") && i + 1 < argc) {
      kernel = argv[++i];
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage();
      return 0;
    } else {
      usage();
      return 2;
    }
  }
  if (dpk_init() != DPK_SUCCESS) {
    std::fprintf(stderr, "dpk-ls: %s\n", dpk_last_error());
    return 1;
  }
  const Registry &registry = Registry::get();
  if (explainMode)
    return explain(registry, filter, kernel);
  if (json)
    printJson(registry);
  else
    printTable(registry);
  return 0;
}

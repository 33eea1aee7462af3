// Registry.cpp - runtime start-up: policy, plugins, devices and their order.
#include "runtime/Registry.h"

#include "runtime/RuntimePolicy.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

namespace dpk::runtime {
namespace {

Registry *TheRegistry = nullptr;
Error *InitError = nullptr;
// Set once start-up has run (successfully or not). Every C API call asks ensure(), so after
// start-up it costs this one load: std::call_once alone costs a thread-local access and a
// pthread_once call each time (about 90 instructions, twice per launch + wait).
std::atomic<bool> Started{false};

void logFromPlugin(int level, const char *what, const char *message) {
  if (!diagnosticsEnabled(level))
    return;
  emitDiagnostic(level, what ? what : "plugin",
                 {{"message", std::string_view(message ? message : "")}});
}

const dpk_plugin_host_services_t HostServices = {sizeof(dpk_plugin_host_services_t),
                                                 &logFromPlugin};

std::vector<policy::DeviceIdentity> identitiesOf(const std::vector<Device *> &devices) {
  std::vector<policy::DeviceIdentity> identities;
  for (const Device *device : devices)
    identities.push_back({device->backend(), device->props().type, device->indexInGroup()});
  return identities;
}

} // namespace

Error Registry::ensure() {
  if (!Started.load(std::memory_order_acquire))
    start();
  if (InitError)
    return Error(InitError->status(), InitError->message());
  return Error::success();
}

void Registry::start() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Never deleted: see the file comment of Registry.h.
    auto *registry = new Registry();
    Error error = registry->initialize();
    if (error) {
      InitError = new Error(std::move(error));
      return;
    }
    TheRegistry = registry;
  });
  // After call_once returns, TheRegistry or InitError is written: later calls may skip it.
  Started.store(true, std::memory_order_release);
}

Registry &Registry::get() {
  assert(TheRegistry && "Registry::get() before a successful Registry::ensure()");
  return *TheRegistry;
}

bool Registry::isDevice(const void *device) const {
  for (const auto &candidate : allDevices_) {
    if (candidate.get() == device)
      return true;
  }
  return false;
}

Error Registry::initialize() {
  // Backend names of the plugin files in reach become known to the filter parser first, so a
  // selector may name a plugin that is not built in ("!fault:*").
  for (const std::string &file : candidatePluginFiles(loaderOptionsFromEnvironment({}))) {
    std::string backend = backendFromFileName(file);
    if (!backend.empty())
      registerPluginBackend(backend);
  }
  Expected<policy::Policy> loaded = loadRuntimePolicy();
  if (!loaded)
    return loaded.takeError();
  policy_ = std::move(*loaded);
  if (diagnosticsEnabled(2)) {
    emitDiagnostic(2, "policy.load",
                   {{"source", policy_.source},
                    {"selector", policy_.selector.str()},
                    {"fallback", policy::fallbackModeName(policy_.fallback.mode)}});
  }

  LoaderOptions options = loaderOptionsFromEnvironment(policy_.plugins.searchPaths);
  options.services = &HostServices;
  const policy::Policy &currentPolicy = policy_;
  options.rejectBackend = [&currentPolicy](const std::string &backend) {
    return policyRejectsBackend(currentPolicy, backend);
  };
  plugins_ = loadPlugins(options);

  for (const PluginRecord &record : plugins_) {
    if (record.outcome == PluginOutcome::Loaded) {
      enumerateDevices(record.plugin, record.path);
      continue;
    }
    if (diagnosticsEnabled(2)) {
      emitDiagnostic(2, "plugin.skip",
                     {{"backend", record.backend},
                      {"path", record.path},
                      {"outcome", pluginOutcomeName(record.outcome)},
                      {"reason", record.reason}});
    }
  }
  orderDevices();
  return Error::success();
}

void Registry::enumerateDevices(const std::shared_ptr<Plugin> &plugin, const std::string &path) {
  const ValidatedDispatch &table = plugin->table;
  uint32_t count = 0;
  Error error = plugin->check(table.get_devices(&count, nullptr), "listing devices");
  std::vector<dpk_pl_device_t> natives(count);
  if (!error && count > 0)
    error = plugin->check(table.get_devices(&count, natives.data()), "listing devices");
  if (error || count == 0) {
    std::string reason = error ? error.message() : std::string("no devices");
    if (!error && table.raw().no_device_reason) {
      const char *why = table.no_device_reason();
      if (why && *why)
        reason = why;
    }
    emptyPlugins_.push_back({plugin->backend, path, reason});
    if (diagnosticsEnabled(2))
      emitDiagnostic(2, "plugin.load",
                     {{"backend", plugin->backend}, {"path", path}, {"devices", 0u},
                      {"reason", reason}});
    return;
  }
  natives.resize(count);

  unsigned added = 0;
  for (dpk_pl_device_t native : natives) {
    dpk_device_props_t props{};
    props.struct_size = sizeof(props);
    if (plugin->check(table.device_get_props(&props, native), "reading device properties"))
      continue;
    uint32_t indexInGroup = 0;
    for (const auto &existing : allDevices_) {
      if (existing->backend() == plugin->backend && existing->props().type == props.type)
        ++indexInGroup;
    }
    allDevices_.push_back(std::make_unique<Device>(plugin, native, props, indexInGroup));
    ++added;
  }
  if (diagnosticsEnabled(2))
    emitDiagnostic(2, "plugin.load",
                   {{"backend", plugin->backend}, {"path", path}, {"devices", added}});
}

void Registry::orderDevices() {
  std::vector<Device *> all;
  for (const auto &device : allDevices_)
    all.push_back(device.get());
  policy::DeviceRanking ranking = rankDevicesBy(policy_.selector, identitiesOf(all));
  for (const policy::DeviceVerdict &verdict : ranking.eligible) {
    devices_.push_back(all[verdict.device]);
    verdicts_.push_back({all[verdict.device], true, verdict.reason});
  }
  for (const policy::DeviceVerdict &verdict : ranking.rejected)
    verdicts_.push_back({all[verdict.device], false, verdict.reason});
  for (Device *device : all) {
    if (device->isHost() && !hostDevice_)
      hostDevice_ = device;
  }
  if (!diagnosticsEnabled(2))
    return;
  for (const DeviceVerdictInfo &verdict : verdicts_) {
    emitDiagnostic(2, "policy.decision",
                   {{"device", verdict.device->filterString()},
                    {"name", std::string_view(verdict.device->name())},
                    {"eligible", verdict.eligible},
                    {"reason", verdict.reason},
                    {"rule", policy_.selectorOrigin}});
  }
}

std::string Registry::consideredDevices() const {
  if (allDevices_.empty())
    return "no device was found (run dpk-ls to see which plugins were loaded)";
  std::string text = "devices considered:";
  for (const DeviceVerdictInfo &verdict : verdicts_)
    text += " " + verdict.device->filterString() + " ('" + verdict.device->name() + "', " +
            (verdict.eligible ? "allowed by the policy" : verdict.reason) + ");";
  text.pop_back();
  return text;
}

Expected<Device *> Registry::select(std::string_view filter) const {
  Expected<policy::FilterList> parsed = parseDeviceFilter(filter);
  if (!parsed)
    return parsed.takeError();
  policy::DeviceRanking ranking = rankDevicesBy(*parsed, identitiesOf(devices_));
  if (ranking.eligible.empty() && !filter.empty()) {
    // A filter that names a backend whose plugin failed to load says so, with the reason.
    for (const policy::DeviceTerm &term : parsed->terms) {
      if (term.exclude || !term.backend)
        continue;
      for (const PluginRecord &record : plugins_) {
        if (record.backend != *term.backend || record.outcome == PluginOutcome::Loaded ||
            record.outcome == PluginOutcome::Skipped)
          continue;
        return Error(DPK_ERROR_PLUGIN_LOAD, "no device matches '" + std::string(filter) +
                                                "': the " + record.backend + " plugin (" +
                                                record.path + ") was not loaded: " +
                                                pluginOutcomeName(record.outcome) + ": " +
                                                record.reason);
      }
    }
  }
  if (ranking.eligible.empty())
    return Error(DPK_ERROR_NO_DEVICE,
                 (filter.empty() ? std::string("the policy's selector '") + policy_.selector.str() +
                                       "' matches no device"
                                 : "no device matches '" + std::string(filter) + "'") +
                     " (policy: " + policy_.source + "); " + consideredDevices());
  Device *device = devices_[ranking.eligible.front().device];
  if (diagnosticsEnabled(2))
    emitDiagnostic(2, "device.select",
                   {{"filter", std::string(filter)},
                    {"device", device->filterString()},
                    {"name", std::string_view(device->name())},
                    {"reason", ranking.eligible.front().reason}});
  return device;
}

bool Registry::kernelMayRunOn(std::string_view kernel, const Device &device,
                              std::string *rule) const {
  // Only a kernel rule constrains a launch: the global selector chose the queue's device (or
  // the caller did so on purpose), and rankings are not free on the launch path.
  if (policy_.kernels.empty())
    return true;
  policy::SelectorChoice choice = kernelSelector(policy_, kernel);
  if (choice.rule.rfind("kernels[", 0) != 0)
    return true;
  std::vector<Device *> one = {const_cast<Device *>(&device)};
  if (!rankDevicesBy(choice.filter, identitiesOf(one)).eligible.empty())
    return true;
  if (rule)
    *rule = choice.rule + " (devices '" + choice.filter.str() + "')";
  return false;
}

Expected<Device *> Registry::selectForKernel(std::string_view kernel) const {
  policy::SelectorChoice choice = kernelSelector(policy_, kernel);
  std::vector<Device *> all;
  for (const auto &device : allDevices_)
    all.push_back(device.get());
  policy::DeviceRanking ranking = rankDevicesBy(choice.filter, identitiesOf(all));
  if (ranking.eligible.empty())
    return Error(DPK_ERROR_NO_DEVICE, "no device matches the selector '" + choice.filter.str() +
                                          "' of kernel '" + std::string(kernel) + "' (" +
                                          choice.rule + "); " + consideredDevices());
  return all[ranking.eligible.front().device];
}

} // namespace dpk::runtime

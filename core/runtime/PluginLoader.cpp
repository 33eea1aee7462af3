// PluginLoader.cpp - discovery, dlopen and ABI checks of backend plugins.
#include "runtime/PluginLoader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string_view>

namespace dpk::runtime {
namespace {

constexpr std::string_view PluginPrefix = "libdpk_backend_";
constexpr std::string_view PluginSuffix = ".so";

bool fileExists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::vector<std::string> splitPathList(const char *text) {
  std::vector<std::string> parts;
  if (!text)
    return parts;
  std::string_view rest(text);
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string_view part = rest.substr(0, colon);
    if (!part.empty())
      parts.emplace_back(part);
    if (colon == std::string_view::npos)
      break;
    rest.remove_prefix(colon + 1);
  }
  return parts;
}

/// Plugin files of one folder, sorted by name so discovery is deterministic.
std::vector<std::string> pluginFilesIn(const std::string &directory) {
  std::vector<std::string> files;
  DIR *dir = ::opendir(directory.c_str());
  if (!dir)
    return files;
  while (dirent *entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (backendFromFileName(name).empty())
      continue;
    files.push_back(directory + "/" + name);
  }
  ::closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

/// The library dlopen could not find, from a message such as
/// "/p/libdpk_backend_cuda.so: libcuda.so.1: cannot open shared object file: No such file...".
std::string missingLibraryFrom(const std::string &dlerrorText, const std::string &pluginPath) {
  static constexpr std::string_view Marker = ": cannot open shared object file";
  size_t marker = dlerrorText.find(Marker);
  if (marker == std::string::npos)
    return {};
  std::string head = dlerrorText.substr(0, marker);
  size_t start = head.rfind(": ");
  std::string library = start == std::string::npos ? head : head.substr(start + 2);
  // When the plugin itself is what could not be opened, no dependency is missing.
  if (library == pluginPath)
    return {};
  return library;
}

PluginRecord failed(PluginRecord record, PluginOutcome outcome, std::string reason) {
  record.outcome = outcome;
  record.reason = std::move(reason);
  return record;
}

/// Checks that every entry the core calls is present.
const char *firstMissingEntry(const dpk_plugin_dispatch_t &table) {
#define DPK_CHECK_ENTRY(field)                                                                   \
  if (!table.field)                                                                              \
    return #field;
  DPK_CHECK_ENTRY(init)
  DPK_CHECK_ENTRY(last_error)
  DPK_CHECK_ENTRY(get_devices)
  DPK_CHECK_ENTRY(device_get_props)
  DPK_CHECK_ENTRY(context_create)
  DPK_CHECK_ENTRY(context_release)
  DPK_CHECK_ENTRY(queue_create)
  DPK_CHECK_ENTRY(queue_release)
  DPK_CHECK_ENTRY(queue_finish)
  DPK_CHECK_ENTRY(mem_alloc)
  DPK_CHECK_ENTRY(mem_free)
  DPK_CHECK_ENTRY(enqueue_copy)
  DPK_CHECK_ENTRY(enqueue_fill)
  DPK_CHECK_ENTRY(program_create)
  DPK_CHECK_ENTRY(program_release)
  DPK_CHECK_ENTRY(kernel_create)
  DPK_CHECK_ENTRY(kernel_release)
  DPK_CHECK_ENTRY(enqueue_launch)
  DPK_CHECK_ENTRY(event_wait)
  DPK_CHECK_ENTRY(event_status)
  DPK_CHECK_ENTRY(event_release)
#undef DPK_CHECK_ENTRY
  return nullptr;
}

} // namespace

const char *pluginOutcomeName(PluginOutcome outcome) {
  switch (outcome) {
  case PluginOutcome::Loaded: return "loaded";
  case PluginOutcome::Skipped: return "skipped";
  case PluginOutcome::NotFound: return "not found";
  case PluginOutcome::MissingDependency: return "missing dependency";
  case PluginOutcome::LoadFailed: return "load failed";
  case PluginOutcome::NoEntrySymbol: return "no entry symbol";
  case PluginOutcome::AbiMismatch: return "ABI mismatch";
  case PluginOutcome::InitFailed: return "init failed";
  }
  return "unknown";
}

std::string backendFromFileName(const std::string &path) {
  std::string_view name(path);
  size_t slash = name.rfind('/');
  if (slash != std::string_view::npos)
    name.remove_prefix(slash + 1);
  if (name.size() <= PluginPrefix.size() + PluginSuffix.size())
    return {};
  if (name.substr(0, PluginPrefix.size()) != PluginPrefix ||
      name.substr(name.size() - PluginSuffix.size()) != PluginSuffix)
    return {};
  name.remove_prefix(PluginPrefix.size());
  name.remove_suffix(PluginSuffix.size());
  return std::string(name);
}

std::string defaultPluginDirectory() {
  Dl_info info;
  if (::dladdr(reinterpret_cast<void *>(&defaultPluginDirectory), &info) == 0 || !info.dli_fname)
    return {};
  std::string library = info.dli_fname;
  size_t slash = library.rfind('/');
  std::string folder = slash == std::string::npos ? std::string(".") : library.substr(0, slash);
  return folder + "/dpk/plugins";
}

LoaderOptions loaderOptionsFromEnvironment(const std::vector<std::string> &policySearchPaths) {
  LoaderOptions options;
  options.forcedPlugins = splitPathList(std::getenv("DPK_FORCE_PLUGINS"));
  options.searchDirectories = splitPathList(std::getenv("DPK_PLUGIN_PATH"));
  options.searchDirectories.insert(options.searchDirectories.end(), policySearchPaths.begin(),
                                   policySearchPaths.end());
  std::string defaultDirectory = defaultPluginDirectory();
  if (!defaultDirectory.empty())
    options.searchDirectories.push_back(defaultDirectory);
  return options;
}

PluginRecord loadPluginFile(const std::string &path, const dpk_plugin_host_services_t *services) {
  PluginRecord record;
  record.path = path;
  record.backend = backendFromFileName(path);
  if (!fileExists(path))
    return failed(std::move(record), PluginOutcome::NotFound, "no such file");

  ::dlerror();
  void *library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *text = ::dlerror();
    std::string dlerrorText = text ? text : "dlopen failed";
    std::string missing = missingLibraryFrom(dlerrorText, path);
    if (missing.empty())
      return failed(std::move(record), PluginOutcome::LoadFailed, "dlopen: " + dlerrorText);
    record.missingLibrary = missing;
    return failed(std::move(record), PluginOutcome::MissingDependency,
                  "missing dependency " + missing + " (dlopen: " + dlerrorText + ")");
  }

  auto getDispatch = reinterpret_cast<dpk_plugin_get_dispatch_fn>(
      ::dlsym(library, DPK_PLUGIN_ENTRY_SYMBOL));
  if (!getDispatch) {
    ::dlclose(library);
    return failed(std::move(record), PluginOutcome::NoEntrySymbol,
                  "the library does not export " DPK_PLUGIN_ENTRY_SYMBOL);
  }

  dpk_plugin_dispatch_t table{};
  table.struct_size = sizeof(table);
  dpk_status_t status = getDispatch(DPK_PLUGIN_ABI_VERSION, &table);
  std::string versions = "core speaks ABI " + std::to_string(DPK_PLUGIN_ABI_VERSION);
  if (status == DPK_ERROR_ABI_MISMATCH || (status == DPK_SUCCESS &&
                                           table.abi_version != DPK_PLUGIN_ABI_VERSION)) {
    std::string pluginVersion =
        table.abi_version != 0 ? std::to_string(table.abi_version) : std::string("another");
    ::dlclose(library);
    return failed(std::move(record), PluginOutcome::AbiMismatch,
                  "plugin built for ABI " + pluginVersion + ", " + versions);
  }
  if (status != DPK_SUCCESS) {
    ::dlclose(library);
    return failed(std::move(record), PluginOutcome::InitFailed,
                  std::string(DPK_PLUGIN_ENTRY_SYMBOL) + " returned status " +
                      std::to_string(static_cast<int>(status)));
  }
  if (table.struct_size < sizeof(dpk_plugin_dispatch_t)) {
    ::dlclose(library);
    return failed(std::move(record), PluginOutcome::AbiMismatch,
                  "dispatch table of " + std::to_string(table.struct_size) +
                      " bytes, core needs " + std::to_string(sizeof(dpk_plugin_dispatch_t)) +
                      " (ABI " + std::to_string(table.abi_version) + "; " + versions + ")");
  }
  if (const char *missingEntry = firstMissingEntry(table)) {
    ::dlclose(library);
    return failed(std::move(record), PluginOutcome::AbiMismatch,
                  std::string("dispatch table lacks the required entry ") + missingEntry);
  }

  auto plugin = std::make_shared<Plugin>();
  plugin->backend = table.backend && *table.backend ? table.backend : record.backend;
  plugin->path = path;
  plugin->library = library;
  plugin->table = ValidatedDispatch(table);
  if (record.backend.empty())
    record.backend = plugin->backend;

  dpk_status_t initStatus = table.init(services);
  if (initStatus != DPK_SUCCESS) {
    Error error = plugin->check(initStatus, "init");
    // Not closed: a failed init may have started threads or registered handlers inside it.
    return failed(std::move(record), PluginOutcome::InitFailed, error.message());
  }
  record.backend = plugin->backend;
  record.plugin = std::move(plugin);
  record.outcome = PluginOutcome::Loaded;
  return record;
}

std::vector<std::string> candidatePluginFiles(const LoaderOptions &options) {
  std::vector<std::string> candidates = options.forcedPlugins;
  if (!candidates.empty())
    return candidates;
  std::set<std::string> seenFolders;
  for (const std::string &directory : options.searchDirectories) {
    if (!seenFolders.insert(directory).second)
      continue;
    for (std::string &file : pluginFilesIn(directory))
      candidates.push_back(std::move(file));
  }
  return candidates;
}

std::vector<PluginRecord> loadPlugins(const LoaderOptions &options) {
  std::vector<std::string> candidates = candidatePluginFiles(options);

  std::vector<PluginRecord> records;
  std::set<std::string> loadedBackends;
  std::set<std::string> seenRealPaths;
  for (const std::string &path : candidates) {
    std::string backend = backendFromFileName(path);
    char *real = ::realpath(path.c_str(), nullptr);
    std::string realPath = real ? real : path;
    std::free(real);
    if (!seenRealPaths.insert(realPath).second)
      continue; // the same file reached through two folders
    if (!backend.empty() && loadedBackends.count(backend)) {
      records.push_back({path, backend, PluginOutcome::Skipped,
                         "backend '" + backend + "' already loaded from an earlier folder", {}, {}});
      continue;
    }
    if (!backend.empty() && options.rejectBackend) {
      if (std::optional<std::string> rejection = options.rejectBackend(backend)) {
        records.push_back({path, backend, PluginOutcome::Skipped, *rejection, {}, {}});
        continue;
      }
    }
    PluginRecord record = loadPluginFile(path, options.services);
    if (record.outcome == PluginOutcome::Loaded) {
      loadedBackends.insert(backend.empty() ? record.backend : backend);
      loadedBackends.insert(record.backend);
    }
    records.push_back(std::move(record));
  }
  return records;
}

} // namespace dpk::runtime

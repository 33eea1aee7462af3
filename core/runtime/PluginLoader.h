// PluginLoader.h - finds backend plugins, opens them and records every outcome.
//
// Discovery order (docs/architecture.md):
//  1. DPK_FORCE_PLUGINS: a colon-separated list of plugin files. When set, only these are tried.
//  2. Otherwise every libdpk_backend_<backend>.so in the folders of DPK_PLUGIN_PATH, then the
//     policy's plugin search paths, then <folder of libdpk.so>/dpk/plugins.
// The backend name comes from the file name and is checked against the policy before dlopen, so
// an excluded backend's library (and its vendor libraries) is never opened. The first plugin of
// a backend wins; later files of the same backend are recorded as skipped.
#ifndef DPK_CORE_RUNTIME_PLUGINLOADER_H
#define DPK_CORE_RUNTIME_PLUGINLOADER_H

#include "runtime/Plugin.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dpk::runtime {

enum class PluginOutcome {
  Loaded,            // opened, ABI checked, initialized
  Skipped,           // not opened: the policy excludes the backend, or a duplicate
  NotFound,          // a forced path that does not exist
  MissingDependency, // the file exists but a library it needs does not
  LoadFailed,        // the file exists but dlopen failed for another reason
  NoEntrySymbol,     // opened, but it does not export dpk_plugin_get_dispatch
  AbiMismatch,       // built for another ABI version or table layout
  InitFailed         // its init entry point failed
};
/// "loaded", "skipped", "not found", "missing dependency", ...
const char *pluginOutcomeName(PluginOutcome outcome);

struct PluginRecord {
  std::string path;
  std::string backend; // from the file name (the table's name once loaded)
  PluginOutcome outcome = PluginOutcome::Loaded;
  std::string reason;  // why it was skipped or failed, "" when loaded
  std::string missingLibrary; // MissingDependency: the library dlopen could not find
  std::shared_ptr<Plugin> plugin; // Loaded only
};

struct LoaderOptions {
  /// Exclusive list of plugin files (DPK_FORCE_PLUGINS). When non-empty, nothing else is tried.
  std::vector<std::string> forcedPlugins;
  /// Folders searched in order when nothing is forced.
  std::vector<std::string> searchDirectories;
  /// Returns the reason a backend must not be loaded ("excluded by policy rule ..."), or nullopt.
  std::function<std::optional<std::string>(const std::string &backend)> rejectBackend;
  /// Passed to each plugin's init.
  const dpk_plugin_host_services_t *services = nullptr;
};

/// Reads DPK_FORCE_PLUGINS and DPK_PLUGIN_PATH, appends `policySearchPaths` and the default
/// folder beside libdpk.so.
LoaderOptions loaderOptionsFromEnvironment(const std::vector<std::string> &policySearchPaths);

/// <folder of the library holding the dpk core>/dpk/plugins, found with dladdr.
std::string defaultPluginDirectory();

/// The backend a plugin file name declares: "libdpk_backend_cuda.so" -> "cuda"; "" otherwise.
std::string backendFromFileName(const std::string &path);

/// The plugin files the options lead to, in discovery order (nothing is opened).
std::vector<std::string> candidatePluginFiles(const LoaderOptions &options);

/// Tries every plugin the options name. Never fails as a whole: each outcome is recorded.
std::vector<PluginRecord> loadPlugins(const LoaderOptions &options);

/// Opens one plugin file (no policy check, no discovery).
PluginRecord loadPluginFile(const std::string &path, const dpk_plugin_host_services_t *services);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_PLUGINLOADER_H

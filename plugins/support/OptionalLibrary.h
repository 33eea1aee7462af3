// OptionalLibrary.h - finding a library a plugin can do without (a vendor BLAS): the one an
// environment variable names, else the first of a search list that loads.
#ifndef DPK_PLUGINS_SUPPORT_OPTIONALLIBRARY_H
#define DPK_PLUGINS_SUPPORT_OPTIONALLIBRARY_H

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>

namespace dpk::plugin {

/// dlopen(name) with its symbols kept private to the plugin (RTLD_LOCAL: NumPy or CuPy may carry
/// another copy of the same library), or null with `why` set to the loader's message.
inline void *openLocalLibrary(const char *name, std::string &why) {
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *message = dlerror();
    why = std::string(name) + ": " + (message ? message : "dlopen failed");
  }
  return library;
}

/// Loads a library with `tryOne(name)`, which returns "" when `name` loaded and serves, else why
/// not: the library the environment variable `envName` names ("none", "0" or "off": none at
/// all), else the first of `searchList` that serves. Returns "" on success, else why not:
/// "switched off (ENV=none)", the named library's reason, or `missing` with every reason.
template <size_t N, typename TryOne>
std::string loadOptionalLibrary(const char *envName, const char *const (&searchList)[N],
                                const std::string &missing, TryOne tryOne) {
  const char *chosen = std::getenv(envName);
  if (chosen && *chosen) {
    if (!std::strcmp(chosen, "none") || !std::strcmp(chosen, "0") || !std::strcmp(chosen, "off"))
      return std::string("switched off (") + envName + "=" + chosen + ")";
    std::string why = tryOne(chosen);
    return why.empty() ? why : why + " (" + envName + ")";
  }
  std::string tried;
  for (const char *name : searchList) {
    std::string why = tryOne(name);
    if (why.empty())
      return why;
    tried += (tried.empty() ? "" : "; ") + why;
  }
  return missing + ": " + tried;
}

} // namespace dpk::plugin

#endif // DPK_PLUGINS_SUPPORT_OPTIONALLIBRARY_H

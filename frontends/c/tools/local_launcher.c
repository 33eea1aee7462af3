/* local_launcher.c - the dpk-ls executable: loads the tool (libdpk-ls.so, beside libdpk.so)
 * with dlopen(RTLD_LOCAL) and runs its entry point.
 *
 * Why not link the tool directly: an executable's shared-library dependencies form the
 * process's global symbol scope, and every library loaded later resolves its symbols there
 * first. A wheel carries its own copy of LLVM (renamed by auditwheel, but with the same
 * versioned symbols as the system's); an OpenCL ICD that embeds the system's LLVM (PoCL) would
 * then bind to the wheel's copy and abort while registering its command-line options twice
 * ("Option ... registered more than once!"). Loaded RTLD_LOCAL, dpk and its LLVM stay out of
 * the global scope, as they do in a Python process (extensions are loaded that way), and each
 * LLVM binds to itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef int (*ToolMain)(int, char **);

/* Library folders to try, relative to this executable's folder: the build tree's and the
 * wheel's "../lib", then the installation's library folder. */
static const char *const kLibraryFolders[] = {"../lib", "../" DPK_INSTALL_LIBDIR};

int main(int argc, char **argv) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    fprintf(stderr, "%s: cannot find its own path (/proc/self/exe)\n", argv[0]);
    return 127;
  }
  self[n] = '\0';
  const char *folder = dirname(self);
  char tried[2 * PATH_MAX] = "";
  for (size_t i = 0; i < sizeof kLibraryFolders / sizeof kLibraryFolders[0]; ++i) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/%s", folder, kLibraryFolders[i], DPK_TOOL_LIBRARY);
    void *tool = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!tool) {
      strncat(tried, "\n  ", sizeof tried - strlen(tried) - 1);
      strncat(tried, dlerror(), sizeof tried - strlen(tried) - 1);
      continue;
    }
    ToolMain run = (ToolMain)dlsym(tool, DPK_TOOL_ENTRY);
    if (!run) {
      fprintf(stderr, "%s: %s has no %s\n", argv[0], path, DPK_TOOL_ENTRY);
      return 127;
    }
    return run(argc, argv);
  }
  fprintf(stderr, "%s: cannot load %s:%s\n", argv[0], DPK_TOOL_LIBRARY, tried);
  return 127;
}

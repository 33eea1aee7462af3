// StressSupport.cpp - scratch directories and child processes for the stress tests.
#include "StressSupport.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>

namespace dpk::stress {

std::string makeScratchDirectory(const std::string &what) {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/dpk-stress-" + what + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data()))
    return {};
  return buffer.data();
}

void removeTree(const std::string &path) {
  struct stat info;
  if (path.empty() || ::lstat(path.c_str(), &info) != 0)
    return;
  if (S_ISDIR(info.st_mode)) {
    ::chmod(path.c_str(), 0700);
    if (DIR *dir = ::opendir(path.c_str())) {
      while (dirent *entry = ::readdir(dir)) {
        if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0)
          continue;
        removeTree(path + "/" + entry->d_name);
      }
      ::closedir(dir);
    }
    ::rmdir(path.c_str());
    return;
  }
  ::unlink(path.c_str());
}

TreeListing listTree(const std::string &directory) {
  TreeListing listing;
  std::function<void(const std::string &)> walk = [&](const std::string &relative) {
    std::string path = relative.empty() ? directory : directory + "/" + relative;
    DIR *dir = ::opendir(path.c_str());
    if (!dir)
      return;
    while (dirent *entry = ::readdir(dir)) {
      if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0)
        continue;
      std::string child = relative.empty() ? entry->d_name : relative + "/" + entry->d_name;
      struct stat info;
      if (::lstat((directory + "/" + child).c_str(), &info) != 0)
        continue;
      if (S_ISREG(info.st_mode))
        listing.regularFiles.push_back(child);
      else if (S_ISDIR(info.st_mode) && relative.empty())
        walk(child); // a shard folder
      else
        listing.others.push_back(child);
    }
    ::closedir(dir);
  };
  walk("");
  return listing;
}

bool childPasses(const std::string &what, const std::string &testName,
                 const std::vector<std::pair<std::string, std::string>> &environment,
                 int deadlineSeconds, test::ChildResult *resultOut) {
  test::ChildResult result = test::runChildTest(testName, environment, deadlineSeconds);
  bool passed = !result.timedOut && result.exitCode == 0 &&
                result.output.find("[  PASSED  ] 1 test") != std::string::npos;
  if (result.timedOut)
    ADD_FAILURE() << what << ": hung (killed after " << deadlineSeconds << " s)\n"
                  << result.output;
  else if (result.signal)
    ADD_FAILURE() << what << ": crashed with signal " << result.signal << "\n" << result.output;
  else if (!passed)
    ADD_FAILURE() << what << ": failed (exit " << result.exitCode << ")\n" << result.output;
  if (resultOut)
    *resultOut = std::move(result);
  return passed;
}

} // namespace dpk::stress

// Subprocess.h - runs this test binary again with a gtest filter and extra environment.
//
// The runtime reads its policy and loads plugins once per process (docs/architecture.md), so
// tests that need another DPK_FALLBACK, DPK_FORCE_PLUGINS or DPK_DEVICE_SELECTOR run as a child
// process of the test binary, selected with --gtest_filter, and report through the exit status
// and their output.
#ifndef DPK_TESTS_SUPPORT_SUBPROCESS_H
#define DPK_TESTS_SUPPORT_SUBPROCESS_H

#include <chrono>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace dpk::test {

struct ChildResult {
  int exitCode = -1; // -1 when it did not exit normally
  int signal = 0;    // the signal that ended it, if one did
  bool timedOut = false; // killed (SIGKILL) at the deadline
  std::string output; // stdout and stderr together
};

/// Runs `program args...` with `environment` added (NAME, value; an empty value unsets it).
/// With `deadlineSeconds` > 0 the child is killed when it has not exited by then (timedOut).
inline ChildResult runProgram(const std::string &program, const std::vector<std::string> &args,
                              const std::vector<std::pair<std::string, std::string>> &environment,
                              int deadlineSeconds = 0) {
  int pipeFds[2];
  ChildResult result;
  if (::pipe(pipeFds) != 0)
    return result;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipeFds[1], 1);
    ::dup2(pipeFds[1], 2);
    ::close(pipeFds[0]);
    ::close(pipeFds[1]);
    for (const auto &entry : environment) {
      if (entry.second.empty())
        ::unsetenv(entry.first.c_str());
      else
        ::setenv(entry.first.c_str(), entry.second.c_str(), 1);
    }
    std::vector<char *> argv;
    argv.push_back(const_cast<char *>(program.c_str()));
    for (const std::string &arg : args)
      argv.push_back(const_cast<char *>(arg.c_str()));
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(pipeFds[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(deadlineSeconds);
  char buffer[4096];
  for (;;) {
    int waitMs = -1;
    if (deadlineSeconds > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      waitMs = left.count() > 0 ? static_cast<int>(left.count()) : 0;
    }
    pollfd readable{pipeFds[0], POLLIN, 0};
    int ready = ::poll(&readable, 1, waitMs);
    if (ready == 0) { // the deadline passed (a grandchild holding the pipe counts as a hang)
      ::kill(pid, SIGKILL);
      result.timedOut = true;
      break;
    }
    if (ready < 0)
      continue; // EINTR
    ssize_t n = ::read(pipeFds[0], buffer, sizeof(buffer));
    if (n <= 0)
      break;
    result.output.append(buffer, static_cast<size_t>(n));
  }
  ::close(pipeFds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status))
    result.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  return result;
}

/// This executable's path.
inline std::string selfPath() {
  char path[4096];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0)
    return {};
  path[n] = '\0';
  return path;
}

/// Runs one test of this binary (by full name "Suite.Test") in a child with `environment` and
/// DPK_TEST_CHILD=1 (child-only tests skip themselves without it); killed after
/// `deadlineSeconds` when that is > 0.
inline ChildResult runChildTest(const std::string &testName,
                                std::vector<std::pair<std::string, std::string>> environment,
                                int deadlineSeconds = 0) {
  environment.emplace_back("DPK_TEST_CHILD", "1");
  return runProgram(selfPath(), {"--gtest_filter=" + testName}, environment, deadlineSeconds);
}

inline bool isChild() {
  const char *value = std::getenv("DPK_TEST_CHILD");
  return value && *value == '1';
}

} // namespace dpk::test

#define DPK_CHILD_ONLY()                                                                         \
  do {                                                                                           \
    if (!::dpk::test::isChild())                                                                 \
      GTEST_SKIP() << "runs only as a child of another test";                                   \
  } while (0)

#endif // DPK_TESTS_SUPPORT_SUBPROCESS_H

// ChildDeadline.h - runs a test body in a forked child with a deadline, so that a hang, an
// exponential pass or a stack overflow fails the test instead of hanging or killing the test
// program.
#ifndef DPK_TESTS_SUPPORT_CHILDDEADLINE_H
#define DPK_TESTS_SUPPORT_CHILDDEADLINE_H

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

namespace dpk::test {

/// Runs `body` in a forked child (after `prepareChild`, e.g. a memory limit) and fails the test
/// when the child does not exit 0 within `seconds` (it is killed then) or crashes. `what`
/// names the body in failure messages.
inline void expectInChildWithin(int seconds, const std::function<bool()> &body,
                                const std::string &what = "the child",
                                const std::function<void()> &prepareChild = {}) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (prepareChild)
      prepareChild();
    // Nothing may escape the child (an exception would resume the test program in it).
    bool ok = false;
    try {
      ok = body();
    } catch (...) {
      std::fprintf(stderr, "%s threw\n", what.c_str());
    }
    _exit(ok ? 0 : 1);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      FAIL() << what << " did not finish within " << seconds << " s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(WIFEXITED(status)) << what << " crashed (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0) << what << " failed";
}

} // namespace dpk::test

#endif // DPK_TESTS_SUPPORT_CHILDDEADLINE_H

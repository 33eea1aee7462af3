// OpenCLRunner.h - the raw-OpenCL baseline: a Problem's hand-written OpenCL C kernel run on an
// OpenCL CPU device (PoCL) with plain OpenCL calls and buffers, no dpk in between.
#ifndef DPK_BENCH_OPENCLRUNNER_H
#define DPK_BENCH_OPENCLRUNNER_H

#include "Problem.h"

#include <memory>
#include <string>

namespace dpk::bench {

class OpenCLRunner {
public:
  /// The first device of the OpenCL platform whose name contains `platformSubstring`.
  /// Throws std::runtime_error (no such platform, build log on a build failure).
  OpenCLRunner(const std::string &platformSubstring, Problem &problem);
  ~OpenCLRunner();
  OpenCLRunner(const OpenCLRunner &) = delete;
  OpenCLRunner &operator=(const OpenCLRunner &) = delete;

  void run();
  std::string runAndVerify();
  std::string deviceName() const;

private:
  struct State;
  std::unique_ptr<State> state;
  Problem &problem;
};

} // namespace dpk::bench

#endif

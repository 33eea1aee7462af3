// DpkRunner.h - runs a Problem's kernel on one dpk device through the C API.
#ifndef DPK_BENCH_DPKRUNNER_H
#define DPK_BENCH_DPKRUNNER_H

#include "Problem.h"

#include "dpk/dpk.h"

#include <string>
#include <vector>

namespace dpk::bench {

class DpkRunner {
public:
  /// Compiles (or loads from the cache) the kernel and uploads the problem's arrays. Throws
  /// std::runtime_error with dpk's message on failure.
  DpkRunner(dpk_device_t device, Problem &problem);
  ~DpkRunner();
  DpkRunner(const DpkRunner &) = delete;
  DpkRunner &operator=(const DpkRunner &) = delete;

  /// One launch, waited for.
  void run();
  /// Restores outputs, runs once, copies outputs back into the problem, returns verify().
  std::string runAndVerify();

private:
  Problem &problem;
  dpk_device_t device;
  dpk_queue_t queue = nullptr;
  dpk_kernel_t kernel = nullptr;
  std::vector<void *> deviceArrays;
  std::vector<dpk_view_arg_t> views;
  std::vector<dpk_arg_t> args;
};

/// Throws std::runtime_error("<what>: <status>: <dpk_last_error()>") on failure.
void checkDpk(dpk_status_t status, const char *what);

} // namespace dpk::bench

#endif

// Backends.h - the columns of a benchmark run: dpk devices and hand-written baselines (oneTBB
// C++, raw OpenCL C per platform), and one Runner interface that runs a Problem on any of them.
#ifndef DPK_BENCH_BACKENDS_H
#define DPK_BENCH_BACKENDS_H

#include "Problem.h"

#include "dpk/dpk.h"

#include <memory>
#include <string>
#include <vector>

namespace dpk::bench {

/// One column of the report: a dpk device, or a baseline.
struct Backend {
  std::string name; // "dpk:host:cpu:0", "tbb", "opencl-raw:Portable Computing Language"
  dpk_device_t device = nullptr;
  std::string openclPlatform; // raw OpenCL baselines
  bool isTbb = false;

  bool isBaseline() const { return isTbb || !openclPlatform.empty(); }
};

/// Anything that can run a Problem: the three kinds of backend behind one interface.
struct Runner {
  virtual ~Runner() = default;
  /// One timed run (inputs already on the device, outputs left there).
  virtual void run() = 0;
  /// Resets outputs, runs once, brings outputs back and checks them: "" or what is wrong.
  virtual std::string runAndVerify() = 0;
};

std::unique_ptr<Runner> makeRunner(const Backend &backend, Problem &problem);
/// Raw OpenCL baselines exist only for problems with an OpenCL C version.
bool hasBaseline(const Backend &backend, const Problem &problem);
/// Every dpk device, then oneTBB, then one raw OpenCL baseline per OpenCL platform.
std::vector<Backend> discoverBackends();

} // namespace dpk::bench

#endif

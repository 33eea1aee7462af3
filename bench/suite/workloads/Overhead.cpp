// Overhead.cpp - the empty kernel: what one launch costs, with four pointer arguments to
// marshal. Baselines: a oneTBB parallel_for over one item (the host's floor) and the same empty
// kernel launched with raw OpenCL.
#include "Common.h"

#include <tbb/parallel_for.h>

namespace dpk::bench {
namespace {

class Empty final : public Problem {
public:
  Empty() {
    workload = "empty_kernel";
    sizeLabel = "1 item, 4 args";
    kernelFile = benchKernel("empty");
    kernelName = "empty";
    for (const char *name : {"a", "b", "c", "d"})
      args.push_back(ArgSpec::pointer(addArray(name, std::vector<float>(16, 0.0f), false)));
    range = {1, {1, 1, 1}, {0, 0, 0}};
  }
  std::string verify() const override { return ""; } // nothing to compute
  void runTbbBaseline() override {
    tbb::parallel_for(size_t(0), size_t(1), [](size_t) {});
  }
  std::string openclSource() const override {
    return "__kernel void empty(__global float *a, __global float *b, __global float *c, __global float *d) {}\n";
  }
};

} // namespace

std::unique_ptr<Problem> makeEmpty(int) { return std::make_unique<Empty>(); }

} // namespace dpk::bench

// Problem.h - one benchmark workload at one size: host data, how the dpk kernel is called, the
// hand-written baselines, and the check every run must pass before it is timed.
#ifndef DPK_BENCH_PROBLEM_H
#define DPK_BENCH_PROBLEM_H

#include "dpk/dpk_types.h"

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace dpk::bench {

/// A host array the kernel reads or writes. Inputs are copied to the device before a run,
/// outputs copied back after it; `initial` restores outputs that accumulate (histograms).
struct Array {
  std::string name;
  size_t elementSize = 4;
  std::vector<unsigned char> data;    // current contents (inputs, or outputs after a run)
  std::vector<unsigned char> initial; // contents before each run
  bool isOutput = false;

  size_t bytes() const { return data.size(); }
  template <typename T> T *as() { return reinterpret_cast<T *>(data.data()); }
  template <typename T> const T *as() const { return reinterpret_cast<const T *>(data.data()); }
  void reset() { data = initial; }
};

/// One kernel argument, in terms of the problem's arrays.
struct ArgSpec {
  enum Kind { ArrayPointer, ArrayView, Scalar, Local } kind;
  size_t array = 0;                 // ArrayPointer, ArrayView
  std::vector<int64_t> shape;       // ArrayView
  std::vector<int64_t> strides;     // ArrayView, in elements
  std::vector<unsigned char> bytes; // Scalar
  size_t localBytes = 0;            // Local

  static ArgSpec pointer(size_t array) { return {ArrayPointer, array, {}, {}, {}, 0}; }
  static ArgSpec view(size_t array, std::vector<int64_t> shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t d = shape.size() - 1; d > 0; --d)
      strides[d - 1] = strides[d] * shape[d];
    return {ArrayView, array, shape, strides, {}, 0};
  }
  template <typename T> static ArgSpec scalar(T value) {
    ArgSpec spec{Scalar, 0, {}, {}, std::vector<unsigned char>(sizeof(T)), 0};
    std::memcpy(spec.bytes.data(), &value, sizeof(T));
    return spec;
  }
  static ArgSpec local(size_t bytes) { return {Local, 0, {}, {}, {}, bytes}; }
};

/// A workload at one size. Subclasses fill arrays, args and range in their constructor.
class Problem {
public:
  virtual ~Problem() = default;

  std::string workload;       // "triad"
  std::string sizeLabel;      // "n=16M"
  std::string kernelFile;     // absolute path of the .dpkir file
  std::string kernelName;
  std::vector<Array> arrays;
  std::vector<ArgSpec> args;
  dpk_launch_config_t range{};
  double bytesMoved = 0;      // minimal bytes through memory per run (0 when not meaningful)
  double flops = 0;           // useful floating-point operations per run (0 when not meaningful)
  bool boundsCheck = false;   // create the program in bounds-check mode (DPK_BOUNDSCHECK_ON)

  /// Checks the outputs in `arrays` against a reference; returns "" or what is wrong.
  virtual std::string verify() const = 0;
  /// The same computation written by hand in C++ with oneTBB, on `arrays` in place.
  virtual void runTbbBaseline() = 0;
  /// The same kernel written by hand in OpenCL C (empty: no OpenCL baseline), with its own
  /// argument list in terms of the arrays.
  virtual std::string openclSource() const { return {}; }
  virtual std::vector<ArgSpec> openclArgs() const { return args; }

  void resetOutputs() {
    for (Array &a : arrays)
      if (a.isOutput)
        a.reset();
  }

protected:
  /// An output the kernel overwrites: starts as a poison pattern so unwritten elements fail.
  template <typename T> size_t addPoisonedOutput(std::string name, size_t count) {
    size_t index = addArray(std::move(name), std::vector<T>(count), true);
    std::fill(arrays[index].initial.begin(), arrays[index].initial.end(), 0xA5);
    arrays[index].data = arrays[index].initial;
    return index;
  }
  template <typename T> size_t addArray(std::string name, std::vector<T> values, bool output) {
    Array a;
    a.name = std::move(name);
    a.elementSize = sizeof(T);
    a.data.resize(values.size() * sizeof(T));
    std::memcpy(a.data.data(), values.data(), a.data.size());
    a.initial = a.data;
    a.isOutput = output;
    arrays.push_back(std::move(a));
    return arrays.size() - 1;
  }
};

/// Every workload, at the sizes given (0 = smallest, for the smoke run).
struct WorkloadInfo {
  std::string name;
  int sizeCount;
  std::unique_ptr<Problem> (*make)(int sizeIndex);
};
const std::vector<WorkloadInfo> &allWorkloads();

/// Path of a kernel file: the IR corpus for kernels tests share, bench/kernels for the rest.
std::string corpusKernel(const std::string &name);
std::string benchKernel(const std::string &name);

} // namespace dpk::bench

#endif

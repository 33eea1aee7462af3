// dpk_demo.cpp - runs the same kernels on every device dpk can use and shows which device ran
// what, how long it took, and whether the result matches a C++ reference. Uses only dpk.h.
#include "dpk/dpk.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Failure {
  std::string what;
};

// Turns a failed status into a Failure carrying dpk's own message.
void check(dpk_status_t status, const char *what) {
  if (status == DPK_SUCCESS)
    return;
  throw Failure{std::string(what) + ": " + dpk_status_name(status) + ": " + dpk_last_error()};
}

std::string readKernel(const std::string &name) {
  std::ifstream file(std::string(DPK_DEMO_KERNEL_DIR) + "/" + name + ".dpkir");
  if (!file)
    throw Failure{"cannot read kernel file " + name + ".dpkir in " DPK_DEMO_KERNEL_DIR};
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// A device allocation that is freed when it goes out of scope.
struct DeviceBuffer {
  void *ptr = nullptr;
  DeviceBuffer(dpk_device_t device, size_t bytes) { check(dpk_mem_alloc(&ptr, device, DPK_MEM_DEVICE, bytes), "dpk_mem_alloc"); }
  ~DeviceBuffer() { dpk_mem_free(ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};

struct Timing {
  double firstMs = 0, warmMs = 0;
};

// Launches twice (the first launch includes compilation or the cache load) and times both.
Timing launchTwice(dpk_queue_t queue, dpk_kernel_t kernel, const dpk_launch_config_t &range,
                   const std::vector<dpk_arg_t> &args) {
  Timing timing;
  for (int run = 0; run < 2; ++run) {
    auto start = std::chrono::steady_clock::now();
    check(dpk_enqueue_launch(nullptr, queue, kernel, &range, static_cast<uint32_t>(args.size()), args.data(), 0, nullptr),
          "dpk_enqueue_launch");
    check(dpk_queue_wait(queue), "dpk_queue_wait");
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    (run == 0 ? timing.firstMs : timing.warmMs) = ms;
  }
  return timing;
}

template <typename T> void copyIn(dpk_queue_t queue, void *dst, const std::vector<T> &src) {
  check(dpk_enqueue_copy(nullptr, queue, dst, src.data(), src.size() * sizeof(T), 0, nullptr), "dpk_enqueue_copy");
}
template <typename T> void copyOut(dpk_queue_t queue, std::vector<T> &dst, const void *src) {
  check(dpk_enqueue_copy(nullptr, queue, dst.data(), src, dst.size() * sizeof(T), 0, nullptr), "dpk_enqueue_copy");
  check(dpk_queue_wait(queue), "dpk_queue_wait");
}

dpk_kernel_t loadKernel(const std::string &name) {
  std::string text = readKernel(name);
  dpk_program_t program = nullptr;
  check(dpk_program_create_from_ir(&program, text.c_str(), text.size(), name.c_str()), "dpk_program_create_from_ir");
  dpk_kernel_t kernel = nullptr;
  dpk_status_t status = dpk_kernel_get(&kernel, program, name.c_str());
  dpk_program_release(program);
  check(status, "dpk_kernel_get");
  return kernel;
}

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

bool closeTo(float got, double want, double rtol) { return std::fabs(got - want) <= rtol * std::max(1.0, std::fabs(want)); }

struct DemoResult {
  std::string kernel;
  Timing timing;
  bool correct = false;
};

DemoResult vectorAdd(dpk_device_t device, dpk_queue_t queue, dpk_kernel_t kernel) {
  const size_t n = 1 << 22;
  auto a = randomFloats(n, 1), b = randomFloats(n, 2);
  DeviceBuffer da(device, n * 4), db(device, n * 4), dc(device, n * 4);
  copyIn(queue, da.ptr, a);
  copyIn(queue, db.ptr, b);
  std::vector<dpk_arg_t> args = {{DPK_ARG_POINTER, 0, da.ptr}, {DPK_ARG_POINTER, 0, db.ptr}, {DPK_ARG_POINTER, 0, dc.ptr}};
  dpk_launch_config_t range{1, {n, 1, 1}, {0, 0, 0}};
  DemoResult result{"vector_add  n=4M", launchTwice(queue, kernel, range, args)};
  std::vector<float> c(n);
  copyOut(queue, c, dc.ptr);
  result.correct = true;
  for (size_t i = 0; i < n && result.correct; ++i)
    result.correct = c[i] == a[i] + b[i];
  return result;
}

DemoResult pairwiseDistance(dpk_device_t device, dpk_queue_t queue, dpk_kernel_t kernel) {
  const int64_t n = 2048, d = 3;
  auto x = randomFloats(n * d, 3);
  DeviceBuffer dx(device, x.size() * 4), dd(device, n * n * 4);
  copyIn(queue, dx.ptr, x);
  dpk_view_arg_t points{dx.ptr, 2, {n, d, 0}, {d, 1, 0}};
  dpk_view_arg_t dist{dd.ptr, 2, {n, n, 0}, {n, 1, 0}};
  std::vector<dpk_arg_t> args = {{DPK_ARG_VIEW, 0, &points}, {DPK_ARG_VIEW, 0, &dist}};
  dpk_launch_config_t range{2, {uint64_t(n), uint64_t(n), 1}, {0, 0, 0}};
  DemoResult result{"pairwise_distance  2048x2048", launchTwice(queue, kernel, range, args)};
  std::vector<float> out(n * n);
  copyOut(queue, out, dd.ptr);
  result.correct = true;
  for (int64_t i = 0; i < n && result.correct; i += 7)
    for (int64_t j = 0; j < n && result.correct; j += 5) {
      double sum = 0;
      for (int64_t k = 0; k < d; ++k) {
        double diff = double(x[i * d + k]) - double(x[j * d + k]);
        sum += diff * diff;
      }
      result.correct = closeTo(out[i * n + j], std::sqrt(sum), 1e-5);
    }
  return result;
}

DemoResult workGroupReduction(dpk_device_t device, dpk_queue_t queue, dpk_kernel_t kernel) {
  const size_t n = 1 << 20, local = 256, groups = n / local;
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i)
    in[i] = float(i % 17); // small integers: every partial sum is exact in f32
  DeviceBuffer din(device, n * 4), dpartial(device, groups * 4);
  copyIn(queue, din.ptr, in);
  std::vector<dpk_arg_t> args = {{DPK_ARG_POINTER, 0, din.ptr}, {DPK_ARG_POINTER, 0, dpartial.ptr}};
  dpk_launch_config_t range{1, {n, 1, 1}, {local, 1, 1}};
  DemoResult result{"wg_reduction  n=1M, groups of 256, barriers", launchTwice(queue, kernel, range, args)};
  std::vector<float> partial(groups);
  copyOut(queue, partial, dpartial.ptr);
  result.correct = true;
  for (size_t g = 0; g < groups && result.correct; ++g) {
    double want = 0;
    for (size_t l = 0; l < local; ++l)
      want += in[g * local + l];
    result.correct = partial[g] == float(want);
  }
  return result;
}

std::string deviceLabel(dpk_device_t device) {
  dpk_device_info_t info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  check(dpk_device_get_info(&info, device), "dpk_device_get_info");
  return std::string(info.filter_string) + "  " + info.name;
}

} // namespace

int main(int argc, char **argv) {
  const char *filter = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      filter = argv[++i];
      continue;
    }
    std::fprintf(stderr, "usage: dpk-demo [--device FILTER]\n");
    return 2;
  }
  if (dpk_init() != DPK_SUCCESS) {
    std::fprintf(stderr, "dpk-demo: %s\n", dpk_last_error());
    return 1;
  }
  uint32_t count = 0;
  if (dpk_device_count(&count) != DPK_SUCCESS) {
    std::fprintf(stderr, "dpk-demo: %s\n", dpk_last_error());
    return 1;
  }
  std::vector<dpk_device_t> devices;
  for (uint32_t i = 0; i < count; ++i) {
    dpk_device_t device = nullptr;
    if (dpk_device_get(&device, i) == DPK_SUCCESS)
      devices.push_back(device);
  }
  if (filter) {
    // The filter picks devices the same way a policy does; show each device it matches.
    std::vector<dpk_device_t> chosen;
    dpk_device_t device = nullptr;
    if (dpk_device_select(&device, filter) != DPK_SUCCESS) {
      std::fprintf(stderr, "dpk-demo: %s\n", dpk_last_error());
      return 1;
    }
    chosen.push_back(device);
    devices = chosen;
  }

  std::printf("dpk demo: the same kernels (tests/ir/corpus) on %zu device(s)\n\n", devices.size());
  int failures = 0;
  std::vector<std::pair<std::string, std::function<DemoResult(dpk_device_t, dpk_queue_t, dpk_kernel_t)>>> demos = {
      {"vector_add", vectorAdd}, {"pairwise_distance", pairwiseDistance}, {"wg_reduction", workGroupReduction}};
  std::vector<dpk_kernel_t> kernels;
  try {
    for (auto &demo : demos)
      kernels.push_back(loadKernel(demo.first));
  } catch (const Failure &failure) {
    std::fprintf(stderr, "dpk-demo: %s\n", failure.what.c_str());
    return 1;
  }

  for (dpk_device_t device : devices) {
    std::string label;
    try {
      label = deviceLabel(device);
    } catch (const Failure &failure) {
      std::fprintf(stderr, "dpk-demo: %s\n", failure.what.c_str());
      ++failures;
      continue;
    }
    std::printf("%s\n", label.c_str());
    dpk_queue_t queue = nullptr;
    if (dpk_queue_create(&queue, device, DPK_QUEUE_IN_ORDER) != DPK_SUCCESS) {
      std::printf("  cannot create a queue: %s\n", dpk_last_error());
      ++failures;
      continue;
    }
    for (size_t k = 0; k < demos.size(); ++k) {
      try {
        DemoResult result = demos[k].second(device, queue, kernels[k]);
        std::printf("  %-44s first %9.2f ms   warm %8.3f ms   %s\n", result.kernel.c_str(), result.timing.firstMs,
                    result.timing.warmMs, result.correct ? "ok" : "WRONG RESULT");
        failures += result.correct ? 0 : 1;
      } catch (const Failure &failure) {
        std::printf("  %-44s FAILED: %s\n", demos[k].first.c_str(), failure.what.c_str());
        ++failures;
      }
    }
    dpk_queue_release(queue);
    std::printf("\n");
  }
  for (dpk_kernel_t kernel : kernels)
    dpk_kernel_release(kernel);
  for (dpk_device_t device : devices)
    dpk_device_release(device);
  std::printf("%s\n", failures ? "some kernels failed (see above)" : "every kernel matched its reference");
  return failures ? 1 : 0;
}

// CudaLaunchCount.cpp - the loop whose instructions scripts/cuda-launch-count.sh counts with
// callgrind: the C API's launch of an empty IR kernel with four pointer arguments on the CUDA
// plugin, over the fake driver (no GPU needed), without an event, on an in-order queue.
// A measuring tool, not a test.
//
// Usage: dpk_cuda_launch_count <launches> [wait|enqueue]
//   wait     each launch is followed by dpk_queue_wait (launch + wait);
//   enqueue  launches only, one wait at the end (what a submission costs).
// One warm-up launch + wait comes first (it compiles the kernel and makes its launch plan), so
// counts of two runs with different <launches> differ by the steady-state launches only.
// Unless set, DPK_CUDA_LIBRARY points at the build tree's fake driver and DPK_FORCE_PLUGINS
// at the CUDA plugin alone.
#include "dpk/dpk.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

const char *const EmptyIr =
    "kernel @empty(%a: ptr<global, f32>, %b: ptr<global, f32>, %c: ptr<global, f32>,"
    " %d: ptr<global, f32>) {\n  return\n}\n";

bool ok(dpk_status_t status, const char *what) {
  if (status == DPK_SUCCESS)
    return true;
  std::fprintf(stderr, "%s: %s: %s\n", what, dpk_status_name(status), dpk_last_error());
  return false;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <launches> [wait|enqueue]\n", argv[0]);
    return 2;
  }
  const long launches = std::atol(argv[1]);
  const bool wait = argc < 3 || std::strcmp(argv[2], "enqueue") != 0;
  ::setenv("DPK_CUDA_LIBRARY", DPK_FAKE_CUDA_PATH, /*overwrite=*/0);
  ::setenv("DPK_FORCE_PLUGINS", DPK_CUDA_PLUGIN_PATH, /*overwrite=*/0);

  dpk_device_t device = nullptr;
  dpk_queue_t queue = nullptr;
  dpk_program_t program = nullptr;
  dpk_kernel_t kernel = nullptr;
  if (!ok(dpk_device_select(&device, "cuda:gpu"), "dpk_device_select") ||
      !ok(dpk_queue_create(&queue, device, DPK_QUEUE_IN_ORDER), "dpk_queue_create") ||
      !ok(dpk_program_create_from_ir(&program, EmptyIr, std::strlen(EmptyIr), "empty"),
          "dpk_program_create_from_ir") ||
      !ok(dpk_kernel_get(&kernel, program, "empty"), "dpk_kernel_get"))
    return 1;
  void *buffers[4] = {};
  for (void *&buffer : buffers)
    if (!ok(dpk_mem_alloc(&buffer, device, DPK_MEM_DEVICE, 256), "dpk_mem_alloc"))
      return 1;
  dpk_arg_t args[4];
  for (int i = 0; i < 4; ++i)
    args[i] = {DPK_ARG_POINTER, 0, buffers[i]};
  dpk_launch_config_t range{1, {1, 1, 1}, {0, 0, 0}};
  if (!ok(dpk_enqueue_launch(nullptr, queue, kernel, &range, 4, args, 0, nullptr), "warm-up") ||
      !ok(dpk_queue_wait(queue), "warm-up wait"))
    return 1;

  for (long i = 0; i < launches; ++i) {
    dpk_status_t status = dpk_enqueue_launch(nullptr, queue, kernel, &range, 4, args, 0, nullptr);
    if (status == DPK_SUCCESS && wait)
      status = dpk_queue_wait(queue);
    if (!ok(status, "launch"))
      return 1;
  }
  if (!ok(dpk_queue_wait(queue), "final wait"))
    return 1;
  for (void *buffer : buffers)
    dpk_mem_free(buffer);
  dpk_kernel_release(kernel);
  dpk_program_release(program);
  dpk_queue_release(queue);
  std::printf("%ld launches%s\n", launches, wait ? " + waits" : "");
  return 0;
}

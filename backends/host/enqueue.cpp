// enqueue.cpp - builds commands (copy, fill, launch, gemm) and hands them to the queue's
// dispatcher.
// The core checked the handles, arguments, dependencies, the range's shape and the fill pattern
// before these entries run (core/runtime/PluginValidation.cpp).
#include "enqueue.hpp"

#include "PluginSupport.h"
#include "gemm.hpp"
#include "program.hpp"
#include "queue.hpp"
#include "work_groups.hpp"

#include <tbb/parallel_for.h>

#include <cstring>

namespace plugin = dpk::plugin;

namespace dpk::host {
namespace {

// Copies above this size are split over the arena: one core cannot saturate memory bandwidth.
constexpr size_t kParallelCopyBytes = 1u << 20;
constexpr size_t kCopyChunk = 256u << 10;

// Retains the dependencies, makes the event the caller asked for, submits, and hands the caller
// its event. Without one the command has no event: failures reach the queue's finish (which
// records the first one) either way, and nothing else can name the command.
void submit(dpk_pl_queue_t queue, Command &&command, uint32_t numDeps, const dpk_pl_event_t *deps,
            dpk_pl_event_t *outEvent) {
  for (uint32_t i = 0; i < numDeps; ++i) {
    deps[i]->retain();
    command.dependencies.push_back(deps[i]);
  }
  dpk_pl_event_t event = nullptr;
  if (outEvent) {
    event = new dpk_pl_event_s();
    event->retain(); // the caller's reference; the queue holds the first one
  }
  command.event = event;
  queue->submit(std::move(command));
  if (outEvent)
    *outEvent = event;
}

void copyBytes(void *dst, const void *src, size_t bytes) {
  if (bytes < kParallelCopyBytes) {
    std::memmove(dst, src, bytes);
    return;
  }
  size_t chunks = (bytes + kCopyChunk - 1) / kCopyChunk;
  auto *out = static_cast<char *>(dst);
  const auto *in = static_cast<const char *>(src);
  tbb::parallel_for(size_t(0), chunks, [&](size_t c) {
    size_t begin = c * kCopyChunk;
    std::memcpy(out + begin, in + begin, std::min(kCopyChunk, bytes - begin));
  });
}

} // namespace

dpk_status_t enqueueCopy(dpk_pl_event_t *outEvent, dpk_pl_queue_t queue, void *dst, const void *src, size_t bytes, uint32_t numDeps,
                         const dpk_pl_event_t *deps) {
  Command command;
  command.what = "copy of " + std::to_string(bytes) + " bytes";
  command.run = [dst, src, bytes](std::string &) {
    copyBytes(dst, src, bytes);
    return DPK_SUCCESS;
  };
  submit(queue, std::move(command), numDeps, deps, outEvent);
  return DPK_SUCCESS;
}

dpk_status_t enqueueFill(dpk_pl_event_t *outEvent, dpk_pl_queue_t queue, void *dst, const void *pattern, size_t patternSize,
                         size_t bytes, uint32_t numDeps, const dpk_pl_event_t *deps) {
  std::vector<unsigned char> stored(static_cast<const unsigned char *>(pattern),
                                    static_cast<const unsigned char *>(pattern) + patternSize);
  Command command;
  command.what = "fill of " + std::to_string(bytes) + " bytes";
  command.run = [dst, stored = std::move(stored), bytes](std::string &) {
    auto *out = static_cast<unsigned char *>(dst);
    if (stored.size() == 1) {
      std::memset(out, stored[0], bytes);
      return DPK_SUCCESS;
    }
    for (size_t offset = 0; offset < bytes; offset += stored.size())
      std::memcpy(out + offset, stored.data(), stored.size());
    return DPK_SUCCESS;
  };
  submit(queue, std::move(command), numDeps, deps, outEvent);
  return DPK_SUCCESS;
}

dpk_status_t enqueueLaunch(dpk_pl_event_t *outEvent, dpk_pl_queue_t queue, dpk_pl_kernel_t kernel, const dpk_launch_config_t *config,
                           uint32_t numArgs, const dpk_kernel_arg_t *args, uint32_t numDeps,
                           const dpk_pl_event_t *deps) {
  GroupShape shape;
  std::string error;
  dpk_status_t status = chooseGroupShape(*config, kernel->entry, shape, error);
  if (status != DPK_SUCCESS)
    return plugin::fail(status, "enqueue_launch of '" + std::string(kernel->entry.name) + "': " + error);

  Command command;
  command.kind = Command::Kind::Launch;
  LaunchCommand &launch = command.launch;
  // The command keeps the program alive: the caller may release its kernel right away.
  kernel->program->references.fetch_add(1, std::memory_order_relaxed);
  launch.program = kernel->program;
  launch.entry = kernel->entry;
  launch.shape = shape;
  launch.arguments.assign(numArgs, args);
  launch.cost = kernel->cost;
  submit(queue, std::move(command), numDeps, deps, outEvent);
  return DPK_SUCCESS;
}

// The host's CBLAS, run as a command in the queue's order like a launch; UNSUPPORTED when no
// BLAS library is installed (the caller runs its own kernel then).
dpk_status_t enqueueGemm(dpk_pl_event_t *outEvent, dpk_pl_queue_t queue, const dpk_gemm_desc_t *desc,
                         uint32_t numDeps, const dpk_pl_event_t *deps) {
  std::string whyNot;
  const HostBlas *blas = hostBlas(whyNot);
  if (!blas)
    return plugin::fail(DPK_ERROR_UNSUPPORTED, "enqueue_gemm: " + whyNot);
  if (std::string why = gemmUnsupported(*blas, *desc); !why.empty())
    return plugin::fail(DPK_ERROR_UNSUPPORTED, "enqueue_gemm: " + why);
  Command command;
  command.what = "gemm " + std::to_string(desc->m) + "x" + std::to_string(desc->n) + "x" +
                 std::to_string(desc->k) + " (" + blas->library + ")";
  command.run = [blas, d = *desc](std::string &) {
    runGemm(*blas, d);
    return DPK_SUCCESS;
  };
  submit(queue, std::move(command), numDeps, deps, outEvent);
  return DPK_SUCCESS;
}

} // namespace dpk::host

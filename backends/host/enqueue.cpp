// enqueue.cpp - builds commands (copy, fill, launch) and hands them to the queue's dispatcher.
#include "enqueue.hpp"

#include "PluginSupport.h"
#include "program.hpp"
#include "queue.hpp"
#include "work_groups.hpp"

#include <tbb/parallel_for.h>

#include <cstring>
#include <memory>

namespace plugin = dpk::plugin;

namespace dpk::host {
namespace {

// Copies above this size are split over the arena: one core cannot saturate memory bandwidth.
constexpr size_t kParallelCopyBytes = 1u << 20;
constexpr size_t kCopyChunk = 256u << 10;

dpk_status_t checkDependencies(uint32_t numDeps, const dpk_pl_event_t *deps, const char *entry) {
  if (numDeps && !deps)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, std::string(entry) + ": deps is null but num_deps is " + std::to_string(numDeps));
  for (uint32_t i = 0; i < numDeps; ++i)
    if (!deps[i])
      return plugin::fail(DPK_ERROR_INVALID_HANDLE, std::string(entry) + ": dependency " + std::to_string(i) + " is null");
  return DPK_SUCCESS;
}

// Retains the dependencies and the new event, submits, and hands the caller its event.
void submit(dpk_pl_queue_t queue, Command command, uint32_t numDeps, const dpk_pl_event_t *deps,
            dpk_pl_event_t *outEvent) {
  for (uint32_t i = 0; i < numDeps; ++i) {
    deps[i]->retain();
    command.dependencies.push_back(deps[i]);
  }
  auto *event = new dpk_pl_event_s();
  if (outEvent)
    event->retain(); // the caller's reference; the queue holds the first one
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

dpk_status_t enqueueCopy(dpk_pl_queue_t queue, void *dst, const void *src, size_t bytes, uint32_t numDeps,
                         const dpk_pl_event_t *deps, dpk_pl_event_t *outEvent) {
  if (!queue)
    return plugin::fail(DPK_ERROR_INVALID_HANDLE, "enqueue_copy: null queue");
  if (bytes && (!dst || !src))
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "enqueue_copy: null source or destination");
  DPK_RETURN_ON_FAILURE(checkDependencies(numDeps, deps, "enqueue_copy"));
  Command command;
  command.what = "copy of " + std::to_string(bytes) + " bytes";
  command.run = [dst, src, bytes](std::string &) {
    copyBytes(dst, src, bytes);
    return DPK_SUCCESS;
  };
  submit(queue, std::move(command), numDeps, deps, outEvent);
  return DPK_SUCCESS;
}

dpk_status_t enqueueFill(dpk_pl_queue_t queue, void *dst, const void *pattern, size_t patternSize,
                         size_t bytes, uint32_t numDeps, const dpk_pl_event_t *deps, dpk_pl_event_t *outEvent) {
  if (!queue)
    return plugin::fail(DPK_ERROR_INVALID_HANDLE, "enqueue_fill: null queue");
  if (!pattern || patternSize == 0 || (bytes && !dst))
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "enqueue_fill: null pattern or destination, or empty pattern");
  if (bytes % patternSize != 0)
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "enqueue_fill: " + std::to_string(bytes) +
                                                        " bytes is not a multiple of the pattern size " + std::to_string(patternSize));
  DPK_RETURN_ON_FAILURE(checkDependencies(numDeps, deps, "enqueue_fill"));
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

dpk_status_t enqueueLaunch(dpk_pl_queue_t queue, dpk_pl_kernel_t kernel, const dpk_launch_config_t *config,
                           uint32_t numArgs, const dpk_kernel_arg_t *args, uint32_t numDeps,
                           const dpk_pl_event_t *deps, dpk_pl_event_t *outEvent) {
  if (!queue || !kernel)
    return plugin::fail(DPK_ERROR_INVALID_HANDLE, "enqueue_launch: null queue or kernel");
  if (!config || (numArgs && !args))
    return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch: null config or arguments");
  if (config->dims < 1 || config->dims > 3)
    return plugin::fail(DPK_ERROR_INVALID_RANGE, "enqueue_launch: dims must be 1, 2 or 3, got " + std::to_string(config->dims));
  for (uint32_t i = 0; i < numArgs; ++i) {
    if (!plugin::isKnownArgKind(args[i]))
      return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch: argument " + std::to_string(i) +
                                                          " has unknown kind " + std::to_string(plugin::argKind(args[i])));
    bool valueNeeded = args[i].kind == DPK_ARG_POINTER || args[i].kind == DPK_ARG_SCALAR;
    if (valueNeeded && !args[i].value)
      return plugin::fail(DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch: argument " + std::to_string(i) + " has no value");
  }
  DPK_RETURN_ON_FAILURE(checkDependencies(numDeps, deps, "enqueue_launch"));

  GroupShape shape;
  std::string error;
  dpk_status_t status = chooseGroupShape(*config, kernel->entry, shape, error);
  if (status != DPK_SUCCESS)
    return plugin::fail(status, "enqueue_launch of '" + std::string(kernel->entry.name) + "': " + error);

  // The command keeps the program alive: the caller may release its kernel right away.
  kernel->program->references.fetch_add(1, std::memory_order_relaxed);
  std::shared_ptr<dpk_pl_program_s> program(kernel->program, [](dpk_pl_program_s *p) { p->release(); });
  Command command;
  command.what = "launch of '" + std::string(kernel->entry.name) + "'";
  command.run = [program, entry = kernel->entry, shape, pack = ArgumentPack::copy(numArgs, args)](std::string &) {
    runLaunch(entry, shape, pack);
    return DPK_SUCCESS;
  };
  submit(queue, std::move(command), numDeps, deps, outEvent);
  return DPK_SUCCESS;
}

} // namespace dpk::host

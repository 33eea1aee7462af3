// CommandKind.h - what a queued command is, so that a failure reported at its event can say
// which command failed ("fill of 4096 bytes", "kernel 'vadd'").
#ifndef DPK_PLUGINS_SUPPORT_COMMANDKIND_H
#define DPK_PLUGINS_SUPPORT_COMMANDKIND_H

#include <cstddef>
#include <string>

namespace dpk::plugin {

enum class CommandKind { Kernel, Copy, Fill };

/// "kernel 'vadd'", "copy of 4096 bytes", "fill of 64 bytes" (`kernel` is used for kernels only).
inline std::string describeCommand(CommandKind kind, size_t bytes, const std::string &kernel) {
  switch (kind) {
  case CommandKind::Kernel:
    return "kernel '" + kernel + "'";
  case CommandKind::Copy:
    return "copy of " + std::to_string(bytes) + " bytes";
  case CommandKind::Fill:
    return "fill of " + std::to_string(bytes) + " bytes";
  }
  return "command";
}

} // namespace dpk::plugin

#endif // DPK_PLUGINS_SUPPORT_COMMANDKIND_H

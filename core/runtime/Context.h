// Context.h - the plugin context of one device, created on first use and released at the end.
//
// dpk gives each device exactly one plugin context: programs, memory and queues of a device all
// live in it, so any allocation of a device is usable by every queue of that device.
#ifndef DPK_CORE_RUNTIME_CONTEXT_H
#define DPK_CORE_RUNTIME_CONTEXT_H

#include "runtime/Plugin.h"

namespace dpk::runtime {

class Context {
public:
  Context(const Plugin &plugin, dpk_pl_context_t native) : plugin_(plugin), native_(native) {}
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context();

  dpk_pl_context_t native() const { return native_; }

private:
  const Plugin &plugin_;
  dpk_pl_context_t native_;
};

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_CONTEXT_H

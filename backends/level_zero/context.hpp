// context.hpp - a dpk context: one ze_context_handle_t on one device's driver.
#ifndef DPK_BACKENDS_LEVEL_ZERO_CONTEXT_HPP
#define DPK_BACKENDS_LEVEL_ZERO_CONTEXT_HPP

#include "device.hpp"
#include "entries.hpp"

namespace dpk::level_zero {

/// Queues and programs keep their context alive.
struct Context : RefCounted {
  Device *device = nullptr;
  ze_context_handle_t native = nullptr;
};

inline Context *toContext(dpk_pl_context_t handle) { return reinterpret_cast<Context *>(handle); }

void releaseContextRef(Context *context);


} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_CONTEXT_HPP

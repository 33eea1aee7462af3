// ApiGuard.h - the C API boundary: exception-free entry points and handle validation.
//
// Every dpk_* entry point runs its body through apiEntry(), which clears the thread-local last
// error, starts the runtime if needed, turns a failed Error into its status and message, and
// catches every exception (std::bad_alloc -> DPK_ERROR_OUT_OF_HOST_MEMORY) so none crosses into
// C. Handles are checked for null and for their kind tag before use.
#ifndef DPK_FRONTENDS_C_SRC_APIGUARD_H
#define DPK_FRONTENDS_C_SRC_APIGUARD_H

#include "HandleTable.h"
#include "dpk/dpk.h"
#include "runtime/Device.h"
#include "runtime/Event.h"
#include "runtime/Kernel.h"
#include "runtime/LastError.h"
#include "runtime/Program.h"
#include "runtime/Queue.h"
#include "runtime/Registry.h"

#include <new>
#include <string>

namespace dpk::capi {

/// Records an error that happened while handling an exception, without throwing again.
dpk_status_t failQuietly(dpk_status_t status, const char *entry, const char *what) noexcept;

/// Runs `body` (returning dpk::Error) as the entry point `entry`. With `needsRuntime`, the
/// runtime is started first and its init error returned.
template <typename Body>
dpk_status_t apiEntry(const char *entry, Body &&body, bool needsRuntime = true) noexcept {
  try {
    runtime::clearLastError();
    if (needsRuntime) {
      if (Error error = runtime::Registry::ensure()) {
        runtime::setLastError(std::string(entry) + ": " + error.message());
        return error.status();
      }
    }
    Error error = body();
    if (!error)
      return DPK_SUCCESS;
    runtime::setLastError(std::string(entry) + ": " + error.message());
    return error.status();
  } catch (const std::bad_alloc &) {
    return failQuietly(DPK_ERROR_OUT_OF_HOST_MEMORY, entry, "out of host memory");
  } catch (const std::exception &e) {
    return failQuietly(DPK_ERROR_GENERIC, entry, e.what());
  } catch (...) {
    return failQuietly(DPK_ERROR_GENERIC, entry, "unknown exception");
  }
}

inline Error nullArgument(const char *name) {
  return Error(DPK_ERROR_INVALID_ARGUMENT, std::string(name) + " is NULL");
}

inline Expected<runtime::Device *> toDevice(dpk_device_t handle) {
  if (!handle)
    return Error(DPK_ERROR_INVALID_HANDLE, "device handle is NULL");
  if (!runtime::Registry::get().isDevice(handle))
    return Error(DPK_ERROR_INVALID_HANDLE, "not a device handle of this runtime");
  return reinterpret_cast<runtime::Device *>(handle);
}
inline dpk_device_t toHandle(runtime::Device *device) {
  return reinterpret_cast<dpk_device_t>(device);
}

/// The runtime object of an opaque handle, after checking it names a live handle of this kind
/// in the handle table (HandleTable.h): NULL, released, double-released, mistyped and forged
/// handles are DPK_ERROR_INVALID_HANDLE, never a read of freed memory.
template <typename Object, typename Handle>
Expected<Object *> toObject(Handle handle, runtime::HandleKind kind, const char *what) {
  if (!handle)
    return Error(DPK_ERROR_INVALID_HANDLE, std::string(what) + " handle is NULL");
  runtime::RefCounted *object = HandleTable::get().find(handleValue(handle), kind);
  if (!object)
    return Error(DPK_ERROR_INVALID_HANDLE,
                 std::string("not a live ") + what + " handle (wrong type or already released)");
  return static_cast<Object *>(object);
}

/// dpk_*_retain and dpk_*_release of table handles.
template <typename Handle>
Error retainHandle(Handle handle, runtime::HandleKind kind, const char *what) {
  if (!handle)
    return Error(DPK_ERROR_INVALID_HANDLE, std::string(what) + " handle is NULL");
  if (!HandleTable::get().retain(handleValue(handle), kind))
    return Error(DPK_ERROR_INVALID_HANDLE,
                 std::string("not a live ") + what + " handle (wrong type or already released)");
  return Error::success();
}
template <typename Handle>
Error releaseHandle(Handle handle, runtime::HandleKind kind, const char *what) {
  if (!handle)
    return Error(DPK_ERROR_INVALID_HANDLE, std::string(what) + " handle is NULL");
  if (!HandleTable::get().release(handleValue(handle), kind))
    return Error(DPK_ERROR_INVALID_HANDLE,
                 std::string("not a live ") + what + " handle (wrong type or already released)");
  return Error::success();
}

inline Expected<runtime::Queue *> toQueue(dpk_queue_t handle) {
  return toObject<runtime::Queue>(handle, runtime::HandleKind::Queue, "queue");
}
inline Expected<runtime::Event *> toEvent(dpk_event_t handle) {
  return toObject<runtime::Event>(handle, runtime::HandleKind::Event, "event");
}
inline Expected<runtime::Program *> toProgram(dpk_program_t handle) {
  return toObject<runtime::Program>(handle, runtime::HandleKind::Program, "program");
}
inline Expected<runtime::Kernel *> toKernel(dpk_kernel_t handle) {
  return toObject<runtime::Kernel>(handle, runtime::HandleKind::Kernel, "kernel");
}

/// Checks and converts a dependency list.
Expected<std::vector<runtime::Event *>> toEvents(uint32_t count, const dpk_event_t *events,
                                                 const char *what);

} // namespace dpk::capi

#endif // DPK_FRONTENDS_C_SRC_APIGUARD_H

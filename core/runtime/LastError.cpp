// LastError.cpp - the thread-local last-error slot of the C API.
#include "runtime/LastError.h"

namespace dpk::runtime {
namespace {

struct LastErrorSlot {
  std::string message;
  int32_t nativeCode = 0;
  int32_t pendingNativeCode = 0;
};

LastErrorSlot &slot() {
  thread_local LastErrorSlot lastError;
  return lastError;
}

// Whether this thread's slot may hold something to clear. Every C API entry point clears the
// slot, twice per launch + wait: the slot (a thread_local with a destructor) costs a
// __tls_get_addr call and a guard check, this flag, in initial-exec TLS, one load (as the
// rejection flag of PluginValidation.cpp; a byte of the static TLS surplus).
__attribute__((tls_model("initial-exec"))) thread_local bool slotInUse = false;

} // namespace

void clearLastError() {
  if (!slotInUse)
    return;
  LastErrorSlot &last = slot();
  last.message.clear();
  last.nativeCode = 0;
  last.pendingNativeCode = 0;
  slotInUse = false;
}

void setLastError(const std::string &message) {
  LastErrorSlot &last = slot();
  last.message = message;
  last.nativeCode = last.pendingNativeCode;
  slotInUse = true;
}

const char *lastErrorMessage() { return slot().message.c_str(); }
int32_t lastErrorNativeCode() { return slot().nativeCode; }
void noteNativeCode(int32_t nativeCode) {
  slot().pendingNativeCode = nativeCode;
  slotInUse = true;
}

const char *statusName(const dpk_status_t &statusArgument) {
  int status = enumValue(statusArgument);
  switch (status) {
  case DPK_SUCCESS: return "DPK_SUCCESS";
  case DPK_ERROR_GENERIC: return "DPK_ERROR_GENERIC";
  case DPK_ERROR_INVALID_ARGUMENT: return "DPK_ERROR_INVALID_ARGUMENT";
  case DPK_ERROR_INVALID_RANGE: return "DPK_ERROR_INVALID_RANGE";
  case DPK_ERROR_NOT_FOUND: return "DPK_ERROR_NOT_FOUND";
  case DPK_ERROR_UNSUPPORTED: return "DPK_ERROR_UNSUPPORTED";
  case DPK_ERROR_OUT_OF_HOST_MEMORY: return "DPK_ERROR_OUT_OF_HOST_MEMORY";
  case DPK_ERROR_OUT_OF_DEVICE_MEMORY: return "DPK_ERROR_OUT_OF_DEVICE_MEMORY";
  case DPK_ERROR_COMPILE: return "DPK_ERROR_COMPILE";
  case DPK_ERROR_LAUNCH: return "DPK_ERROR_LAUNCH";
  case DPK_ERROR_DEVICE: return "DPK_ERROR_DEVICE";
  case DPK_ERROR_PLUGIN_LOAD: return "DPK_ERROR_PLUGIN_LOAD";
  case DPK_ERROR_ABI_MISMATCH: return "DPK_ERROR_ABI_MISMATCH";
  case DPK_ERROR_POLICY: return "DPK_ERROR_POLICY";
  case DPK_ERROR_PARSE: return "DPK_ERROR_PARSE";
  case DPK_ERROR_VERIFY: return "DPK_ERROR_VERIFY";
  case DPK_ERROR_NO_DEVICE: return "DPK_ERROR_NO_DEVICE";
  case DPK_ERROR_PLACEMENT: return "DPK_ERROR_PLACEMENT";
  case DPK_ERROR_INVALID_HANDLE: return "DPK_ERROR_INVALID_HANDLE";
  case DPK_ERROR_OUT_OF_BOUNDS: return "DPK_ERROR_OUT_OF_BOUNDS";
  case DPK_ERROR_LINK: return "DPK_ERROR_LINK";
  }
  return "DPK_STATUS_UNKNOWN";
}

} // namespace dpk::runtime

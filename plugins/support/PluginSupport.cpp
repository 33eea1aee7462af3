// PluginSupport.cpp - the thread-local last-error slot of one plugin.
#include "PluginSupport.h"

namespace dpk::plugin {
namespace {

struct LastErrorSlot {
  std::string message;
  int32_t nativeCode = 0;
};

LastErrorSlot &slot() {
  thread_local LastErrorSlot lastError;
  return lastError;
}

} // namespace

dpk_status_t fail(dpk_status_t status, int32_t nativeCode, std::string message) {
  LastErrorSlot &last = slot();
  last.message = std::move(message);
  last.nativeCode = nativeCode;
  return status;
}

dpk_status_t fail(dpk_status_t status, std::string message) {
  return fail(status, 0, std::move(message));
}

dpk_status_t failNoThrow(dpk_status_t status, const char *entryName, const char *what) noexcept {
  try {
    fail(status, std::string(entryName) + ": " + what);
  } catch (...) {
    slot().nativeCode = 0; // no memory for the message: keep the status
  }
  return status;
}

const char *lastError(int32_t *nativeCode) {
  const LastErrorSlot &last = slot();
  if (nativeCode)
    *nativeCode = last.nativeCode;
  return last.message.c_str();
}

void clearLastError() {
  LastErrorSlot &last = slot();
  last.message.clear();
  last.nativeCode = 0;
}

} // namespace dpk::plugin

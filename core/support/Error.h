// Error.h - recoverable errors inside the core: a status code plus a message, and Expected<T>.
//
// Failures a user can trigger (bad IR, bad policy, device errors) travel as Error/Expected up to
// the C API, which turns them into a dpk_status_t and the thread-local last-error message.
// Broken internal invariants use assert() instead. No exceptions cross module boundaries.
#ifndef DPK_CORE_SUPPORT_ERROR_H
#define DPK_CORE_SUPPORT_ERROR_H

#include "dpk/dpk_types.h"

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace dpk {

/// A status and a message. A default-constructed Error is success.
class [[nodiscard]] Error {
public:
  Error() = default;
  Error(dpk_status_t status, std::string message) : status_(status), message_(std::move(message)) {}
  static Error success() { return {}; }

  explicit operator bool() const { return status_ != DPK_SUCCESS; } // true when failed
  dpk_status_t status() const { return status_; }
  const std::string &message() const { return message_; }

private:
  dpk_status_t status_ = DPK_SUCCESS;
  std::string message_;
};

/// Either a value or an Error.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Error error) : error_(std::move(error)) { assert(error_ && "Expected built from success"); }

  explicit operator bool() const { return value_.has_value(); } // true when it holds a value
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  const Error &error() const { return error_; }
  Error takeError() { return std::move(error_); }

private:
  std::optional<T> value_;
  Error error_;
};

} // namespace dpk

#endif // DPK_CORE_SUPPORT_ERROR_H

// Status and Result<T>: errors as values on every path that can reach a collective.
#pragma once
#include <fmt/format.h>

#include <cassert>
#include <optional>
#include <string>
#include <utility>

#include "tapio/tapio_types.h"

namespace tapio {

using Code = tapio_status;

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == TAPIO_OK; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prefix the message with context ("file 'x.nc'", "variable 'T'") as the error travels up.
  Status with_context(const std::string& context) const {
    if (ok()) return *this;
    Status st(code_, context + ": " + message_);
    st.agreed_ = agreed_;
    return st;
  }

  // Whether every rank holds this status (comm::agree made it): agreeing on it again keeps
  // its message instead of naming a rank a second time.
  bool agreed() const { return agreed_; }
  Status as_agreed() const {
    Status st = *this;
    st.agreed_ = true;
    return st;
  }

 private:
  Code code_ = TAPIO_OK;
  std::string message_;
  bool agreed_ = false;
};

inline Status ok_status() { return Status(); }

// Keeps the first error: *first becomes `st` if it was OK. For paths that go on after a local
// failure (entering the collectives they owe) and report it at the end.
inline void keep(Status* first, Status st) {
  if (first->ok() && !st.ok()) *first = std::move(st);
}

template <typename... Args>
Status error(Code code, fmt::format_string<Args...> f, Args&&... args) {
  return Status(code, fmt::format(f, std::forward<Args>(args)...));
}

// A value or an error. Deliberately small: ok(), value(), status(), operator*.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace tapio

#define TAPIO_CONCAT_INNER(a, b) a##b
#define TAPIO_CONCAT(a, b) TAPIO_CONCAT_INNER(a, b)

// Return the status from the enclosing function if it is an error.
#define TAPIO_RETURN_IF_ERROR(expr)              \
  do {                                           \
    ::tapio::Status tapio_status_tmp_ = (expr);  \
    if (!tapio_status_tmp_.ok()) return tapio_status_tmp_; \
  } while (0)

// Declare `lhs` from a Result, or return its error.
#define TAPIO_ASSIGN_OR_RETURN(lhs, expr)                         \
  auto TAPIO_CONCAT(tapio_result_, __LINE__) = (expr);            \
  if (!TAPIO_CONCAT(tapio_result_, __LINE__).ok())                \
    return TAPIO_CONCAT(tapio_result_, __LINE__).status();        \
  lhs = std::move(TAPIO_CONCAT(tapio_result_, __LINE__)).value()

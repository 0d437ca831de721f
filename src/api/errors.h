// The C API's error convention: a status code returned, a thread-local message kept.
#pragma once
#include <exception>
#include <new>

#include "core/status.h"

namespace tapio::api {

// Record `st` as this thread's last error (prefixed with the call's name) and return its code.
int report(const char* call, const Status& st);

// Run `body` (returning Status), turning exceptions into statuses so none crosses the C ABI.
template <typename F>
int guarded(const char* call, F&& body) {
  try {
    return report(call, body());
  } catch (const std::bad_alloc&) {
    return report(call, Status(TAPIO_ERR_NOMEM, "out of memory"));
  } catch (const std::exception& e) {
    return report(call, Status(TAPIO_ERR_INTERNAL, e.what()));
  }
}

}  // namespace tapio::api

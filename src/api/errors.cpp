#include "api/errors.h"

#include <string>

#include "tapio/tapio.h"

namespace tapio::api {

thread_local std::string last_error;

int report(const char* call, const Status& st) {
  if (st.ok()) return TAPIO_OK;
  last_error = std::string(call) + ": " + st.message();
  return st.code();
}

}  // namespace tapio::api

extern "C" const char* tapio_last_error(void) { return tapio::api::last_error.c_str(); }

extern "C" const char* tapio_status_string(int status) {
  switch (status) {
    case TAPIO_OK: return "success";
    case TAPIO_ERR_ARG: return "invalid argument";
    case TAPIO_ERR_STATE: return "call not valid in this state";
    case TAPIO_ERR_TYPE: return "type mismatch";
    case TAPIO_ERR_SHAPE: return "shape or selection error";
    case TAPIO_ERR_NOT_FOUND: return "not found";
    case TAPIO_ERR_CONFIG: return "configuration error";
    case TAPIO_ERR_IO: return "I/O error";
    case TAPIO_ERR_FORMAT: return "file format error";
    case TAPIO_ERR_CHECKSUM: return "checksum mismatch";
    case TAPIO_ERR_MPI: return "MPI error";
    case TAPIO_ERR_NOMEM: return "out of memory";
    case TAPIO_ERR_UNSUPPORTED: return "not supported";
    case TAPIO_ERR_INTERNAL: return "internal error";
    case TAPIO_ERR_RANGE: return "value out of range";
    default: return "unknown status";
  }
}

// The error path of every PIOc_* call: PIO's codes, the three error-handling modes, and the
// message (what failed, the file, the variable, the task) kept for PIOc_strerror.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

struct LastError {
  int code = PIO_NOERR;
  std::string message;
};

LastError& last() {
  thread_local LastError e;
  return e;
}

const char* pio_code_text(int code) {
  switch (code) {
    case PIO_EBADIOTYPE: return "Bad IO type";
    case PIO_EVARDIMMISMATCH: return "Variable dimensions do not match in a multivar call";
    case PIO_EBADREARR: return "Rearranger error";
    case PIO_EINDEP: return "Independent access error";
    case PIO_EINSUFFBUF: return "Insufficient buffer size";
    default: return nullptr;
  }
}

std::string with_task(const std::string& message, int rank) {
  return message + " (task " + std::to_string(rank) + ")";
}

}  // namespace

int fail(const IoSystem* ios, int code, const std::string& message) {
  const int rank = ios ? ios->rank : comm::world_rank();
  last() = {code, with_task(message, rank)};
  const int mode = ios ? ios->error_mode : default_error_mode();
  if (mode == PIO_INTERNAL_ERROR) {
    std::fprintf(stderr, "tapio PIO: %s (error %d)\n", last().message.c_str(), code);
    comm::abort_all(code);
  }
  return code;
}

int agree(const IoSystem& ios, int code, const std::string& message) {
  const int worst = comm::min_all(ios.comm, code, code ? code : PIO_EIO);
  if (worst == PIO_NOERR) return PIO_NOERR;
  if (code != PIO_NOERR) return fail(&ios, code, message);
  return fail(&ios, worst, "another task failed: " + error_text(worst));
}

int from_tapio(int status) {
  switch (status) {
    case TAPIO_OK: return PIO_NOERR;
    case TAPIO_ERR_TYPE: return PIO_ECHAR;
    case TAPIO_ERR_SHAPE: return PIO_EEDGE;
    case TAPIO_ERR_NOT_FOUND: return ENOENT;
    case TAPIO_ERR_IO:
    case TAPIO_ERR_CHECKSUM:
    case TAPIO_ERR_MPI: return PIO_EIO;
    case TAPIO_ERR_FORMAT: return PIO_ENOTNC;
    case TAPIO_ERR_NOMEM: return PIO_ENOMEM;
    case TAPIO_ERR_RANGE: return PIO_ERANGE;
    default: return PIO_EINVAL;
  }
}

std::string error_text(int code) {
  if (code == PIO_NOERR) return "No error";
  const char* pio = pio_code_text(code);
  std::string text = pio ? pio : nc_strerror(code);
  if (last().code == code && !last().message.empty()) text += ": " + last().message;
  return text;
}

}  // namespace tapio_pio

extern "C" int PIOc_strerror(int pioerr, char* errstr) {
  if (!errstr) return PIO_EINVAL;
  const std::string text = tapio_pio::error_text(pioerr);
  std::snprintf(errstr, PIO_MAX_NAME + 1, "%s", text.c_str());  // PIO's buffers: NAME + 1
  return PIO_NOERR;
}

// PIO's library defines the buffer its pio_error.h macros (MPIERR, ...) write MPI's error
// strings into; programs built with that header link against these.
extern "C" {
__attribute__((visibility("default"))) char err_buffer[MPI_MAX_ERROR_STRING];
__attribute__((visibility("default"))) int resultlen;
}

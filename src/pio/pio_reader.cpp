// Reading a file the program is writing (PIO allows reads of a file open with PIO_WRITE): the
// frames it holds are written, all of them as at close, and a reader engine opened on the
// same path reads them back. It stays open until the next flush writes more.
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

int open_reader(File& f, const char* call) {
  if (int st = new_io(f, false, &f.reader_io, call)) return st;
  const int st = tapio_open(f.reader_io, f.path.c_str(), TAPIO_MODE_READ, &f.reader);
  if (st != TAPIO_OK)
    return fail(f.ios, from_tapio(st), std::string(call) + ": " + where(f) +
                ": reading what it wrote: " + tapio_last_error());
  return PIO_NOERR;
}

}  // namespace

int reading(File& f, Var& v, tapio_engine** engine, tapio_var** handle, const char* call) {
  if (!f.writable) {
    *engine = f.engine;
    *handle = v.handle;
    return PIO_NOERR;
  }
  // Every task flushes: only the first holds what box puts wrote, and flush agrees on what
  // any task holds (it closes the reader when it writes anything).
  if (int st = flush(f, call, Flush::kRead)) return st;
  if (!f.reader)
    if (int st = open_reader(f, call)) return st;
  if (!v.read_handle) {
    const int st = tapio_inquire_variable(f.reader_io, v.name.c_str(), &v.read_handle);
    if (st != TAPIO_OK)
      return fail(f.ios, from_tapio(st), std::string(call) + ": " + where(f, v) + ": " +
                  tapio_last_error());
  }
  *engine = f.reader;
  *handle = v.read_handle;
  return PIO_NOERR;
}

int close_reader(File& f, const char* call) {
  if (!f.reader) return PIO_NOERR;
  const int st = tapio_close(f.reader);
  f.reader = nullptr;
  for (Var& v : f.vars) v.read_handle = nullptr;
  return st == TAPIO_OK ? PIO_NOERR
                        : fail(f.ios, from_tapio(st), std::string(call) + ": " + where(f) +
                                                          ": " + tapio_last_error());
}

}  // namespace tapio_pio

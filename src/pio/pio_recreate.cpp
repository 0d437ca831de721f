// A file that gets new dimensions, variables or attributes after tapio laid its header out
// (PIOc_redef on a file opened with PIO_WRITE, or on a new one after its first frames went to
// disk): a NetCDF header is laid out once, and tapio's append mode adds steps, not variables. So the file is made again: the first task reads every variable of it
// (every frame), the engine is closed, and the file is created again with every definition
// and the old data; the new data then goes on top of it. The old contents pass
// through the first task's memory: a slow path, for the small files it is used on.
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// The first task: one get of v over every frame (or its one value), into a Held per frame.
int queue_old_data(File& f, tapio_engine* reader, tapio_io* io, int varid,
                   std::vector<Held>* out) {
  Var& v = f.vars[varid];
  tapio_var* handle = nullptr;
  int st = tapio_inquire_variable(io, v.name.c_str(), &handle);
  const uint64_t records = v.record ? f.frames : 1;
  Held h;
  h.var = varid;
  for (size_t d = v.record ? 1 : 0; st == TAPIO_OK && d < v.dimids.size(); ++d) {
    h.start.push_back(0);
    h.count.push_back(f.dims[v.dimids[d]].len);
  }
  uint64_t n = 1;
  for (uint64_t c : h.count) n *= c;
  h.memtype = to_tapio(v.type);
  for (uint64_t r = 0; st == TAPIO_OK && r < records; ++r) {
    h.frame = v.record ? r : 0;
    h.data.resize(n * type_size(v.type));
    out->push_back(h);
  }
  if (st != TAPIO_OK || records == 0 || n == 0) return st;
  for (uint64_t r = 0; st == TAPIO_OK && r < records; ++r) {
    Held& frame = (*out)[out->size() - records + r];
    if (v.record) st = tapio_var_set_step_selection(handle, r, 1);
    if (st == TAPIO_OK)
      st = tapio_get_sel(reader, handle, frame.start.data(), frame.count.data(), frame.memtype,
                         frame.data.data());
  }
  return st;
}

}  // namespace

int recreate(File& f, const char* call) {
  int code = close_reader(f, call);
  if (code == PIO_NOERR && f.engine && tapio_close(f.engine) != TAPIO_OK)
    code = fail(f.ios, PIO_EIO, std::string(call) + ": " + where(f) + ": " + tapio_last_error());
  f.engine = nullptr;
  if (code != PIO_NOERR) return code;
  tapio_io* io = nullptr;
  tapio_engine* reader = nullptr;
  if (int st = new_io(f, false, &io, call)) return st;
  int st = tapio_open(io, f.path.c_str(), TAPIO_MODE_READ, &reader);
  if (st != TAPIO_OK)
    return fail(f.ios, from_tapio(st), std::string(call) + ": " + where(f) + ": " +
                tapio_last_error());
  std::vector<Held> old;
  for (size_t i = 0; st == TAPIO_OK && f.ios->rank == 0 && i < f.vars.size(); ++i)
    if (f.vars[i].handle) st = queue_old_data(f, reader, io, static_cast<int>(i), &old);
  const int performed = tapio_perform_gets(reader);  // collective, whatever the first saw
  if (st == TAPIO_OK) st = performed;
  const int closed = tapio_close(reader);
  if (st == TAPIO_OK) st = closed;
  code = agree(*f.ios, from_tapio(st), std::string(call) + ": " + where(f) +
               ": reading it to make it again with the new definitions");
  if (code != PIO_NOERR) return code;
  // The old data is written first, frame by frame; the new data held then goes on top of it
  // (frames written again are written in place).
  std::vector<Held> held = std::move(f.held);
  f.held = std::move(old);
  for (Var& v : f.vars) v.handle = nullptr;
  f.frames = 0;
  f.redefined = f.defined_in_tapio = false;
  code = new_io(f, true, &f.io, call);
  if (code == PIO_NOERR) code = flush(f, call, Flush::kRead);
  f.held = std::move(held);
  return code;
}

}  // namespace tapio_pio

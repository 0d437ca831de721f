// A write file's flush (sync, close): the first one gives tapio the definitions and opens the
// engine; each writes the held frames in order as tapio steps (docs/design.md, "The PIO
// layer": why the data is held and what a frame written twice does).
#include <algorithm>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

int tapio_fail(const File& f, int st, const char* call) {
  return fail(f.ios, from_tapio(st), std::string(call) + ": " + where(f) + ": " +
              tapio_last_error());
}

int define_attrs(File& f, const char* var, const std::vector<Attr>& atts) {
  for (const Attr& a : atts) {
    const size_t count = a.bytes.size() / type_size(a.type);
    const int st = tapio_define_attribute(f.io, var, a.name.c_str(), to_tapio(a.type), count,
                                          a.bytes.data());
    if (st != TAPIO_OK) return st;
  }
  return TAPIO_OK;
}

int define_var(File& f, Var& v) {
  std::vector<uint64_t> shape;
  std::vector<const char*> names;
  for (size_t d = v.record ? 1 : 0; d < v.dimids.size(); ++d) {
    shape.push_back(f.dims[v.dimids[d]].len);
    names.push_back(f.dims[v.dimids[d]].name.c_str());
  }
  const int st = tapio_define_variable(f.io, v.name.c_str(), to_tapio(v.type),
                                       static_cast<int>(shape.size()), shape.data(),
                                       names.data(), v.record ? 0u : TAPIO_VAR_FIXED,
                                       &v.handle);
  return st == TAPIO_OK ? define_attrs(f, v.name.c_str(), v.atts) : st;
}

// The definitions go to tapio once, at the first flush: the header is laid out then.
int open_for_writing(File& f, const char* call) {
  int st = TAPIO_OK;
  const int unlim = f.unlimited();
  if (unlim >= 0)
    st = tapio_io_set_parameter(f.io, "record_dimension", f.dims[unlim].name.c_str());
  if (st == TAPIO_OK && f.fill_mode == NC_NOFILL)
    st = tapio_io_set_parameter(f.io, "fill", "false");
  for (size_t i = 0; st == TAPIO_OK && i < f.vars.size(); ++i) st = define_var(f, f.vars[i]);
  if (st == TAPIO_OK) st = define_attrs(f, nullptr, f.atts);
  // A local definition error still enters tapio_open's collectives: that open fails
  // everywhere; this task reports its own reason.
  if (st != TAPIO_OK) return tapio_fail(f, st, call);
  st = tapio_open(f.io, f.path.c_str(), TAPIO_MODE_WRITE, &f.engine);
  if (st != TAPIO_OK) return tapio_fail(f, st, call);
  f.defined_in_tapio = true;
  return PIO_NOERR;
}

int put_held(File& f, Held& h) {
  Var& v = f.vars[h.var];
  if (h.offsets) {
    const int st = tapio_var_set_offsets(v.handle, h.offsets->size(), h.offsets->data());
    return st != TAPIO_OK ? st : tapio_put(f.engine, v.handle, h.memtype, h.data.data());
  }
  return tapio_put_sel(f.engine, v.handle, h.start.data(), h.count.data(), h.memtype,
                       h.data.data());
}

// One tapio step: the held data of frame `frame` (and, with `fixed`, of fixed variables).
int write_step(File& f, uint64_t frame, bool fixed) {
  int st = tapio_begin_step(f.engine, nullptr);
  for (Held& h : f.held) {
    if (st != TAPIO_OK) break;
    const bool record = f.vars[h.var].record;
    if ((record && h.frame == frame) || (!record && fixed)) st = put_held(f, h);
  }
  if (st != TAPIO_OK) tapio_fail_step(f.engine, static_cast<tapio_status>(st), tapio_last_error());
  return tapio_end_step(f.engine);  // collective: every task's outcome
}

// The frames this flush writes: from the file's record count to the last held one.
uint64_t last_frame(const File& f, bool* any_record, bool* any_fixed) {
  uint64_t last = 0;
  for (const Held& h : f.held) {
    if (f.vars[h.var].record) {
      *any_record = true;
      last = std::max(last, h.frame);
    } else {
      *any_fixed = true;
    }
  }
  return last;
}

}  // namespace

int flush(File& f, const char* call) {
  if (!f.engine)
    if (int st = open_for_writing(f, call)) return st;
  int code = PIO_NOERR;
  for (const Held& h : f.held)
    if (f.vars[h.var].record && h.frame < f.frames && code == PIO_NOERR)
      code = PIO_EINVAL;
  code = agree(*f.ios, code, std::string(call) + ": " + where(f) +
               ": a frame written before the last sync is written again; tapio writes each "
               "frame once (docs/pio.md)");
  if (code != PIO_NOERR) {
    f.held.clear();
    return code;
  }
  bool any_record = false, any_fixed = false;
  const uint64_t last = last_frame(f, &any_record, &any_fixed);
  // Every task writes the same steps: up to the last frame any task holds, or one step for
  // fixed variables alone (a file with record variables then gains a frame: docs/pio.md).
  int64_t wanted = any_record ? static_cast<int64_t>(last) : -1;
  if (any_fixed) wanted = std::max(wanted, static_cast<int64_t>(f.frames));
  const int64_t agreed = comm::max_all(f.ios->comm, wanted);
  int st = TAPIO_OK;
  bool fixed = true;
  for (int64_t frame = static_cast<int64_t>(f.frames); st == TAPIO_OK && frame <= agreed;
       ++frame) {
    st = write_step(f, static_cast<uint64_t>(frame), fixed);
    fixed = false;
    if (st == TAPIO_OK) f.frames = static_cast<uint64_t>(frame) + 1;
  }
  f.held.clear();
  return st == TAPIO_OK ? PIO_NOERR : tapio_fail(f, st, call);
}

}  // namespace tapio_pio

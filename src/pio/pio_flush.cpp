// A write file's flush (sync, close): the first one gives tapio the definitions and opens the
// engine; each writes the held frames in order as tapio steps (docs/design.md, "The PIO
// layer": why the data is held and what a frame written twice does).
#include <algorithm>

#include "pio/pio_comm.h"
#include "pio/pio_netcdf_file.h"
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

// The file's unlimited dimension, or without one a name none of its dimensions has (a fixed
// dimension may then be called `time`, tapio's default).
std::string record_dim_name(const File& f) {
  if (f.unlimited() >= 0) return f.dims[f.unlimited()].name;
  std::string name = "time";
  for (size_t d = 0; d < f.dims.size(); ++d)
    if (f.dims[d].name == name) {
      name += "_";
      d = static_cast<size_t>(-1);  // look again from the first
    }
  return name;
}

}  // namespace

int open_for_writing(File& f, const char* call) {
  int st = TAPIO_OK;
  st = tapio_io_set_parameter(f.io, "record_dimension", record_dim_name(f).c_str());
  f.engine_fills = tapio_fills(f);
  if (st == TAPIO_OK) st = tapio_io_set_parameter(f.io, "fill", f.engine_fills ? "true" : "false");
  for (size_t d = 0; st == TAPIO_OK && d < f.dims.size(); ++d)  // their ids: the dimids
    st = tapio_define_dimension(f.io, f.dims[d].name.c_str(), f.dims[d].len);
  for (size_t i = 0; st == TAPIO_OK && i < f.vars.size(); ++i) st = define_var(f, f.vars[i]);
  if (st == TAPIO_OK) st = define_attrs(f, nullptr, f.atts);
  // A local definition error still enters tapio_open's collectives: that open fails
  // everywhere; this task reports its own reason.
  if (st != TAPIO_OK) return tapio_fail(f, st, call);
  st = tapio_open(f.io, f.path.c_str(), TAPIO_MODE_WRITE, &f.engine);
  if (st != TAPIO_OK) return tapio_fail(f, st, call);
  take_engine_name(f);
  f.defined_in_tapio = true;
  return PIO_NOERR;
}

namespace {

int put_held(File& f, Held& h) {
  if (h.refused) return TAPIO_OK;
  Var& v = f.vars[h.var];
  if (h.offsets) {
    const int st = set_map(*f.ios, v.handle, h.offsets);
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

bool written_before(const File& f, const Held& h) {
  return f.vars[h.var].record && h.frame < f.frames;
}

// Every task's held data, agreed in one reduction: whether any task holds frames already
// written (rewritten in place), the last frame held that is not (-1: none), and whether any
// task holds fixed data. On a failed reduction, nothing (every task alike).
struct HeldEverywhere {
  bool rewrites = false;
  int64_t last = -1;
  bool fixed = false;
};
HeldEverywhere agree_held(const File& f) {
  std::vector<int64_t> v = {0, -1, 0};
  for (const Held& h : f.held) {
    if (!f.vars[h.var].record)
      v[2] = 1;
    else if (written_before(f, h))
      v[0] = v[0] || !h.refused;
    else
      v[1] = std::max(v[1], static_cast<int64_t>(h.frame));
  }
  if (!comm::max_all(f.ios->comm, &v)) return {};
  return {v[0] > 0, v[1], v[2] > 0};
}

// Drops what the steps up to `last` wrote.
void drop_written(File& f, int64_t last, bool fixed_written) {
  auto written = [&](const Held& h) {
    return f.vars[h.var].record ? static_cast<int64_t>(h.frame) <= last : fixed_written;
  };
  f.held.erase(std::remove_if(f.held.begin(), f.held.end(), written), f.held.end());
}

// The element offsets of a held box in one record of its variable.
std::vector<uint64_t> box_offsets(const File& f, const Held& h) {
  return tapio_pio::box_offsets(record_shape(f, f.vars[h.var]), h.start.data(), h.count.data(),
                                nullptr);
}

}  // namespace

// Held data the file already has room for, written in place in a NetCDF file
// (pio_netcdf_file.h), every task its own; a subfile dataset keeps each step as written
// (PIO_EINVAL).
int write_in_place(File& f, bool (*which)(const File&, const Held&), const char* call) {
  std::vector<netcdf_file::Piece> pieces;
  std::vector<std::vector<uint64_t>> boxes;
  std::string var;
  for (const Held& h : f.held)
    if (which(f, h) && !h.refused) {
      var = f.vars[h.var].name;
      if (!h.offsets) boxes.push_back(box_offsets(f, h));
    }
  size_t box = 0;
  for (const Held& h : f.held)
    if (which(f, h) && !h.refused)
      pieces.push_back({f.vars[h.var].name, h.frame, h.offsets ? h.offsets.get() : &boxes[box++],
                        h.memtype, h.data.data()});
  int code = close_reader(f, call);  // it may hold what is rewritten
  std::string why;
  if (code == PIO_NOERR && !pieces.empty()) {
    if (f.engine_name != "collective") {
      code = PIO_EINVAL;
      why = "a frame already written is written again, which a subfile dataset does not take";
    } else {
      why = netcdf_file::write(f.path, pieces);
      code = why.empty() ? PIO_NOERR : PIO_EIO;
    }
  }
  code = agree(*f.ios, code, std::string(call) + ": " + where(f) + ", variable '" + var + "': " + why);
  f.held.erase(std::remove_if(f.held.begin(), f.held.end(), [&](const Held& h) { return which(f, h); }),
               f.held.end());
  return code;
}

int flush(File& f, const char* call, Flush how, bool* fixed_left) {
  if (fixed_left) *fixed_left = false;
  if (f.redefined)
    if (int st = recreate(f, call)) return st;
  const HeldEverywhere held = agree_held(f);
  if (held.rewrites)
    if (int st = write_in_place(f, written_before, call)) return st;
  int64_t last = held.last;
  const bool fixed = held.fixed;
  // A sync writes the frames before the newest one held: the program may still write other
  // variables of the newest frame. A read and a close write everything; fixed data goes with
  // the first step written, or, with none to write at a close, in place after it (a NetCDF
  // file: no frame of fill values is added for it).
  const bool closing = how != Flush::kSync;
  if (!closing) --last;
  if (!f.engine && (closing || last >= static_cast<int64_t>(f.frames)))
    if (int st = open_for_writing(f, call)) return st;
  if (fixed && (how == Flush::kRead || (how == Flush::kClose && f.engine_name != "collective")))
    last = std::max(last, static_cast<int64_t>(f.frames));
  if (last >= static_cast<int64_t>(f.frames))
    if (int st = close_reader(f, call)) return st;  // it would not see the new frames
  int st = TAPIO_OK;
  bool fixed_now = fixed;
  int64_t frame = static_cast<int64_t>(f.frames);
  for (; st == TAPIO_OK && frame <= last; ++frame) {
    st = write_step(f, static_cast<uint64_t>(frame), fixed_now);
    fixed_now = false;
    if (st == TAPIO_OK) f.frames = static_cast<uint64_t>(frame) + 1;
  }
  if (st != TAPIO_OK) {
    f.held.clear();  // the failed step is not committed; earlier frames stay
    return tapio_fail(f, st, call);
  }
  drop_written(f, last, fixed && !fixed_now);
  if (fixed_left) *fixed_left = fixed_now;
  return PIO_NOERR;
}

}  // namespace tapio_pio

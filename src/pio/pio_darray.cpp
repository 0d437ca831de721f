// Distributed arrays: frames, write_darray (held until the file's next flush, docs/pio.md)
// and read_darray, each through a decomposition's offsets.
#include <cstring>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// Whether v has one dimension more than d: the first, which frames index (the record
// dimension, or a fixed one: PIO's frames work on both).
bool framed(const Var& v, const Decomp& d) { return v.dimids.size() == d.gdims.size() + 1; }

// setframe's frame (0 if never set).
uint64_t frame_of(const Var& v) { return v.frame > 0 ? static_cast<uint64_t>(v.frame) : 0; }

std::string on(const File& f, const Var& v, const Decomp& d) {
  return where(f, v) + ", decomposition " + std::to_string(d.id);
}

// The checks of a darray call's ids and shapes, which write_darray and read_darray share:
// file, access, decomposition, variable, shape. The same answer on every task given the same
// arguments.
int darray_ids(int ncid, int varid, int ioid, bool write, File** f, Var** v, Decomp** d,
               const char* call) {
  if (int st = lookup(ncid, f, call)) return st;
  if (write && !(*f)->writable)
    return fail((*f)->ios, PIO_EPERM, std::string(call) + ": " + where(**f) + " is read-only");
  *d = find_decomp(ioid);
  if (!*d || (*d)->iosysid != (*f)->ios->id)
    return fail((*f)->ios, PIO_EBADID, std::string(call) + ": " + where(**f) +
                ": no decomposition " + std::to_string(ioid));
  if (int st = lookup_var(ncid, varid, f, v, call)) return st;
  const size_t first = framed(**v, **d) ? 1 : 0;
  bool same = (*v)->dimids.size() - first == (*d)->gdims.size() && (first || !(*v)->record);
  for (size_t i = 0; same && i < (*d)->gdims.size(); ++i)
    same = (*f)->dims[(*v)->dimids[first + i]].len == static_cast<uint64_t>((*d)->gdims[i]);
  if (!same)
    return fail((*f)->ios, PIO_EINVAL, std::string(call) + ": " + on(**f, **v, **d) +
                ": the decomposition's global shape is not the variable's (without its first, "
                "frame dimension)");
  if (first && !(*v)->record && frame_of(**v) >= (*f)->dims[(*v)->dimids[0]].len)
    return fail((*f)->ios, PIO_EINVAL, std::string(call) + ": " + on(**f, **v, **d) +
                ": frame " + std::to_string(frame_of(**v)) + " is beyond dimension '" +
                (*f)->dims[(*v)->dimids[0]].name + "'");
  return PIO_NOERR;
}

// A short array is one task's own mistake: each task's map has its own length.
int short_array(const File& f, const Var& v, const Decomp& d, PIO_Offset arraylen,
                const char* call) {
  if (arraylen >= d.maplen) return PIO_NOERR;
  return fail(f.ios, PIO_EINVAL, std::string(call) + ": " + on(f, v, d) + ": the array holds " +
              std::to_string(arraylen) + " elements but the decomposition maps " +
              std::to_string(d.maplen));
}

// What only this task can get wrong in a write: its array (length, NULL) and its map (an
// element twice). A write is collective (a flush over the buffer limit), so the caller still
// takes part, its darray held empty, and returns this after.
int this_tasks_array(const File& f, const Var& v, const Decomp& d, PIO_Offset arraylen,
                     const void* array, const char* call) {
  if (int st = short_array(f, v, d, arraylen, call)) return st;
  if (!array && d.maplen > 0)
    return fail(f.ios, PIO_EINVAL, std::string(call) + ": " + where(f, v) + ": NULL array");
  if (d.duplicates)
    return fail(f.ios, PIO_EINVAL, std::string(call) + ": " + on(f, v, d) +
                ": the decomposition maps an element twice (a decomposition for reading)");
  return PIO_NOERR;
}

// The offsets a darray of v goes to: the decomposition's (or its holes'), in frame's slice of
// a fixed variable whose first dimension the frames index.
std::shared_ptr<const std::vector<uint64_t>> offsets_in(
    const Var& v, const Decomp& d, const std::shared_ptr<const std::vector<uint64_t>>& offsets,
    uint64_t frame) {
  if (v.record || !framed(v, d) || frame == 0) return offsets;
  uint64_t slice = 1;
  for (int n : d.gdims) slice *= static_cast<uint64_t>(n);
  auto shifted = std::make_shared<std::vector<uint64_t>>(*offsets);
  for (uint64_t& o : *shifted) o += frame * slice;
  return shifted;
}

// Holds one variable's darray (the decomposition's type in memory) for the next flush; a
// darray this task refused is held empty, counted against the buffer limit but not written.
void hold(File& f, int varid, Decomp& d, const void* array, int64_t frame, bool refused) {
  const Var& v = f.vars[varid];
  const uint64_t at = frame >= 0 ? static_cast<uint64_t>(frame) : frame_of(v);
  // A set_fill after the engine opened changes nothing it writes: ask what it was opened with.
  const bool fills = f.engine ? f.engine_fills : tapio_fills(f);
  Held h;
  h.var = varid;
  h.frame = v.record ? at : 0;
  h.memtype = to_tapio(d.type);
  // Counted on every task alike, whether or not it holds holes (flush_over_limit).
  h.most_bytes = most_bytes(*f.ios, d);  // agrees d.most_holes too, the first time
  if (!fills) h.most_bytes += d.most_holes * static_cast<int64_t>(type_size(v.type));
  h.refused = refused;
  if (!refused) {
    h.offsets = offsets_in(v, d, d.offsets, at);
    const size_t size = type_size(d.type);
    h.data.resize(d.offsets->size() * size);
    const auto* in = static_cast<const unsigned char*>(array);
    if (d.held_at.empty()) {
      if (!h.data.empty()) std::memcpy(h.data.data(), in, h.data.size());
    } else {
      for (size_t i = 0; i < d.held_at.size(); ++i)  // leave the holes out
        std::memcpy(h.data.data() + i * size, in + d.held_at[i] * size, size);
    }
  }
  f.held.push_back(std::move(h));
  if (fills || !d.holes || d.holes->empty()) return;
  Held fill;  // the file leaves the holes unwritten: this task's share of them, as PIO fills
  fill.var = varid;
  fill.frame = v.record ? at : 0;
  fill.offsets = offsets_in(v, d, d.holes, at);
  fill.memtype = to_tapio(v.type);
  const size_t vsize = type_size(v.type);
  fill.data.resize(d.holes->size() * vsize);
  fill_value(v, fill.data.data());
  for (size_t i = 1; i < d.holes->size(); ++i)
    std::memcpy(fill.data.data() + i * vsize, fill.data.data(), vsize);
  f.held.push_back(std::move(fill));
}

// write_darray is collective: when the darrays held may take more than the buffer limit on
// some task, every task syncs (the frames before the newest go to disk). Every task holds the
// same darrays, each counted at its decomposition's most bytes, so each decides the same
// without a message.
int flush_over_limit(File& f, const char* call) {
  int64_t bytes = 0;
  for (const Held& h : f.held) bytes += h.most_bytes;
  return bytes > buffer_limit() ? flush(f, call, Flush::kSync) : PIO_NOERR;
}

// A darray read packed (the decomposition's held elements) into the program's array.
}  // namespace

void unpack(const Decomp& d, const unsigned char* packed, void* array) {
  auto* out = static_cast<unsigned char*>(array);
  const size_t size = type_size(d.type);
  if (d.held_at.empty()) {
    if (!d.offsets->empty()) std::memcpy(out, packed, d.offsets->size() * size);
    return;
  }
  for (size_t i = 0; i < d.held_at.size(); ++i)
    std::memcpy(out + d.held_at[i] * size, packed + i * size, size);
}

namespace {

int tapio_error(const File& f, const Var& v, const Decomp& d, int st, const char* call) {
  return fail(f.ios, from_tapio(st), std::string(call) + ": " + on(f, v, d) + ": " +
              tapio_last_error());
}

}  // namespace

// One agreement, at the first darray call of d that needs it (every task makes the same calls
// in the same order), none after.
int64_t most_bytes(const IoSystem& ios, Decomp& d) {
  if (d.most_bytes < 0) {
    d.most_bytes = comm::max_all(ios.comm, static_cast<int64_t>(d.offsets->size() *
                                                                type_size(d.type)));
    d.most_holes = comm::max_all(ios.comm, static_cast<int64_t>(d.holes ? d.holes->size() : 0));
  }
  return d.most_bytes;
}

}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_setframe(int ncid, int varid, int frame) {
  File* f = nullptr;
  Var* v = nullptr;
  if (int st = lookup_var(ncid, varid, &f, &v, "PIOc_setframe")) return st;
  if (frame < 0)
    return fail(f->ios, PIO_EINVAL, "PIOc_setframe: " + where(*f, *v) + ": frame " +
                std::to_string(frame) + " < 0");
  v->frame = frame;
  return PIO_NOERR;
}

int PIOc_advanceframe(int ncid, int varid) {
  File* f = nullptr;
  Var* v = nullptr;
  if (int st = lookup_var(ncid, varid, &f, &v, "PIOc_advanceframe")) return st;
  v->frame = v->frame < 0 ? 1 : v->frame + 1;  // an unset frame counts as 0
  return PIO_NOERR;
}

int PIOc_write_darray(int ncid, int varid, int ioid, PIO_Offset arraylen, void* array,
                      void* /*fillvalue: holes read as the variable's fill value*/) {
  File* f = nullptr;
  Var* v = nullptr;
  Decomp* d = nullptr;
  if (int st = darray_ids(ncid, varid, ioid, true, &f, &v, &d, "PIOc_write_darray")) return st;
  const int local = this_tasks_array(*f, *v, *d, arraylen, array, "PIOc_write_darray");
  hold(*f, varid, *d, array, -1, local != PIO_NOERR);
  const int flushed = flush_over_limit(*f, "PIOc_write_darray");
  return local != PIO_NOERR ? local : flushed;
}

int PIOc_write_darray_multi(int ncid, const int* varids, int ioid, int nvars,
                            PIO_Offset arraylen, void* array, const int* frame,
                            void** /*fillvalue*/, bool flushtodisk) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_write_darray_multi")) return st;
  if (!varids || nvars < 1)
    return fail(f->ios, PIO_EINVAL, "PIOc_write_darray_multi: " + where(*f) +
                ": nvars >= 1 and varids are needed");
  int local = PIO_NOERR;
  for (int i = 0; i < nvars; ++i) {  // all checked before any is held
    Var* v = nullptr;
    Decomp* d = nullptr;
    if (int st = darray_ids(ncid, varids[i], ioid, true, &f, &v, &d, "PIOc_write_darray_multi"))
      return st;
    const Var& v0 = f->vars[varids[0]];
    if (v->record != v0.record || v->dimids != v0.dimids)
      return fail(f->ios, PIO_EVARDIMMISMATCH, "PIOc_write_darray_multi: " + where(*f, *v) +
                  ": its dimensions are not those of variable '" + v0.name + "'");
    if (local == PIO_NOERR)
      local = this_tasks_array(*f, *v, *d, arraylen, array, "PIOc_write_darray_multi");
  }
  Decomp& d = *find_decomp(ioid);
  const auto* bytes = static_cast<const unsigned char*>(array);
  for (int i = 0; i < nvars; ++i)
    hold(*f, varids[i], d, bytes + i * arraylen * type_size(d.type), frame ? frame[i] : -1,
         local != PIO_NOERR);
  const int flushed = flushtodisk ? flush(*f, "PIOc_write_darray_multi", Flush::kSync)
                                  : flush_over_limit(*f, "PIOc_write_darray_multi");
  return local != PIO_NOERR ? local : flushed;
}

// A record of a darray: write_darray (held until the next flush) and read_darray at `recnum`.
int PIOc_put_vard(int ncid, int varid, int decompid, const PIO_Offset recnum, const void* buf) {
  if (int st = PIOc_setframe(ncid, varid, static_cast<int>(recnum))) return st;
  Decomp* d = find_decomp(decompid);
  return PIOc_write_darray(ncid, varid, decompid, d ? d->maplen : 0, const_cast<void*>(buf),
                           nullptr);
}

int PIOc_get_vard(int ncid, int varid, int decompid, const PIO_Offset recnum, void* buf) {
  if (int st = PIOc_setframe(ncid, varid, static_cast<int>(recnum))) return st;
  Decomp* d = find_decomp(decompid);
  return PIOc_read_darray(ncid, varid, decompid, d ? d->maplen : 0, buf);
}

int PIOc_read_darray(int ncid, int varid, int ioid, PIO_Offset arraylen, void* array) {
  File* f = nullptr;
  Var* v = nullptr;
  Decomp* d = nullptr;
  if (int st = darray_ids(ncid, varid, ioid, false, &f, &v, &d, "PIOc_read_darray")) return st;
  // The read is collective: a task whose array is short still takes part, reading nothing
  // into it, so that the others are not left waiting, then returns its error.
  const int local = short_array(*f, *v, *d, arraylen, "PIOc_read_darray");
  const auto offsets = offsets_in(*v, *d, d->offsets, frame_of(*v));
  if (read_ahead(*f, varid, *d, frame_of(*v), offsets, local == PIO_NOERR, array)) return local;
  tapio_engine* engine = nullptr;
  tapio_var* handle = nullptr;
  if (int st = reading(*f, *v, &engine, &handle, "PIOc_read_darray")) return st;
  if (local != PIO_NOERR) {
    tapio_perform_gets(engine);
    return local;
  }
  void* into = array;
  std::vector<unsigned char> packed;
  if (!d->held_at.empty()) {
    packed.resize(d->offsets->size() * type_size(d->type));
    into = packed.data();
  }
  int st = set_map(*f->ios, handle, offsets);
  if (st == TAPIO_OK && v->record) st = tapio_var_set_step_selection(handle, frame_of(*v), 1);
  if (st == TAPIO_OK) st = tapio_get(engine, handle, to_tapio(d->type), into);
  // A local error still enters perform_gets (collective), which then fails on every task.
  if (st != TAPIO_OK) {
    tapio_error(*f, *v, *d, st, "PIOc_read_darray");
    tapio_perform_gets(engine);
    return from_tapio(st);
  }
  st = tapio_perform_gets(engine);
  if (st != TAPIO_OK) return tapio_error(*f, *v, *d, st, "PIOc_read_darray");
  if (into != array) unpack(*d, packed.data(), array);
  return PIO_NOERR;
}

}  // extern "C"

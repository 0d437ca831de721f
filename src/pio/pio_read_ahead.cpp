// Read-ahead of darrays in files open read-only (docs/pio.md, "Reading"). PIO programs read a
// restart file darray by darray, and each read_darray is a collective read; here the first read
// of a frame also reads that frame of the variables after it with its dimensions, in one batch,
// so that n such variables cost one collective read per frame instead of n. A program that
// reads frame after frame (its last miss was the previous frame of the same variable) gets
// the frames after it read too, as many as the buffer limit allows.
#include <algorithm>
#include <iterator>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// v's frame through the decomposition whose offsets are `base`, taken out of the read-ahead
// and unpacked into `array` (when `into`); false if it is not there.
bool take(File& f, int varid, uint64_t frame, const Decomp& d, bool into, void* array) {
  auto it = std::find_if(f.read_ahead.begin(), f.read_ahead.end(), [&](const ReadAhead& r) {
    return r.var == varid && r.frame == frame && r.offsets.get() == d.offsets.get();
  });
  if (it == f.read_ahead.end()) return false;
  if (into) unpack(d, it->at, array);
  f.read_ahead.erase(it);  // the last frame taken frees its batch's buffer
  return true;
}

// v, then the variables after it with its dimensions and type (a decomposition has a type:
// PIO programs read variables of another type through another), while the darrays fit the
// buffer limit on every task (`bytes`: the most one holds on any task).
std::vector<int> batch_of(const File& f, int varid, int64_t bytes) {
  std::vector<int> out{varid};
  const Var& v = f.vars[varid];
  for (size_t w = varid + 1; w < f.vars.size(); ++w) {
    if (static_cast<int64_t>(out.size() + 1) * bytes > buffer_limit()) break;
    if (f.vars[w].dimids == v.dimids && f.vars[w].type == v.type)
      out.push_back(static_cast<int>(w));
  }
  return out;
}

// The frames to read from `frame` on: 1, or, when the last miss was the frame before of the
// same record variable, up to the file's last frame while `darrays` of each fit the limit.
uint64_t frames_ahead(const File& f, int varid, uint64_t frame, size_t darrays, int64_t bytes) {
  const bool sequential = f.read_ahead_var == varid && f.read_ahead_frame + 1 == frame;
  if (!sequential || !f.vars[varid].record || frame >= f.frames) return 1;
  const int64_t per_frame = std::max<int64_t>(1, static_cast<int64_t>(darrays) * bytes);
  return std::clamp<uint64_t>(static_cast<uint64_t>(buffer_limit() / per_frame), 1,
                              f.frames - frame);
}

}  // namespace

bool read_ahead(File& f, int varid, Decomp& d, uint64_t frame,
                const std::shared_ptr<const std::vector<uint64_t>>& offsets, bool unpack_into,
                void* array) {
  if (f.writable) return false;
  if (take(f, varid, frame, d, unpack_into, array)) return true;
  const size_t bytes = d.offsets->size() * type_size(d.type);
  const int64_t most = most_bytes(*f.ios, d);
  const std::vector<int> batch = batch_of(f, varid, most);
  const uint64_t frames = frames_ahead(f, varid, frame, batch.size(), most);
  f.read_ahead_var = varid;
  f.read_ahead_frame = frame;
  if (batch.size() * frames < 2) return false;
  f.read_ahead.clear();  // a miss: the program has moved on
  // One get per variable over its frames (step after step in its buffer), into memory left
  // uninitialised: the read fills all of it, and a whole batch zeroed first costs a pass.
  std::vector<std::shared_ptr<unsigned char[]>> got(batch.size());
  int st = TAPIO_OK;
  for (size_t i = 0; i < batch.size(); ++i) {
    Var& w = f.vars[batch[i]];
    got[i].reset(new unsigned char[std::max<size_t>(frames * bytes, 1)]);  // never NULL
    if (st == TAPIO_OK) st = set_map(*f.ios, w.handle, offsets);
    if (st == TAPIO_OK && w.record) st = tapio_var_set_step_selection(w.handle, frame, frames);
    if (st == TAPIO_OK) st = tapio_get(f.engine, w.handle, to_tapio(d.type), got[i].get());
  }
  const int done = tapio_perform_gets(f.engine);  // collective, even after a local error
  const bool ok = st == TAPIO_OK && done == TAPIO_OK;
  if (comm::min_all(f.ios->comm, ok ? 0 : -1, -1) < 0) return false;
  for (size_t i = 0; i < batch.size(); ++i)
    for (uint64_t k = 0; k < frames; ++k) {
      const unsigned char* at = got[i].get() + k * bytes;
      if (i == 0 && k == 0) {
        if (unpack_into) unpack(d, at, array);
      } else {
        f.read_ahead.push_back({batch[i], frame + k, d.offsets, got[i], at});
      }
    }
  return true;
}

}  // namespace tapio_pio

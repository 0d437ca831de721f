// Read-ahead of darrays in files open read-only (docs/pio.md, "Reading"). PIO programs read a
// restart file darray by darray, and each read_darray is a collective read; here the first read
// of a frame also reads that frame of the variables after it with its dimensions, in one batch,
// so that n such variables cost one collective read per frame instead of n.
#include <algorithm>
#include <iterator>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// v's frame through the decomposition whose offsets are `base`, moved out of the read-ahead
// into *packed; false if it is not there.
bool take(File& f, int varid, uint64_t frame, const std::vector<uint64_t>* base,
          std::vector<unsigned char>* packed) {
  auto it = std::find_if(f.read_ahead.begin(), f.read_ahead.end(), [&](const ReadAhead& r) {
    return r.var == varid && r.frame == frame && r.offsets.get() == base;
  });
  if (it == f.read_ahead.end()) return false;
  *packed = std::move(it->data);
  f.read_ahead.erase(it);
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

}  // namespace

bool read_ahead(File& f, int varid, Decomp& d, uint64_t frame,
                const std::shared_ptr<const std::vector<uint64_t>>& offsets,
                std::vector<unsigned char>* packed) {
  if (f.writable) return false;
  const size_t bytes = d.offsets->size() * type_size(d.type);
  if (take(f, varid, frame, d.offsets.get(), packed)) {
    packed->resize(bytes);
    return true;
  }
  const std::vector<int> batch = batch_of(f, varid, most_bytes(*f.ios, d));
  if (batch.size() < 2) return false;
  f.read_ahead.clear();  // a miss: the program has moved on
  std::vector<ReadAhead> read(batch.size());
  int st = TAPIO_OK;
  for (size_t i = 0; i < batch.size(); ++i) {
    Var& w = f.vars[batch[i]];
    read[i].var = batch[i];
    read[i].frame = frame;
    read[i].offsets = d.offsets;
    read[i].data.resize(std::max<size_t>(bytes, 1));  // a task holding nothing: not NULL
    if (st == TAPIO_OK) st = tapio_var_set_offsets(w.handle, offsets->size(), offsets->data());
    if (st == TAPIO_OK && w.record) st = tapio_var_set_step_selection(w.handle, frame, 1);
    if (st == TAPIO_OK)
      st = tapio_get(f.engine, w.handle, to_tapio(d.type), read[i].data.data());
  }
  const int done = tapio_perform_gets(f.engine);  // collective, even after a local error
  const bool ok = st == TAPIO_OK && done == TAPIO_OK;
  if (comm::min_all(f.ios->comm, ok ? 0 : -1, -1) < 0) return false;
  *packed = std::move(read[0].data);
  packed->resize(bytes);
  f.read_ahead.assign(std::make_move_iterator(read.begin() + 1),
                      std::make_move_iterator(read.end()));
  return true;
}

}  // namespace tapio_pio

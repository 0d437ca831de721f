// phdf5: Debian's parallel HDF5 for Open MPI (found by pkg-config hdf5-openmpi), one HDF5 file
// PATTERN.phdf5.h5 per run. Per variable one dataset of shape (time, pattern shape...): `time`
// unlimited, chunked one record per chunk (split along the first non-time dimensions when a
// record exceeds 1 GiB) or by the pattern's chunk shape (selection: one block), no fill; each step extends `time` by one (H5Dset_extent, collective)
// and writes the record with a collective H5Dwrite (H5FD_MPIO_COLLECTIVE). A piece that is one
// box is one hyperslab (and a memory space of the same shape); irregular pieces (e3sm, hpio,
// matrix cyclic) are a union of hyperslabs (H5S_SELECT_OR) over the runs cut at rows, regular
// repeats folded into strided hyperslabs (Slabs); memory with gaps is likewise a union over the
// buffer. Metadata reads and writes are collective. fsync: H5Fflush (global), which makes the
// MPI-IO driver call MPI_File_sync. Read back through HDF5 with the pattern's read pieces.
// Joined variables (particles) are a group per step instead, a dataset per variable of the
// step's length (write_joined_step).
// Storage requests and bytes of the write are inside HDF5/MPI-IO: "n/a"; those of the read are
// the process's read system calls (ReadSyscalls).
#include "registry.h"

#ifdef TAPIO_BENCH_HAVE_PHDF5
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>

namespace bench {
namespace {

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) throw BenchError("HDF5: " + what + " failed");
  return id;
}

// Closes an HDF5 handle with the given function at scope exit.
struct Handle {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id >= 0) close(id);
  }
  operator hid_t() const { return id; }
};

// A regular hyperslab (start, stride, count, block per dimension).
struct Slab {
  std::vector<hsize_t> start, stride, count, block;
};

// Row boxes (count 1 in every dimension but the last) as few regular hyperslabs: boxes of one
// row with equal length and equal spacing become one strided slab, and such slabs repeated on
// consecutive rows (second-to-last dimension) become one 2-level slab. The union is the same set
// (HDF5 orders a selection by position, whatever the order of its parts), but building a union
// of thousands of hyperslabs costs HDF5 far more than a few regular ones (hpio, matrix cyclic).
class Slabs {
 public:
  void add(const std::vector<hsize_t>& s, const std::vector<hsize_t>& c) {
    const size_t nd = s.size(), l = nd - 1;
    if (!rows_.empty()) {
      Slab& a = rows_.back();
      bool row = a.block[l] == c[l] && std::equal(s.begin(), s.end() - 1, a.start.begin());
      for (size_t k = 0; row && k < l; ++k) row = c[k] == 1;
      if (row && a.count[l] == 1 && s[l] >= a.start[l] + a.block[l]) {
        a.stride[l] = s[l] - a.start[l];
        a.count[l] = 2;
        return;
      }
      if (row && a.count[l] > 1 && s[l] == a.start[l] + a.count[l] * a.stride[l]) {
        ++a.count[l];
        return;
      }
    }
    rows_.push_back({s, std::vector<hsize_t>(nd, 1), std::vector<hsize_t>(nd, 1), c});
  }
  void select(hid_t space) const {
    std::vector<Slab> out;
    for (const Slab& r : rows_) {
      const size_t nd = r.start.size();
      if (nd >= 2 && !out.empty()) {
        Slab& a = out.back();
        bool same = a.start[nd - 2] + a.count[nd - 2] == r.start[nd - 2] && a.block[nd - 2] == 1;
        for (size_t k = 0; same && k < nd; ++k)
          if (k != nd - 2)
            same = a.start[k] == r.start[k] && a.count[k] == r.count[k] &&
                   a.block[k] == r.block[k] && (a.count[k] == 1 || a.stride[k] == r.stride[k]);
        if (same && r.count[nd - 2] == 1 && r.block[nd - 2] == 1) {
          ++a.count[nd - 2];
          continue;
        }
      }
      out.push_back(r);
    }
    bool first = true;
    for (const Slab& x : out) {
      check(H5Sselect_hyperslab(space, first ? H5S_SELECT_SET : H5S_SELECT_OR, x.start.data(),
                                x.stride.data(), x.count.data(), x.block.data()), "select_hyperslab");
      first = false;
    }
    if (first) check(H5Sselect_none(space), "select_none");
  }

 private:
  std::vector<Slab> rows_;
};

// The piece's elements as a selection of the file space (lead..., shape...): lead holds the
// indices before the variable's own, the record {step} or none (a dataset per step).
void select_file(hid_t space, const Dims& shape, const Piece& pc,
                 const std::vector<hsize_t>& lead) {
  const size_t nl = lead.size(), nd = nl + shape.size();
  std::vector<hsize_t> start(lead), count(nd, 1);
  start.resize(nd);
  Slabs slabs;
  auto add = [&](const Dims& s, const Dims& c) {
    for (size_t k = nl; k < nd; ++k) start[k] = s[k - nl], count[k] = c[k - nl];
    slabs.add(start, count);
  };
  if (pc.elements == 0) {
    check(H5Sselect_none(space), "select_none");
    return;
  }
  if (pc.boxes.size() == 1) {
    add(pc.boxes[0].start, pc.boxes[0].count);
  } else {  // several boxes too: their rows fold into few strided slabs where regular
    for (size_t r = 0; r < pc.offsets.size(); ++r)
      run_boxes(shape, pc.offsets[r], pc.lengths[r], add);
  }
  slabs.select(space);
}

// The piece's buffer as a memory space: one box has the file selection's shape (1, count...),
// which lets HDF5 map it to chunks by whole hyperslabs instead of element by element; other
// pieces are 1-D, contiguous or the runs over the gapped buffer.
hid_t mem_space(const Piece& pc) {
  if (pc.boxes.size() == 1 && pc.elements > 0) {
    std::vector<hsize_t> dims = {1};
    for (uint64_t c : pc.boxes[0].count) dims.push_back(c);
    return check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                 "create memory space");
  }
  hsize_t n = std::max<hsize_t>(pc.mem_elements, 1);
  hid_t space = check(H5Screate_simple(1, &n, nullptr), "create memory space");
  if (pc.elements == 0) {
    H5Sselect_none(space);
  } else if (!pc.mem_contiguous()) {
    Slabs slabs;
    for (size_t r = 0; r < pc.offsets.size(); ++r) slabs.add({pc.mem_offsets[r]}, {pc.lengths[r]});
    slabs.select(space);
  }
  return space;
}

// HDF5 pairs elements in selection order (row-major in each space): memory runs must ascend
// with the file runs, which the pieces guarantee once boxes that interleave their rows are
// packed into run order (write); check rather than write wrong values.
void check_order(const Piece& pc) {
  for (size_t r = 1; r < pc.offsets.size(); ++r)
    if (pc.mem_offsets[r] < pc.mem_offsets[r - 1] || pc.offsets[r] < pc.offsets[r - 1])
      throw BenchError("phdf5: a piece whose runs do not ascend in memory and file");
}

// A variable's chunk (time, shape...): the pattern's chunk shape (selection: one block per chunk,
// as an h5py user chunks data written in blocks), else one record, halved along leading
// dimensions until it is <= 1 GiB (HDF5 chunks are < 4 GiB).
std::vector<hsize_t> chunk_dims(const Pattern& p, int v) {
  std::vector<hsize_t> chunk = {1};
  if (const std::optional<Dims> c = p.chunk(v)) {
    chunk.insert(chunk.end(), c->begin(), c->end());
    return chunk;
  }
  uint64_t bytes = 8;
  for (uint64_t n : p.vars()[v].shape) {
    chunk.push_back(std::max<uint64_t>(n, 1));
    bytes *= std::max<uint64_t>(n, 1);
  }
  for (size_t k = 1; k < chunk.size() && bytes > (1ull << 30); ++k)
    while (chunk[k] > 1 && bytes > (1ull << 30)) {
      bytes = bytes / chunk[k] * ((chunk[k] + 1) / 2);
      chunk[k] = (chunk[k] + 1) / 2;
    }
  return chunk;
}

hid_t fapl(const RunConfig& cfg) {
  hid_t p = check(H5Pcreate(H5P_FILE_ACCESS), "fapl");
  check(H5Pset_fapl_mpio(p, cfg.comm, MPI_INFO_NULL), "set_fapl_mpio");
  check(H5Pset_all_coll_metadata_ops(p, true), "set_all_coll_metadata_ops");
  check(H5Pset_coll_metadata_write(p, true), "set_coll_metadata_write");
  return p;
}

hid_t collective_dxpl() {
  hid_t p = check(H5Pcreate(H5P_DATASET_XFER), "dxpl");
  check(H5Pset_dxpl_mpio(p, H5FD_MPIO_COLLECTIVE), "set_dxpl_mpio");
  return p;
}

// Per variable one dataset (time, shape...), extended by one record per step.
void write_records(const Pattern& p, const StepData& data, hid_t file, hid_t dx) {
  std::vector<hid_t> dsets;
  struct Closer {
    std::vector<hid_t>& d;
    ~Closer() {
      for (hid_t id : d) H5Dclose(id);
    }
  } closer{dsets};
  for (size_t i = 0; i < p.vars().size(); ++i) {
    const Var& v = p.vars()[i];
    std::vector<hsize_t> cur = {0}, max = {H5S_UNLIMITED};
    for (uint64_t n : v.shape) cur.push_back(n), max.push_back(n);
    const std::vector<hsize_t> chunk = chunk_dims(p, static_cast<int>(i));
    Handle space(check(H5Screate_simple(static_cast<int>(cur.size()), cur.data(), max.data()),
                       "create space"), H5Sclose);
    Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "dcpl"), H5Pclose);
    check(H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()), "set_chunk");
    check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "set_fill_time");
    check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "set_alloc_time");
    dsets.push_back(check(H5Dcreate2(file, v.name.c_str(), H5T_NATIVE_DOUBLE, space,
                                     H5P_DEFAULT, dcpl, H5P_DEFAULT), "create dataset " + v.name));
  }
  // One H5Dwrite per variable and step: a piece whose boxes interleave their rows (blocks side
  // by side, each whole in memory) is packed into run order first (timed), since HDF5 pairs
  // memory and file elements in order.
  std::vector<Piece> pieces;
  std::vector<hid_t> mspaces;
  struct SpaceCloser {
    std::vector<hid_t>& s;
    ~SpaceCloser() {
      for (hid_t id : s) H5Sclose(id);
    }
  } sc{mspaces};
  for (size_t v = 0; v < dsets.size(); ++v) {
    const Piece& pc = p.write_piece(static_cast<int>(v));
    pieces.push_back(pc.mem_in_run_order ? pc : packed(pc));
    check_order(pieces.back());
    mspaces.push_back(mem_space(pieces.back()));
  }
  std::vector<double> staging;
  for (uint64_t s = 0; s < p.steps(); ++s)
    for (size_t v = 0; v < dsets.size(); ++v) {
      const Var& var = p.vars()[v];
      const Piece& pc = p.write_piece(static_cast<int>(v));
      const double* buf = data[s][v].data();
      if (!pc.mem_in_run_order) {
        staging.resize(pc.elements);
        pack(pc, buf, staging.data());
        buf = staging.data();
      }
      std::vector<hsize_t> ext = {s + 1};
      for (uint64_t n : var.shape) ext.push_back(n);
      check(H5Dset_extent(dsets[v], ext.data()), "set_extent " + var.name);
      Handle fs(check(H5Dget_space(dsets[v]), "get_space"), H5Sclose);
      select_file(fs, var.shape, pieces[v], {s});
      check(H5Dwrite(dsets[v], H5T_NATIVE_DOUBLE, mspaces[v], fs, dx, buf), "write " + var.name);
    }
}

// Joined variables: a group per step holding a dataset per variable of the step's length (as
// openPMD's HDF5 files hold an iteration per group), contiguous, no fill; each rank's rows a
// hyperslab at the offset an exscan gives (joined_rows), one collective H5Dwrite each.
void write_joined_step(const RunConfig& cfg, const Pattern& p, uint64_t s,
                       const std::vector<std::vector<double>>& data, hid_t file, hid_t dx) {
  const JoinedRows j = joined_rows(cfg.comm, p, s);
  Handle group(check(H5Gcreate2(file, std::to_string(s).c_str(), H5P_DEFAULT, H5P_DEFAULT,
                                H5P_DEFAULT), "create group"), H5Gclose);
  Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "dcpl"), H5Pclose);
  check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "set_fill_time");
  for (size_t v = 0; v < p.vars().size(); ++v) {
    const Var& var = p.vars()[v];
    std::vector<hsize_t> dims = {j.total[v]}, start = {j.offset[v]}, count = {j.count[v]};
    for (size_t k = 1; k < var.shape.size(); ++k)
      dims.push_back(var.shape[k]), start.push_back(0), count.push_back(var.shape[k]);
    Handle fs(check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                    "create space"), H5Sclose);
    Handle ds(check(H5Dcreate2(group, var.name.c_str(), H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, dcpl,
                               H5P_DEFAULT), "create dataset " + var.name), H5Dclose);
    if (j.count[v] > 0)
      check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
            "select_hyperslab");
    else
      check(H5Sselect_none(fs), "select_none");
    Handle ms(mem_space(p.step_write_piece(static_cast<int>(v), s)), H5Sclose);
    check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, dx, data[v].data()), "write " + var.name);
  }
}

// Reads the read steps of joined variables (write_joined_step's layout) with the step's read
// pieces: wrong values, and a dataset whose length is not the step's counts as one.
uint64_t read_joined(const Pattern& p, hid_t file, hid_t dx) {
  uint64_t wrong = 0;
  for (uint64_t s : p.read_steps()) {
    Handle group(check(H5Gopen2(file, std::to_string(s).c_str(), H5P_DEFAULT), "open group"),
                 H5Gclose);
    for (size_t v = 0; v < p.vars().size(); ++v) {
      const Var& var = p.vars()[v];
      const Dims shape = p.step_shape(static_cast<int>(v), s);
      Handle ds(check(H5Dopen2(group, var.name.c_str(), H5P_DEFAULT), "open dataset " + var.name),
                H5Dclose);
      Handle fs(check(H5Dget_space(ds), "get_space"), H5Sclose);
      std::vector<hsize_t> dims(std::max(H5Sget_simple_extent_ndims(fs), 0));
      check(H5Sget_simple_extent_dims(fs, dims.data(), nullptr), "get_simple_extent_dims");
      wrong += dims != std::vector<hsize_t>(shape.begin(), shape.end());
      const Piece rp = packed(p.step_read_piece(static_cast<int>(v), s));
      Handle ms(mem_space(rp), H5Sclose);
      std::vector<double> buf(std::max<uint64_t>(rp.elements, 1));
      select_file(fs, shape, rp, {});
      check(H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, dx, buf.data()), "read " + var.name);
      wrong += count_wrong(rp, static_cast<int>(v), s, buf.data());
    }
  }
  return wrong;
}

class Phdf5 : public Method {
 public:
  Phdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }  // errors become BenchError
  std::string name() const override { return "phdf5"; }
  Availability available(const RunConfig&) override { return {}; }
  bool joins() const override { return true; }

  Counters write(const RunConfig& cfg, const Pattern& p, const StepData& data) override {
    const std::string f = path(cfg, p, ".h5");
    Handle fa(fapl(cfg), H5Pclose);
    Handle file(check(H5Fcreate(f.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fa), "create " + f), H5Fclose);
    Handle dx(collective_dxpl(), H5Pclose);
    if (p.joined())
      for (uint64_t s = 0; s < p.steps(); ++s) write_joined_step(cfg, p, s, data[s], file, dx);
    else
      write_records(p, data, file, dx);
    if (cfg.fsync) check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush");
    return {};
  }

  // The storage reads happen inside HDF5 and MPI-IO: counted as the process's read calls from
  // open to close (ReadSyscalls), which for the tapio engines equal their own profile's counts.
  Counters read_verify(const RunConfig& cfg, const Pattern& p, uint64_t* wrong) override {
    const ReadSyscalls reads;
    *wrong = read_back(cfg, p);
    return reads.total(cfg.comm);
  }

  void remove(const RunConfig& cfg, const Pattern& p) override {
    if (cfg.rank == 0) ::unlink(path(cfg, p, ".h5").c_str());
  }

 private:
  // Opens the file, reads the read steps with the read pieces, closes it: wrong values.
  uint64_t read_back(const RunConfig& cfg, const Pattern& p) {
    const std::string f = path(cfg, p, ".h5");
    Handle fa(fapl(cfg), H5Pclose);
    Handle file(check(H5Fopen(f.c_str(), H5F_ACC_RDONLY, fa), "open " + f), H5Fclose);
    Handle dx(collective_dxpl(), H5Pclose);
    if (p.joined()) return read_joined(p, file, dx);
    uint64_t wrong = 0;
    for (size_t v = 0; v < p.vars().size(); ++v) {
      const Var& var = p.vars()[v];
      Handle ds(check(H5Dopen2(file, var.name.c_str(), H5P_DEFAULT), "open dataset " + var.name), H5Dclose);
      const Piece rp = packed(p.read_piece(static_cast<int>(v)));
      Handle ms(mem_space(rp), H5Sclose);
      std::vector<double> buf(std::max<uint64_t>(rp.elements, 1));
      for (uint64_t s : p.read_steps()) {
        Handle fs(check(H5Dget_space(ds), "get_space"), H5Sclose);
        select_file(fs, var.shape, rp, {s});
        check(H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, dx, buf.data()), "read " + var.name);
        wrong += count_wrong(rp, static_cast<int>(v), s, buf.data());
      }
    }
    return wrong;
  }
};

}  // namespace

std::unique_ptr<Method> make_phdf5() { return std::make_unique<Phdf5>(); }

}  // namespace bench

#else

namespace bench {
std::unique_ptr<Method> make_phdf5() {
  return make_not_built("phdf5",
                        "parallel HDF5 (pkg-config hdf5-openmpi, libhdf5-openmpi-dev) was not "
                        "found at configure time");
}
}  // namespace bench

#endif

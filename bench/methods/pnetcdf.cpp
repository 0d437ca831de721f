// pnetcdf / pnetcdf-nb: Debian's PnetCDF writing the same CDF-5 file (record variables along an
// unlimited `time` dimension). `pnetcdf` uses blocking put_vara_all / put_varn_all; `pnetcdf-nb`
// posts nonblocking iput_varn per variable and wait_all per step. Memory with gaps goes as an
// MPI buffer type (flexible API). Storage requests and bytes are inside PnetCDF/MPI-IO: "n/a".
#include "registry.h"

#ifdef TAPIO_BENCH_HAVE_PNETCDF
#include <pnetcdf.h>
#include <unistd.h>

namespace bench {
namespace {

void check(int rc, const std::string& what) {
  if (rc != NC_NOERR) throw BenchError("PnetCDF: " + what + ": " + ncmpi_strerror(rc));
}

// A piece as PnetCDF start/count lists (its boxes, else its runs cut at rows) with the record
// index in front.
struct Varn {
  std::vector<MPI_Offset> flat;  // starts then counts, nd+1 each
  std::vector<MPI_Offset*> starts, counts;
};

Varn to_varn(const Var& var, const Piece& pc, uint64_t step) {
  Varn v;
  const size_t nd = var.shape.size() + 1;
  std::vector<Box> boxes = pc.boxes;
  if (boxes.empty())
    for (size_t r = 0; r < pc.offsets.size(); ++r)
      run_boxes(var.shape, pc.offsets[r], pc.lengths[r],
                [&](const Dims& s, const Dims& c) { boxes.push_back({s, c}); });
  v.flat.resize(boxes.size() * nd * 2);
  for (size_t b = 0; b < boxes.size(); ++b) {
    MPI_Offset* st = v.flat.data() + b * nd * 2;
    MPI_Offset* ct = st + nd;
    st[0] = static_cast<MPI_Offset>(step);
    ct[0] = 1;
    for (size_t k = 1; k < nd; ++k) {
      st[k] = static_cast<MPI_Offset>(boxes[b].start[k - 1]);
      ct[k] = static_cast<MPI_Offset>(boxes[b].count[k - 1]);
    }
    v.starts.push_back(st);
    v.counts.push_back(ct);
  }
  return v;
}

// The buffer as PnetCDF consumes it, request by request: boxes lie back to back in it.
MPI_Datatype mem_type(const Piece& pc, MPI_Offset* count) {
  if (!pc.boxes.empty() || pc.mem_contiguous()) {
    *count = static_cast<MPI_Offset>(pc.elements);
    return MPI_DOUBLE;
  }
  std::vector<int> len(pc.lengths.begin(), pc.lengths.end());
  std::vector<MPI_Aint> disp(pc.offsets.size());
  for (size_t i = 0; i < disp.size(); ++i) disp[i] = static_cast<MPI_Aint>(pc.mem_offsets[i] * 8);
  MPI_Datatype t;
  MPI_Type_create_hindexed(static_cast<int>(len.size()), len.data(), disp.data(), MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  *count = 1;
  return t;
}

class Pnetcdf : public Method {
 public:
  explicit Pnetcdf(bool nb) : nb_(nb) {}
  std::string name() const override { return nb_ ? "pnetcdf-nb" : "pnetcdf"; }
  Availability available(const RunConfig&) override { return {}; }

  Counters write(const RunConfig& cfg, const Pattern& p, const StepData& data) override {
    int nc;
    const std::string f = path(cfg, p, ".nc");
    check(ncmpi_create(cfg.comm, f.c_str(), NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc), "create " + f);
    check(ncmpi_set_fill(nc, NC_NOFILL, nullptr), "set_fill");
    int time;
    check(ncmpi_def_dim(nc, "time", NC_UNLIMITED, &time), "def_dim time");
    std::vector<int> varids;
    for (const Var& v : p.vars()) {
      std::vector<int> dimids = {time};
      for (size_t k = 0; k < v.shape.size(); ++k) {
        int id;
        if (ncmpi_inq_dimid(nc, v.dims[k].c_str(), &id) != NC_NOERR)
          check(ncmpi_def_dim(nc, v.dims[k].c_str(), static_cast<MPI_Offset>(v.shape[k]), &id),
                "def_dim " + v.dims[k]);
        dimids.push_back(id);
      }
      int id;
      check(ncmpi_def_var(nc, v.name.c_str(), NC_DOUBLE, static_cast<int>(dimids.size()),
                          dimids.data(), &id), "def_var " + v.name);
      varids.push_back(id);
    }
    check(ncmpi_enddef(nc), "enddef");
    for (uint64_t s = 0; s < p.steps(); ++s) {
      std::vector<Varn> keep;
      for (size_t v = 0; v < varids.size(); ++v) {
        const Piece& pc = p.write_piece(static_cast<int>(v));
        keep.push_back(to_varn(p.vars()[v], pc, s));
        Varn& vn = keep.back();
        MPI_Offset bufcount;
        MPI_Datatype t = mem_type(pc, &bufcount);
        void* buf = const_cast<double*>(data[s][v].data());
        const int n = static_cast<int>(vn.starts.size());
        if (nb_) {
          int req;
          check(ncmpi_iput_varn(nc, varids[v], n, vn.starts.data(), vn.counts.data(), buf,
                                bufcount, t, &req), "iput_varn");
        } else {
          check(ncmpi_put_varn_all(nc, varids[v], n, vn.starts.data(), vn.counts.data(), buf,
                                   bufcount, t), "put_varn_all");
        }
        if (t != MPI_DOUBLE) MPI_Type_free(&t);
      }
      if (nb_) check(ncmpi_wait_all(nc, NC_REQ_ALL, nullptr, nullptr), "wait_all");
    }
    if (cfg.fsync) check(ncmpi_sync(nc), "sync");
    check(ncmpi_close(nc), "close");
    return {};
  }

  Counters read_verify(const RunConfig& cfg, const Pattern& p, uint64_t* wrong) override {
    int nc;
    const std::string f = path(cfg, p, ".nc");
    check(ncmpi_open(cfg.comm, f.c_str(), NC_NOWRITE, MPI_INFO_NULL, &nc), "open " + f);
    *wrong = 0;
    for (size_t v = 0; v < p.vars().size(); ++v) {
      int id;
      check(ncmpi_inq_varid(nc, p.vars()[v].name.c_str(), &id), "inq_varid");
      const Piece rp = packed(p.read_piece(static_cast<int>(v)));
      std::vector<double> buf(rp.elements);
      for (uint64_t s : p.read_steps()) {
        Varn vn = to_varn(p.vars()[v], rp, s);
        check(ncmpi_get_varn_all(nc, id, static_cast<int>(vn.starts.size()), vn.starts.data(),
                                 vn.counts.data(), buf.data(),
                                 static_cast<MPI_Offset>(rp.elements), MPI_DOUBLE), "get_varn_all");
        *wrong += count_wrong(rp, static_cast<int>(v), s, buf.data());
      }
    }
    check(ncmpi_close(nc), "close");
    return {};
  }

  void remove(const RunConfig& cfg, const Pattern& p) override {
    if (cfg.rank == 0) ::unlink(path(cfg, p, ".nc").c_str());
  }

 private:
  bool nb_;
};

}  // namespace

std::unique_ptr<Method> make_pnetcdf(bool nb) { return std::make_unique<Pnetcdf>(nb); }

}  // namespace bench

#else

namespace bench {
std::unique_ptr<Method> make_pnetcdf(bool nb) {
  return make_not_built(nb ? "pnetcdf-nb" : "pnetcdf",
                        "PnetCDF (pkg-config pnetcdf) was not found at configure time");
}
}  // namespace bench

#endif

// mpiio-romio / mpiio-ompio: MPI-IO directly, collective write_all/read_all through a file view,
// the pattern's global arrays back to back in one flat file (step by step, variables in
// definition order, each row-major). Open MPI picks its io component (romio321 or ompio) once,
// at MPI_Init, from OMPI_MCA_io: each method is available only in a process started with its
// component (scripts/bench.sh runs the program once per component). Storage requests and bytes
// happen inside the MPI library and are not counted here ("n/a").
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "registry.h"

namespace bench {
namespace {

void check(int rc, const std::string& what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(rc, msg, &n);
  throw BenchError("MPI-IO: " + what + ": " + std::string(msg, n));
}

// The file type of a piece (runs of doubles) and the memory type of its buffer.
MPI_Datatype runs_type(const std::vector<uint64_t>& offsets, const std::vector<uint64_t>& lengths) {
  std::vector<int> len(lengths.begin(), lengths.end());
  std::vector<MPI_Aint> disp(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) disp[i] = static_cast<MPI_Aint>(offsets[i] * 8);
  MPI_Datatype t;
  MPI_Type_create_hindexed(static_cast<int>(len.size()), len.data(), disp.data(), MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  return t;
}

class DirectMpiio : public Method {
 public:
  explicit DirectMpiio(std::string component) : component_(std::move(component)) {}
  std::string name() const override {
    return component_ == "romio321" ? "mpiio-romio" : "mpiio-" + component_;
  }

  Availability available(const RunConfig&) override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(version, &n);
    const bool openmpi = std::strstr(version, "Open MPI") != nullptr;
    const char* env = std::getenv("OMPI_MCA_io");
    std::string chosen = env ? env : "";
    if (!openmpi) chosen = "romio321";          // MPICH and others: ROMIO
    else if (chosen.empty()) chosen = "ompio";  // Open MPI 4's default for local files
    if (chosen.find(component_) != std::string::npos && chosen.find('^') == std::string::npos)
      return {};
    return {Availability::kUnavailable,
            "this process uses io component '" + chosen + "'; run with OMPI_MCA_io=" + component_};
  }

  Counters write(const RunConfig& cfg, const Pattern& p, const StepData& data) override {
    MPI_File fh;
    const std::string f = path(cfg, p, ".dat");
    check(MPI_File_open(cfg.comm, f.c_str(), MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
          "open " + f);
    check(MPI_File_set_size(fh, 0), "truncate");
    uint64_t base = 0;
    for (uint64_t s = 0; s < p.steps(); ++s)
      for (size_t v = 0; v < p.vars().size(); ++v) {
        transfer(fh, p.write_piece(static_cast<int>(v)), base,
                 const_cast<double*>(data[s][v].data()), true);
        base += p.vars()[v].elements() * 8;
      }
    if (cfg.fsync) check(MPI_File_sync(fh), "sync");
    check(MPI_File_close(&fh), "close");
    return {};
  }

  Counters read_verify(const RunConfig& cfg, const Pattern& p, uint64_t* wrong) override {
    MPI_File fh;
    const std::string f = path(cfg, p, ".dat");
    check(MPI_File_open(cfg.comm, f.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open " + f);
    *wrong = 0;
    uint64_t step_bytes = 0;
    for (const Var& var : p.vars()) step_bytes += var.elements() * 8;
    for (uint64_t s : p.read_steps()) {
      uint64_t base = s * step_bytes;
      for (size_t v = 0; v < p.vars().size(); ++v) {
        const Piece rp = packed(p.read_piece(static_cast<int>(v)));
        std::vector<double> buf(rp.elements);
        transfer(fh, rp, base, buf.data(), false);
        *wrong += count_wrong(rp, static_cast<int>(v), s, buf.data());
        base += p.vars()[v].elements() * 8;
      }
    }
    check(MPI_File_close(&fh), "close");
    return {};
  }

  void remove(const RunConfig& cfg, const Pattern& p) override {
    if (cfg.rank == 0) ::unlink(path(cfg, p, ".dat").c_str());
  }

 private:
  static void transfer(MPI_File fh, const Piece& pc, uint64_t base, double* buf, bool write) {
    // A rank with nothing to move (e3sm: variables rank 0 writes whole) still takes part in the
    // collective call, with a plain view and count 0 (an empty hindexed file type is invalid).
    const bool empty = pc.offsets.empty();
    MPI_Datatype ftype = empty ? MPI_DOUBLE : runs_type(pc.offsets, pc.lengths);
    MPI_Datatype mtype = MPI_DOUBLE;
    int count = static_cast<int>(pc.elements);
    if (!empty && !pc.mem_contiguous()) {
      mtype = runs_type(pc.mem_offsets, pc.lengths);
      count = 1;
    }
    check(MPI_File_set_view(fh, static_cast<MPI_Offset>(base), MPI_DOUBLE, ftype, "native",
                            MPI_INFO_NULL), "set_view");
    MPI_Status st;
    if (write)
      check(MPI_File_write_all(fh, buf, count, mtype, &st), "write_all");
    else
      check(MPI_File_read_all(fh, buf, count, mtype, &st), "read_all");
    if (ftype != MPI_DOUBLE) MPI_Type_free(&ftype);
    if (mtype != MPI_DOUBLE) MPI_Type_free(&mtype);
  }

  std::string component_;
};

}  // namespace

std::unique_ptr<Method> make_mpiio(const std::string& component) {
  return std::make_unique<DirectMpiio>(component);
}

}  // namespace bench

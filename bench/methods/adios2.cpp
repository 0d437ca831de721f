// adios2-bp5, adios2-bp5-fpp: ADIOS2 2.12.1 through its C++ API, engine BP5, writing the
// directory PATTERN.METHOD.bp/ (data.N subfiles, md.0, md.idx, mmd.0, profiling.json).
// - Installed by `scripts/setup.sh --bench` (scripts/install_adios2.sh): PyPI's adios2
//   2.12.1.1001 built from source into .venv (Release, shared), MPI on with Debian's Open MPI
//   wrappers, the features the benchmark does not use off (SST, CURL, OpenSSL, campaign
//   files, compressors, Fortran, HDF5, Python bindings); found by bench/CMakeLists.txt
//   (find_package(ADIOS2 COMPONENTS CXX MPI) in the venv, linked as adios2::cxx_mpi).
// - adios2-bp5: BP5's default aggregation (AggregationType TwoLevelShm, NumAggregators 0: one
//   aggregator and one subfile per node, the others sending it their data through shared
//   memory). adios2-bp5-fpp: NumAggregators = the number of ranks, one subfile per process.
//   Every other parameter is ADIOS2's default (AsyncWrite off, deferred buffering in chunks).
// - Variables are global arrays (a scalar a global value), defined once per process (the first
//   repetition's write includes the definitions). Each step is BeginStep, one deferred Put per
//   block, EndStep. ADIOS2 selections are boxes, so a piece is written as the blocks of
//   blocks.h: one block when it is a box with contiguous memory, otherwise its runs cut at rows
//   and merged down the second-to-last dimension (a matrix column band is one block, e3sm's
//   maps stay many blocks per rank, hpio one block per region). That keeps the file the global
//   array any ADIOS2 reader can select from; a local-array fallback (each rank's packed values
//   plus its map) would not be. A block not contiguous in the rank's buffer is gathered into a
//   staging buffer first (timed).
// - fsync: ADIOS2 never syncs (the POSIX transport's Flush has it compiled out), so with
//   cfg.fsync every rank fsyncs a share of the directory's files after Close (round robin over
//   the sorted names) and rank 0 the directory itself (timed).
// - Read back with the BP5 reader step by step (BeginStep, deferred Gets, EndStep): a read block
//   that is a written block (the read pieces are the write pieces except in shared-read) by its
//   block ID (SetBlockSelection; the IDs are looked up in the first step, the writer putting the
//   same blocks in the same order every step), any other box by SetSelection. The reader
//   always writes /tmp/NAME_PID_profiling.json at close, on every rank; each deletes its own.
// - Storage requests and bytes, and messages, are inside ADIOS2: "n/a".
#include "registry.h"

#ifdef TAPIO_BENCH_HAVE_ADIOS2
#include <adios2.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <type_traits>

#include "blocks.h"

namespace bench {
namespace {

static_assert(std::is_same_v<adios2::Dims, Dims>, "bench::Dims must be adios2::Dims");

// ADIOS2 reports errors as C++ exceptions; the benchmark's are BenchError.
template <class F>
auto guarded(F&& f) {
  try {
    return f();
  } catch (const BenchError&) {
    throw;
  } catch (const std::exception& e) {
    throw BenchError(std::string("ADIOS2: ") + e.what());
  }
}

// Collective: true when every rank's `ok` is.
bool all_ok(MPI_Comm comm, bool ok) {
  int mine = ok, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all != 0;
}

bool fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

// Collective, after Close: the output's files and the directory made durable, the files
// shared round robin over the ranks.
void sync_output(const RunConfig& cfg, const std::string& dir) {
  MPI_Barrier(cfg.comm);  // every rank has closed its files
  std::string failed;
  try {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (size_t i = static_cast<size_t>(cfg.rank); i < files.size(); i += static_cast<size_t>(cfg.size))
      if (!fsync_path(files[i])) failed = files[i];
    if (cfg.rank == 0 && !fsync_path(dir)) failed = dir;
  } catch (const std::filesystem::filesystem_error& e) {
    failed = e.what();
  }
  if (!all_ok(cfg.comm, failed.empty()))
    throw BenchError("ADIOS2: fsync of the output failed" + (failed.empty() ? "" : ": " + failed));
}

class Adios2 : public Method {
 public:
  Adios2(std::string name, bool fpp) : name_(std::move(name)), fpp_(fpp) {}
  std::string name() const override { return name_; }

  // ADIOS2 is initialised here (collective, untimed): its own startup is not part of a write.
  Availability available(const RunConfig& cfg) override {
    try {
      if (!adios_) adios_ = std::make_unique<adios2::ADIOS>(cfg.comm);
    } catch (const std::exception& e) {
      return {Availability::kUnavailable, std::string("ADIOS2 failed to initialise: ") + e.what()};
    }
    return {};
  }

  Counters write(const RunConfig& cfg, const Pattern& p, const StepData& data) override {
    return guarded([&] {
      define(cfg, p);
      const std::string f = path(cfg, p, ".bp");
      adios2::Engine w = io_.Open(f, adios2::Mode::Write);
      for (uint64_t s = 0; s < p.steps(); ++s) {
        w.BeginStep();
        for (size_t v = 0; v < vars_.size(); ++v)
          for (size_t b = 0; b < blocks_[v].size(); ++b) {
            const Block& blk = blocks_[v][b];
            const double* src = data[s][v].data();
            if (blk.segs.size() == 1) {
              src += blk.segs[0].first;
            } else {  // gather the block's rows; deferred: the stage lives until EndStep
              double* out = stage_[v][b].data();
              for (const auto& [off, n] : blk.segs) out = std::copy(src + off, src + off + n, out);
              src = stage_[v][b].data();
            }
            if (!blk.start.empty()) vars_[v].SetSelection({blk.start, blk.count});
            w.Put(vars_[v], src);
          }
        w.EndStep();
      }
      w.Close();
      if (cfg.fsync) sync_output(cfg, f);
      return Counters{};
    });
  }

  Counters read_verify(const RunConfig& cfg, const Pattern& p, uint64_t* wrong) override {
    return guarded([&] {
      const std::string f = path(cfg, p, ".bp");
      // Per variable: the packed read piece as blocks, its buffer, the staging buffers of
      // blocks with several segments, and each block's ID when it is a written block.
      struct Reading {
        Piece piece;
        std::vector<Block> blocks;
        std::vector<double> buf;
        std::vector<std::vector<double>> stage;
        std::vector<std::optional<size_t>> ids;
      };
      std::vector<Reading> rd(p.vars().size());
      for (size_t v = 0; v < rd.size(); ++v) {
        rd[v].piece = packed(p.read_piece(static_cast<int>(v)));
        rd[v].blocks = blocks_of(p.vars()[v], rd[v].piece);
        rd[v].buf.resize(rd[v].piece.elements);
        rd[v].ids.resize(rd[v].blocks.size());
        for (const Block& b : rd[v].blocks)
          rd[v].stage.emplace_back(b.segs.size() > 1 ? b.elements() : 0);
      }
      const std::string io_name = name_ + "-read";
      adios2::IO io = adios_->DeclareIO(io_name);
      adios2::Engine r = io.Open(f, adios2::Mode::Read);
      *wrong = 0;
      uint64_t s = 0;
      for (; r.BeginStep() == adios2::StepStatus::OK; ++s) {
        if (s == p.steps()) throw BenchError("ADIOS2: " + f + " has more steps than written");
        for (size_t v = 0; v < rd.size(); ++v) {
          Reading& x = rd[v];
          if (x.blocks.empty()) continue;
          const Var& var = p.vars()[v];
          adios2::Variable<double> av = io.InquireVariable<double>(var.name);
          if (!av) throw BenchError("ADIOS2: no variable " + var.name + " in step " + std::to_string(s));
          if (s == 0 && !var.shape.empty()) find_ids(r, av, x.blocks, x.ids);
          for (size_t b = 0; b < x.blocks.size(); ++b) {
            const Block& blk = x.blocks[b];
            double* dst = x.stage[b].empty() ? x.buf.data() + blk.segs[0].first : x.stage[b].data();
            if (x.ids[b])
              av.SetBlockSelection(*x.ids[b]);
            else if (!var.shape.empty())
              av.SetSelection({blk.start, blk.count});
            r.Get(av, dst);
          }
        }
        r.EndStep();
        for (size_t v = 0; v < rd.size(); ++v) {
          Reading& x = rd[v];
          for (size_t b = 0; b < x.blocks.size(); ++b) {
            const double* in = x.stage[b].data();
            if (!x.stage[b].empty())  // scatter the block's rows
              for (const auto& [off, n] : x.blocks[b].segs) {
                std::copy(in, in + n, x.buf.data() + off);
                in += n;
              }
          }
          *wrong += count_wrong(x.piece, static_cast<int>(v), s, x.buf.data());
        }
      }
      r.Close();
      adios_->RemoveIO(io_name);
      remove_reader_profile(f);
      if (s != p.steps())
        throw BenchError("ADIOS2: read " + std::to_string(s) + " steps of " + std::to_string(p.steps()));
      return Counters{};
    });
  }

  void remove(const RunConfig& cfg, const Pattern& p) override {
    std::error_code ec;  // nothing to remove after a failed write is fine
    if (cfg.rank == 0) std::filesystem::remove_all(path(cfg, p, ".bp"), ec);
  }

 private:
  // Once per process: the IO, its parameters, the variables and this rank's blocks.
  void define(const RunConfig& cfg, const Pattern& p) {
    if (defined_) return;
    io_ = adios_->DeclareIO(name_);
    io_.SetEngine("BP5");
    if (fpp_) io_.SetParameter("NumAggregators", std::to_string(cfg.size));
    for (size_t v = 0; v < p.vars().size(); ++v) {
      const Var& var = p.vars()[v];
      vars_.push_back(var.shape.empty() ? io_.DefineVariable<double>(var.name)
                                        : io_.DefineVariable<double>(var.name, var.shape));
      blocks_.push_back(blocks_of(var, p.write_piece(static_cast<int>(v))));
      stage_.emplace_back();
      for (const Block& b : blocks_.back()) stage_.back().emplace_back(b.segs.size() > 1 ? b.elements() : 0);
    }
    defined_ = true;
  }

  // The IDs (in the current step) of the blocks that are written blocks of the variable.
  static void find_ids(adios2::Engine& r, const adios2::Variable<double>& av,
                       const std::vector<Block>& blocks, std::vector<std::optional<size_t>>& ids) {
    std::map<std::pair<Dims, Dims>, size_t> wanted;
    for (size_t b = 0; b < blocks.size(); ++b) wanted[{blocks[b].start, blocks[b].count}] = b;
    for (const auto& info : r.BlocksInfo(av, r.CurrentStep())) {
      auto it = wanted.find({info.Start, info.Count});
      if (it != wanted.end()) ids[it->second] = info.BlockID;
    }
  }

  // The BP5 reader writes a profile of every read into /tmp on every rank (each thinks it is
  // rank 0), named after the output's file name and the process ID in hex, whatever --dir
  // says; it is not the method's output.
  static void remove_reader_profile(const std::string& f) {
    std::ostringstream name;
    name << "/tmp/" << std::filesystem::path(f).filename().string() << "_" << std::hex << ::getpid()
         << "_profiling.json";
    ::unlink(name.str().c_str());
  }

  std::string name_;
  bool fpp_;
  std::unique_ptr<adios2::ADIOS> adios_;
  bool defined_ = false;
  adios2::IO io_;
  std::vector<adios2::Variable<double>> vars_;
  std::vector<std::vector<Block>> blocks_;              // per variable, per block
  std::vector<std::vector<std::vector<double>>> stage_;  // per variable, per block (gathered)
};

}  // namespace

std::unique_ptr<Method> make_adios2(bool fpp) {
  return std::make_unique<Adios2>(fpp ? "adios2-bp5-fpp" : "adios2-bp5", fpp);
}

}  // namespace bench

#else

namespace bench {
std::unique_ptr<Method> make_adios2(bool fpp) {
  return make_not_built(fpp ? "adios2-bp5-fpp" : "adios2-bp5", TAPIO_BENCH_ADIOS2_MISSING);
}
}  // namespace bench

#endif

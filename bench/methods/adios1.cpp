// adios1: Debian's ADIOS 1.x for Open MPI (found by pkg-config adios-openmpi,
// libadios-openmpi-dev), the no-XML API writing one BP file PATTERN.adios1.bp with the "MPI"
// transport method. ADIOS 1 arrays are written as blocks: every rank defines (once per process)
// each variable once per block it writes, with literal local dimensions, global dimensions and
// offsets, and writes the blocks by id (adios_write_byid). Each box of a piece is one block;
// the runs of other pieces are cut at rows and merged into blocks down the second-to-last
// dimension (blocks_of); a block whose elements are not contiguous in the rank's buffer is
// gathered into a staging buffer before adios_write (timed). A scalar is written
// by the rank that owns it. Each step is one adios_open ("w" then "a") ... adios_close. ADIOS has
// no fsync: with fsync, rank 0 fsyncs the file after the last close (timed). Read back through
// the ADIOS read API (BP method, adios_read_open_file): per block of the read piece a writeblock
// selection when it is a written block, else a bounding box; adios_schedule_read per block and
// step, adios_perform_reads per variable and step. Joined variables (particles) are one block
// per rank and step whose dimensions are scalar variables written with it (define_joined).
// Storage requests and bytes are inside ADIOS/MPI-IO: "n/a".
#include "registry.h"

#ifdef TAPIO_BENCH_HAVE_ADIOS1
#include <adios.h>
#include <adios_read.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "blocks.h"

namespace bench {
namespace {

void check(int rc, const std::string& what) {
  if (rc != 0) throw BenchError("ADIOS: " + what + ": " + adios_errmsg());
}

std::string csv(const Dims& d) {
  std::ostringstream s;
  for (size_t k = 0; k < d.size(); ++k) s << (k ? "," : "") << d[k];
  return s.str();
}

class Adios1 : public Method {
 public:
  std::string name() const override { return "adios1"; }
  Availability available(const RunConfig&) override { return {}; }
  bool joins() const override { return true; }

  ~Adios1() override {
    if (read_init_) adios_read_finalize_method(ADIOS_READ_METHOD_BP);
    if (init_) adios_finalize(rank_);
  }

  Counters write(const RunConfig& cfg, const Pattern& p, const StepData& data) override {
    define(cfg, p);
    const std::string f = path(cfg, p, ".bp");
    std::vector<double> stage;
    for (uint64_t s = 0; s < p.steps(); ++s) {
      int64_t fd;
      check(adios_open(&fd, group_name_.c_str(), f.c_str(), s == 0 ? "w" : "a", cfg.comm),
            "open " + f);
      if (p.joined()) {
        write_joined_step(cfg, p, s, data[s], fd);
        check(adios_close(fd), "close");
        continue;
      }
      uint64_t total;
      check(adios_group_size(fd, step_bytes_, &total), "group_size");
      for (size_t v = 0; v < ids_.size(); ++v)
        for (size_t b = 0; b < ids_[v].size(); ++b) {
          const Block& blk = blocks_[v][b];
          const double* src = data[s][v].data();
          if (blk.segs.size() == 1) {
            src += blk.segs[0].first;
          } else {  // gather the block's rows (ADIOS copies the data into its buffer)
            stage.resize(blk.elements());
            double* out = stage.data();
            for (const auto& [off, n] : blk.segs) out = std::copy(src + off, src + off + n, out);
            src = stage.data();
          }
          check(adios_write_byid(fd, ids_[v][b], src), "write " + p.vars()[v].name);
        }
      check(adios_close(fd), "close");
    }
    if (cfg.fsync && cfg.rank == 0) {
      int fdes = ::open(f.c_str(), O_RDONLY);
      if (fdes < 0 || ::fsync(fdes) != 0) throw BenchError("adios1: fsync " + f + " failed");
      ::close(fdes);
    }
    return {};
  }

  // A read block that is a written block (same box; the usual case, where the read pieces are
  // the write pieces) is read by its index in the step (writeblock selection): a bounding box
  // would make ADIOS intersect it with every block of the step. Other boxes (shared-read) are
  // bounding boxes.
  Counters read_verify(const RunConfig& cfg, const Pattern& p, uint64_t* wrong) override {
    if (!read_init_) {
      check(adios_read_init_method(ADIOS_READ_METHOD_BP, cfg.comm, "verbose=0"), "read_init_method");
      read_init_ = true;
    }
    const std::string f = path(cfg, p, ".bp");
    ADIOS_FILE* fp = adios_read_open_file(f.c_str(), ADIOS_READ_METHOD_BP, cfg.comm);
    if (!fp) throw BenchError("ADIOS: read_open_file " + f + ": " + adios_errmsg());
    struct Closer {
      ADIOS_FILE* fp;
      ~Closer() { adios_read_close(fp); }
    } closer{fp};
    *wrong = 0;
    if (p.joined()) {
      *wrong = read_joined(fp, p);
      return {};
    }
    for (size_t v = 0; v < p.vars().size(); ++v) {
      const Var& var = p.vars()[v];
      const Piece rp = packed(p.read_piece(static_cast<int>(v)));
      const std::vector<Block> blocks = blocks_of(var, rp);
      std::vector<double> buf(std::max<uint64_t>(rp.elements, 1));
      std::vector<ADIOS_SELECTION*> sels(blocks.size(), nullptr);
      std::vector<std::vector<double>> stage(blocks.size());
      std::vector<int> step_first;  // absolute index of each step's first block
      if (!var.shape.empty() && !blocks.empty()) {
        ADIOS_VARINFO* vi = adios_inq_var(fp, var.name.c_str());
        if (!vi) throw BenchError("ADIOS: inq_var " + var.name + ": " + adios_errmsg());
        std::map<std::pair<Dims, Dims>, int> index;  // step 0's blocks by box
        if (adios_inq_var_blockinfo(fp, vi) == 0 && vi->nblocks) {
          for (int i = 0; i < vi->nblocks[0]; ++i)
            index[{Dims(vi->blockinfo[i].start, vi->blockinfo[i].start + vi->ndim),
                   Dims(vi->blockinfo[i].count, vi->blockinfo[i].count + vi->ndim)}] = i;
          for (int st = 0; st < vi->nsteps; ++st)  // where each step's blocks begin
            step_first.push_back(st == 0 ? 0 : step_first.back() + vi->nblocks[st - 1]);
        }
        adios_free_varinfo(vi);
        for (size_t b = 0; b < blocks.size(); ++b) {
          auto it = index.find({blocks[b].start, blocks[b].count});
          sels[b] = it != index.end()
                        ? adios_selection_writeblock(it->second)
                        : adios_selection_boundingbox(static_cast<int>(var.shape.size()),
                                                      blocks[b].start.data(), blocks[b].count.data());
          if (blocks[b].segs.size() > 1) stage[b].resize(blocks[b].elements());
        }
      }
      std::vector<int> rel(blocks.size());  // step-relative writeblock indices
      for (uint64_t s : p.read_steps()) {
        for (size_t b = 0; b < blocks.size(); ++b) {
          double* dst = stage[b].empty() ? buf.data() + blocks[b].segs[0].first : stage[b].data();
          // A step-relative writeblock index makes ADIOS scan the variable's blocks for every
          // read (adios_wbidx_to_pgidx, quadratic with thousands of blocks per rank); the
          // absolute index (blockinfo order: step by step) goes straight to the block.
          if (sels[b] && sels[b]->type == ADIOS_SELECTION_WRITEBLOCK && s < step_first.size()) {
            if (!sels[b]->u.block.is_absolute_index) rel[b] = sels[b]->u.block.index;
            sels[b]->u.block.is_absolute_index = 1;
            sels[b]->u.block.index = step_first[s] + rel[b];
          }
          check(adios_schedule_read(fp, sels[b], var.name.c_str(), static_cast<int>(s), 1, dst),
                "schedule_read " + var.name);
        }
        if (!blocks.empty()) check(adios_perform_reads(fp, 1), "perform_reads");
        for (size_t b = 0; b < blocks.size(); ++b) {
          const double* in = stage[b].data();
          if (!stage[b].empty())
            for (const auto& [off, n] : blocks[b].segs) {  // scatter the block's rows
              std::copy(in, in + n, buf.data() + off);
              in += n;
            }
        }
        *wrong += count_wrong(rp, static_cast<int>(v), s, buf.data());
      }
      for (ADIOS_SELECTION* s : sels)
        if (s) adios_selection_delete(s);
    }
    return {};
  }

  void remove(const RunConfig& cfg, const Pattern& p) override {
    if (cfg.rank == 0) ::unlink(path(cfg, p, ".bp").c_str());
  }

 private:
  // Once per process: ADIOS, the group and the variables' definitions (the same in every
  // repetition): every block's, or for joined variables their dimension scalars' and theirs.
  void define(const RunConfig& cfg, const Pattern& p) {
    if (!init_) {
      check(adios_init_noxml(cfg.comm), "init_noxml");
      init_ = true;
      rank_ = cfg.rank;
    }
    if (!group_name_.empty()) return;
    group_name_ = "tapio_bench_" + p.name();
    check(adios_declare_group(&group_, group_name_.c_str(), "", adios_stat_no), "declare_group");
    check(adios_select_method(group_, "MPI", "", ""), "select_method MPI");
    step_bytes_ = 0;
    uint64_t nblocks = 0;
    if (p.joined())
      define_joined(p, &nblocks);
    else
      define_blocks(p, &nblocks);
    // The buffer holds one step of this rank's data and its block metadata (generously).
    uint64_t mine = (step_bytes_ + nblocks * 512) / 1048576 + 16, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, cfg.comm);
    adios_set_max_buffer_size(most);
  }

  // Each block of each variable, with literal dimensions and offsets.
  void define_blocks(const Pattern& p, uint64_t* nblocks) {
    for (size_t v = 0; v < p.vars().size(); ++v) {
      const Var& var = p.vars()[v];
      ids_.emplace_back();
      blocks_.push_back(blocks_of(var, p.write_piece(static_cast<int>(v))));
      const std::string g = csv(var.shape);
      for (const Block& b : blocks_.back()) {
        const int64_t id = adios_define_var(group_, var.name.c_str(), "", adios_double,
                                            csv(b.count).c_str(), g.c_str(), csv(b.start).c_str());
        if (id == 0) throw BenchError("ADIOS: define_var " + var.name + ": " + adios_errmsg());
        ids_.back().push_back(id);
        step_bytes_ += b.elements() * 8;
        ++*nblocks;
      }
    }
  }

  // Joined variables: the array's local and global length and its offset along the first
  // dimension are scalar variables (NAME_count, NAME_total, NAME_offset) written every step,
  // ADIOS 1's way to let a global array change size from step to step. ids_[v] holds the three
  // and then the array; step_bytes_ is the largest step of this rank.
  void define_joined(const Pattern& p, uint64_t* nblocks) {
    for (const Var& var : p.vars()) {
      ids_.emplace_back();
      for (const char* d : {"_count", "_total", "_offset"}) {
        ids_.back().push_back(adios_define_var(group_, (var.name + d).c_str(), "",
                                               adios_unsigned_long, "", "", ""));
        if (ids_.back().back() == 0) throw BenchError("ADIOS: define_var " + var.name + d);
      }
      std::string local = var.name + "_count", global = var.name + "_total",
                  offset = var.name + "_offset";
      for (size_t k = 1; k < var.shape.size(); ++k) {
        local += "," + std::to_string(var.shape[k]);
        global += "," + std::to_string(var.shape[k]);
        offset += ",0";
      }
      ids_.back().push_back(adios_define_var(group_, var.name.c_str(), "", adios_double,
                                             local.c_str(), global.c_str(), offset.c_str()));
      if (ids_.back().back() == 0)
        throw BenchError("ADIOS: define_var " + var.name + ": " + adios_errmsg());
      ++*nblocks;
    }
    for (uint64_t s = 0; s < p.steps(); ++s) {
      uint64_t bytes = 0;
      for (size_t v = 0; v < p.vars().size(); ++v)
        bytes += 3 * 8 + p.step_write_piece(static_cast<int>(v), s).elements * 8;
      step_bytes_ = std::max(step_bytes_, bytes);
    }
  }

  // One step of joined variables: the offsets an exscan gives (joined_rows), then per variable
  // its three dimension scalars and its rows (none written when the rank has none).
  void write_joined_step(const RunConfig& cfg, const Pattern& p, uint64_t s,
                         const std::vector<std::vector<double>>& data, int64_t fd) {
    const JoinedRows j = joined_rows(cfg.comm, p, s);
    uint64_t bytes = 0, total;
    for (size_t v = 0; v < ids_.size(); ++v) bytes += 3 * 8 + data[v].size() * 8;
    check(adios_group_size(fd, bytes, &total), "group_size");
    for (size_t v = 0; v < ids_.size(); ++v) {
      const std::string& name = p.vars()[v].name;
      check(adios_write_byid(fd, ids_[v][0], &j.count[v]), "write " + name + "_count");
      check(adios_write_byid(fd, ids_[v][1], &j.total[v]), "write " + name + "_total");
      check(adios_write_byid(fd, ids_[v][2], &j.offset[v]), "write " + name + "_offset");
      if (j.count[v] > 0) check(adios_write_byid(fd, ids_[v][3], data[v].data()), "write " + name);
    }
  }

  // Joined variables: each box of the step's read piece as a bounding box, which ADIOS meets
  // with the step's blocks (their offsets were written with them).
  uint64_t read_joined(ADIOS_FILE* fp, const Pattern& p) {
    uint64_t wrong = 0;
    for (uint64_t s : p.read_steps())
      for (size_t v = 0; v < p.vars().size(); ++v) {
        const std::string& name = p.vars()[v].name;
        const Piece rp = packed(p.step_read_piece(static_cast<int>(v), s));
        std::vector<double> buf(std::max<uint64_t>(rp.elements, 1));
        std::vector<ADIOS_SELECTION*> sels;
        double* at = buf.data();
        for (const Box& b : rp.boxes) {
          sels.push_back(adios_selection_boundingbox(static_cast<int>(b.start.size()),
                                                     b.start.data(), b.count.data()));
          check(adios_schedule_read(fp, sels.back(), name.c_str(), static_cast<int>(s), 1, at),
                "schedule_read " + name);
          at += b.elements();
        }
        if (!sels.empty()) check(adios_perform_reads(fp, 1), "perform_reads");
        for (ADIOS_SELECTION* x : sels) adios_selection_delete(x);
        wrong += count_wrong(rp, static_cast<int>(v), s, buf.data());
      }
    return wrong;
  }

  bool init_ = false, read_init_ = false;
  int rank_ = 0;
  std::string group_name_;
  int64_t group_ = 0;
  uint64_t step_bytes_ = 0;
  std::vector<std::vector<int64_t>> ids_;     // per variable, per block (joined: define_joined)
  std::vector<std::vector<Block>> blocks_;    // per variable, per block
};

}  // namespace

std::unique_ptr<Method> make_adios1() { return std::make_unique<Adios1>(); }

}  // namespace bench

#else

namespace bench {
std::unique_ptr<Method> make_adios1() {
  return make_not_built("adios1",
                        "ADIOS 1 (pkg-config adios-openmpi, libadios-openmpi-dev) was not found "
                        "at configure time");
}
}  // namespace bench

#endif

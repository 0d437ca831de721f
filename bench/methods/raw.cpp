// raw: each rank writes its own bytes to its own file (PATTERN.raw.RANK) in large pwrite calls
// (pwritev when its memory has gaps): no format, no exchange, the limit of this storage.
// raw-shared: the same calls into one file (PATTERN.raw-shared.0), each rank's bytes in its
// own region (rank order): the limit of one file, which every method writing a single file
// (NetCDF, one subfile per node) meets — a local file system serialises the buffered writes
// to one file (the inode lock), however many ranks issue them.
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "registry.h"

namespace bench {
namespace {

constexpr uint64_t kMaxCall = 1ull << 30;  // bytes per system call

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw BenchError("raw: " + what + " '" + path + "': " + std::strerror(errno));
}

class Raw : public Method {
 public:
  explicit Raw(bool shared) : shared_(shared) {}
  std::string name() const override { return shared_ ? "raw-shared" : "raw"; }
  Availability available(const RunConfig&) override { return {}; }
  // Raw files are each rank's bytes without a format: a rank reads its own pieces back, or (one
  // variable, one step: shared-read) the whole variable from every rank's file in turn. Nothing
  // in them finds a selection of what other ranks wrote (selection).
  Availability supports(const Pattern& p) const override {
    bool own = true;
    for (size_t v = 0; v < p.vars().size(); ++v)
      own = own && &p.read_piece(static_cast<int>(v)) == &p.write_piece(static_cast<int>(v));
    if (own || (p.vars().size() == 1 && p.steps() == 1)) return {};
    return {Availability::kUnavailable,
            "raw files have no format to find a selection of other ranks' data in"};
  }

  Counters write(const RunConfig& cfg, const Pattern& p, const StepData& data) override {
    const std::string file = rank_path(cfg, p, cfg.rank);
    if (shared_ && cfg.rank == 0) ::unlink(file.c_str());
    if (shared_) MPI_Barrier(cfg.comm);  // made anew, by whichever rank comes first
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | (shared_ ? 0 : O_TRUNC), 0644);
    if (fd < 0) fail("cannot create", file);
    const uint64_t start = region_start(cfg, p);
    uint64_t off = start, calls = 0;
    for (uint64_t s = 0; s < p.steps(); ++s)
      for (size_t v = 0; v < p.vars().size(); ++v) {
        const Piece& pc = p.write_piece(static_cast<int>(v));
        const double* buf = data[s][v].data();
        if (pc.mem_contiguous()) {
          off = put(fd, file, reinterpret_cast<const char*>(buf), pc.elements * 8, off, &calls);
        } else {
          std::vector<iovec> iov;
          for (size_t r = 0; r < pc.offsets.size(); ++r) {
            iov.push_back({const_cast<double*>(buf + pc.mem_offsets[r]), pc.lengths[r] * 8});
            if (iov.size() == IOV_MAX || r + 1 == pc.offsets.size()) {
              off = putv(fd, file, iov, off, &calls);
              iov.clear();
            }
          }
        }
      }
    if (cfg.fsync && ::fsync(fd) != 0) fail("cannot fsync", file);
    if (::close(fd) != 0) fail("cannot close", file);
    return {sum_over_ranks(cfg.comm, calls), sum_over_ranks(cfg.comm, off - start), 0.0};
  }

  Counters read_verify(const RunConfig& cfg, const Pattern& p, uint64_t* wrong) override {
    // Each rank reads back its own file; a pattern that reads more than it wrote (shared-read:
    // the whole variable, written in rank-ordered blocks) reads every rank's file in turn.
    *wrong = 0;
    uint64_t calls = 0, bytes = 0;
    for (uint64_t s : p.read_steps())
      for (size_t v = 0; v < p.vars().size(); ++v) {
        const Piece& w = p.write_piece(static_cast<int>(v));
        const Piece rp = packed(p.read_piece(static_cast<int>(v)));
        std::vector<double> buf(rp.elements);
        if (&w == &p.read_piece(static_cast<int>(v))) {
          read_at(rank_path(cfg, p, cfg.rank), region_start(cfg, p) + step_var_offset(p, s, v, w),
                  buf.data(), w.elements * 8, &calls, &bytes);
        } else {
          char* at = reinterpret_cast<char*>(buf.data());
          for (int r = 0; r < (shared_ ? 1 : cfg.size); ++r) {
            const std::string f = rank_path(cfg, p, r);
            const int fd = ::open(f.c_str(), O_RDONLY);
            if (fd < 0) fail("cannot open", f);
            const off_t n = ::lseek(fd, 0, SEEK_END);
            ::close(fd);
            read_at(f, 0, at, static_cast<uint64_t>(n), &calls, &bytes);
            at += n;
          }
        }
        *wrong += count_wrong(rp, static_cast<int>(v), s, buf.data());
      }
    return {sum_over_ranks(cfg.comm, calls), sum_over_ranks(cfg.comm, bytes), 0.0};
  }

  void remove(const RunConfig& cfg, const Pattern& p) override {
    if (!shared_ || cfg.rank == 0) ::unlink(rank_path(cfg, p, cfg.rank).c_str());
  }

 private:
  std::string rank_path(const RunConfig& cfg, const Pattern& p, int rank) const {
    return path(cfg, p, "." + std::to_string(shared_ ? 0 : rank));
  }
  // Where this rank's bytes start in its file: 0, or after the lower ranks' in the shared one
  // (collective when shared).
  uint64_t region_start(const RunConfig& cfg, const Pattern& p) const {
    if (!shared_) return 0;
    uint64_t mine = 0, before = 0;
    for (size_t v = 0; v < p.vars().size(); ++v)
      mine += p.write_piece(static_cast<int>(v)).elements * 8 * p.steps();
    MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, cfg.comm);
    return cfg.rank == 0 ? 0 : before;
  }
  // Where (step s, variable v) starts in this rank's own bytes.
  static uint64_t step_var_offset(const Pattern& p, uint64_t s, size_t v, const Piece&) {
    uint64_t per_step = 0, before = 0;
    for (size_t k = 0; k < p.vars().size(); ++k) {
      const uint64_t n = p.write_piece(static_cast<int>(k)).elements * 8;
      if (k < v) before += n;
      per_step += n;
    }
    return s * per_step + before;
  }
  bool shared_;
  static uint64_t put(int fd, const std::string& f, const char* b, uint64_t n, uint64_t off,
                      uint64_t* calls) {
    while (n > 0) {
      const ssize_t w = ::pwrite(fd, b, std::min(n, kMaxCall), static_cast<off_t>(off));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail("cannot write", f);
      ++*calls;
      b += w;
      n -= static_cast<uint64_t>(w);
      off += static_cast<uint64_t>(w);
    }
    return off;
  }
  static uint64_t putv(int fd, const std::string& f, std::vector<iovec> iov, uint64_t off,
                       uint64_t* calls) {
    size_t first = 0;
    while (first < iov.size()) {
      const ssize_t w = ::pwritev(fd, iov.data() + first, static_cast<int>(iov.size() - first),
                                  static_cast<off_t>(off));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail("cannot write", f);
      ++*calls;
      off += static_cast<uint64_t>(w);
      uint64_t done = static_cast<uint64_t>(w);
      while (first < iov.size() && done >= iov[first].iov_len) done -= iov[first++].iov_len;
      if (first < iov.size()) {
        iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + done;
        iov[first].iov_len -= done;
      }
    }
    return off;
  }
  static void read_at(const std::string& f, uint64_t off, void* out, uint64_t n,
                      uint64_t* calls, uint64_t* bytes) {
    const int fd = ::open(f.c_str(), O_RDONLY);
    if (fd < 0) fail("cannot open", f);
    char* b = static_cast<char*>(out);
    while (n > 0) {
      const ssize_t r = ::pread(fd, b, std::min(n, kMaxCall), static_cast<off_t>(off));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) { ::close(fd); fail("cannot read", f); }
      ++*calls;
      *bytes += static_cast<uint64_t>(r);
      b += r;
      n -= static_cast<uint64_t>(r);
      off += static_cast<uint64_t>(r);
    }
    ::close(fd);
  }
};

}  // namespace

std::unique_ptr<Method> make_raw(bool shared) { return std::make_unique<Raw>(shared); }

}  // namespace bench

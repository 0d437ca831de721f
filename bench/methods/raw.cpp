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
  bool joins() const override { return true; }  // the pieces of each step, whatever they are
  // Raw files are each rank's bytes without a format: a rank reads its own pieces back, or (one
  // variable, one step: shared-read) the whole variable from every rank's file in turn. Nothing
  // in them finds a selection of what other ranks wrote (selection).
  Availability supports(const Pattern& p) const override {
    bool own = true;
    for (uint64_t s : p.read_steps())
      for (size_t v = 0; v < p.vars().size(); ++v)
        own = own && reads_own(p, static_cast<int>(v), s);
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
        const Piece& pc = p.step_write_piece(static_cast<int>(v), s);
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
    const std::vector<uint64_t> mine = layout(p);
    const uint64_t start = region_start(cfg, p);
    for (uint64_t s : p.read_steps())
      for (size_t v = 0; v < p.vars().size(); ++v) {
        const Piece rp = packed(p.step_read_piece(static_cast<int>(v), s));
        std::vector<double> buf(rp.elements);
        if (reads_own(p, static_cast<int>(v), s)) {
          read_at(rank_path(cfg, p, cfg.rank), start + mine[s * p.vars().size() + v],
                  buf.data(), rp.elements * 8, &calls, &bytes);
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
  static bool reads_own(const Pattern& p, int v, uint64_t s) {
    return &p.step_read_piece(v, s) == &p.step_write_piece(v, s);
  }
  // Where this rank's bytes start in its file: 0, or after the lower ranks' in the shared one
  // (collective when shared).
  uint64_t region_start(const RunConfig& cfg, const Pattern& p) const {
    if (!shared_) return 0;
    uint64_t mine = layout(p).back(), before = 0;
    MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, cfg.comm);
    return cfg.rank == 0 ? 0 : before;
  }
  // Where (step s, variable v) starts in this rank's own bytes, at [s * vars + v], and their end.
  static std::vector<uint64_t> layout(const Pattern& p) {
    std::vector<uint64_t> at = {0};
    for (uint64_t s = 0; s < p.steps(); ++s)
      for (size_t v = 0; v < p.vars().size(); ++v)
        at.push_back(at.back() + p.step_write_piece(static_cast<int>(v), s).elements * 8);
    return at;
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

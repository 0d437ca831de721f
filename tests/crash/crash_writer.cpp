// crash_writer: a writer for crash tests (tests/py/test_crash.py kills it with SIGKILL), and
// the reader that checks what it left.
//
//   crash_writer PATH ENGINE STEPS [SLEEP_MS] [--append] [--param KEY=VALUE]...
//                [--slow-open-ms MS] [--slow-fsync-ms MS]
//       Rank 0 prints "opening" before the open and "closing S" before the close (S steps
//       written), so a kill can be aimed at either. Writes STEPS steps (with --append: STEPS more steps after the dataset's last one) of
//         temp  3-D float64 (depth, lat, lon), block-decomposed by latitude over the ranks;
//         ids   1-D int32, an irregular map of runs dealt out over the ranks;
//         grid  1-D float64 fixed variable, put in the first step of a new file.
//       After each end_step rank 0 prints "committed S" and flushes stdout, then every rank
//       sleeps SLEEP_MS milliseconds. --slow-open-ms / --slow-fsync-ms make every open(2) or
//       fsync(2) of the I/O layer wait that long first (slow storage), so that a kill aimed at
//       the open or at the close (where fsync = close syncs) lands inside it.
//   crash_writer PATH ENGINE STEPS --verify [--param KEY=VALUE]...
//       Opens PATH for reading, prints "steps N" and checks every element of every step it
//       sees (STEPS is ignored). Each rank reads another part than it would have written.
//       Exit 0: all correct; 1: a wrong value ("bad ..." lines); 2: the open or a read failed
//       ("error: MESSAGE").
//   crash_writer PATH ENGINE STEPS --follow [--param KEY=VALUE]...
//       Reads PATH step by step as a live reader does (begin_step until it answers something
//       else than TAPIO_STEP_OK or TAPIO_STEP_NOT_READY, polling every 50 ms), checking every
//       step as --verify does and printing "step S" after each, then "end of stream N" or
//       "writer gone N" (N: the dataset's steps). Exit codes as --verify's.
//
// Values: element g of variable v at step s is g + v/4 + s*2^20 (temp v=0, grid v=2 at s=0);
// ids holds the integer g + s*2^20.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/syscalls.h"
#include "tapio/tapio.hpp"

namespace {

using tapio::Dims;

const Dims kTemp = {8, 256, 256};   // 4 MiB of float64 per step
const uint64_t kIds = 1u << 18;     // 1 MiB of int32 per step
const uint64_t kGrid = 4096;        // 32 KiB fixed

double value(int v, uint64_t s, uint64_t g) {
  return static_cast<double>(g) + v / 4.0 + static_cast<double>(s) * 1048576.0;
}
int32_t ivalue(uint64_t s, uint64_t g) { return static_cast<int32_t>(g + s * 1048576u); }

void split(uint64_t n, int parts, int p, uint64_t* start, uint64_t* count) {
  *start = n * p / parts;
  *count = n * (p + 1) / parts - *start;
}

// The irregular map of ids: runs of pseudo-random lengths, run c owned by rank (7c + 3) % P.
void ids_runs(int rank, int size, std::vector<uint64_t>* off, std::vector<uint64_t>* len) {
  uint64_t g = 0;
  for (uint64_t c = 0; g < kIds; ++c) {
    uint64_t n = 1 + (c * 2654435761u) % 3000;
    if (g + n > kIds) n = kIds - g;
    if (static_cast<int>((7 * c + 3) % size) == rank) {
      off->push_back(g);
      len->push_back(n);
    }
    g += n;
  }
}

struct Args {
  std::string path, engine;
  uint64_t steps = 0, sleep_ms = 0;
  bool verify = false, append = false, follow = false;
  uint64_t slow_open_ms = 0, slow_fsync_ms = 0;
  std::vector<std::pair<std::string, std::string>> params;
};

// Slow storage: the table's entries are plain function pointers, so the delays live here.
uint64_t g_slow_open_ms = 0, g_slow_fsync_ms = 0;

void slow_storage(const Args& a) {
  g_slow_open_ms = a.slow_open_ms;
  g_slow_fsync_ms = a.slow_fsync_ms;
  auto& table = tapio::io::syscalls();
  if (g_slow_open_ms)
    table.open = [](const char* path, int flags, mode_t mode) {
      std::this_thread::sleep_for(std::chrono::milliseconds(g_slow_open_ms));
      return tapio::io::default_syscalls().open(path, flags, mode);
    };
  if (g_slow_fsync_ms)
    table.fsync = [](int fd) {
      std::this_thread::sleep_for(std::chrono::milliseconds(g_slow_fsync_ms));
      return tapio::io::default_syscalls().fsync(fd);
    };
}

void say(int rank, const std::string& line) {
  if (rank != 0) return;
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void setup(tapio::IO& io, const Args& a) {
  io.set_engine(a.engine);
  for (const auto& [k, v] : a.params) io.set_parameter(k, v);
}

int write(const Args& a, int rank, int size) {
  tapio::Context ctx(MPI_COMM_WORLD);
  tapio::IO io = ctx.declare_io("crash");
  setup(io, a);
  auto temp = io.define_variable<double>("temp", kTemp, {"depth", "lat", "lon"});
  auto ids = io.define_variable<int32_t>("ids", {kIds}, {"cell"});
  auto grid = io.define_variable<double>("grid", {kGrid}, {"node"}, TAPIO_VAR_FIXED);
  say(rank, "opening");
  tapio::Engine out = io.open(a.path, a.append ? TAPIO_MODE_APPEND : TAPIO_MODE_WRITE);
  const uint64_t first = out.current_step();

  uint64_t r0, nr;
  split(kTemp[1], size, rank, &r0, &nr);
  const uint64_t plane = kTemp[1] * kTemp[2];
  std::vector<uint64_t> off, len;
  ids_runs(rank, size, &off, &len);
  uint64_t nids = 0;
  for (auto n : len) nids += n;
  uint64_t g0, ng;
  split(kGrid, size, rank, &g0, &ng);

  std::vector<double> t(kTemp[0] * nr * kTemp[2]);
  std::vector<int32_t> d(nids);
  std::vector<double> gr(ng);
  for (uint64_t s = first; s < first + a.steps; ++s) {
    out.begin_step();
    size_t i = 0;
    for (uint64_t z = 0; z < kTemp[0]; ++z)
      for (uint64_t y = r0; y < r0 + nr; ++y)
        for (uint64_t x = 0; x < kTemp[2]; ++x) t[i++] = value(0, s, z * plane + y * kTemp[2] + x);
    temp.set_selection({0, r0, 0}, {kTemp[0], nr, kTemp[2]});
    out.put(temp, t);
    i = 0;
    for (size_t k = 0; k < off.size(); ++k)
      for (uint64_t e = 0; e < len[k]; ++e) d[i++] = ivalue(s, off[k] + e);
    ids.set_runs(off, len);
    out.put(ids, d);
    if (s == 0) {
      for (uint64_t k = 0; k < ng; ++k) gr[k] = value(2, 0, g0 + k);
      grid.set_selection({g0}, {ng});
      out.put(grid, gr);
    }
    out.end_step();
    say(rank, "committed " + std::to_string(s));
    if (a.sleep_ms) std::this_thread::sleep_for(std::chrono::milliseconds(a.sleep_ms));
  }
  say(rank, "closing " + std::to_string(first + a.steps));
  out.close();
  say(rank, "closed " + std::to_string(first + a.steps));
  return 0;
}

// Reads with another decomposition than the writer's: temp by depth, ids and grid by rank
// blocks, shifted by one rank so that no rank reads what it wrote.
class Checker {
 public:
  Checker(tapio::IO& io, int rank, int size)
      : rank_(rank),
        temp_(io.inquire_variable("temp")),
        ids_(io.inquire_variable("ids")),
        grid_(io.inquire_variable("grid")) {
    const int part = (rank + 1) % size;
    split(kTemp[0], size, part, &z0_, &nz_);
    split(kIds, size, part, &i0_, &ni_);
    split(kGrid, size, part, &g0_, &ng_);
    t_.resize(nz_ * kTemp[1] * kTemp[2]);
    d_.resize(ni_);
  }

  void check_grid(tapio::Engine& in) {
    std::vector<double> gr(ng_);
    grid_.set_selection({g0_}, {ng_});
    in.get(grid_, gr);
    in.perform_gets();
    for (uint64_t k = 0; k < ng_; ++k)
      if (gr[k] != value(2, 0, g0_ + k)) report("grid", 0, g0_ + k, gr[k], value(2, 0, g0_ + k));
  }

  void check_step(tapio::Engine& in, uint64_t s) {
    const uint64_t plane = kTemp[1] * kTemp[2];
    temp_.set_selection({z0_, 0, 0}, {nz_, kTemp[1], kTemp[2]});
    temp_.set_step_selection(s, 1);
    ids_.set_selection({i0_}, {ni_});
    ids_.set_step_selection(s, 1);
    in.get(temp_, t_);
    in.get(ids_, d_);
    in.perform_gets();
    for (uint64_t k = 0; k < t_.size(); ++k) {
      const uint64_t g = z0_ * plane + k;
      if (t_[k] != value(0, s, g)) report("temp", s, g, t_[k], value(0, s, g));
    }
    for (uint64_t k = 0; k < ni_; ++k)
      if (d_[k] != ivalue(s, i0_ + k)) report("ids", s, i0_ + k, d_[k], ivalue(s, i0_ + k));
  }

  // Collective: every rank's wrong values, summed; rank 0 prints "ok" or "bad N values".
  int finish() {
    std::fflush(stdout);
    MPI_Allreduce(MPI_IN_PLACE, &bad_, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) {
      std::printf(bad_ ? "bad %llu values\n" : "ok\n", static_cast<unsigned long long>(bad_));
      std::fflush(stdout);
    }
    return bad_ ? 1 : 0;
  }

 private:
  void report(const char* var, uint64_t s, uint64_t g, double got, double want) {
    if (bad_++ < 5)
      std::printf("bad rank %d %s step %llu element %llu: %.17g, expected %.17g\n", rank_, var,
                  static_cast<unsigned long long>(s), static_cast<unsigned long long>(g), got,
                  want);
  }

  int rank_;
  tapio::Variable temp_, ids_, grid_;
  uint64_t z0_, nz_, i0_, ni_, g0_, ng_;
  std::vector<double> t_;
  std::vector<int32_t> d_;
  uint64_t bad_ = 0;
};

int verify(const Args& a, int rank, int size) {
  tapio::Context ctx(MPI_COMM_WORLD);
  tapio::IO io = ctx.declare_io("crash_read");
  setup(io, a);
  tapio::Engine in = io.open(a.path, TAPIO_MODE_READ);
  const uint64_t steps = in.steps();
  say(rank, "steps " + std::to_string(steps));
  // A subfile dataset killed before its first commit has no variables yet: nothing to check.
  if (steps == 0) return 0;
  Checker checker(io, rank, size);
  checker.check_grid(in);
  for (uint64_t s = 0; s < steps; ++s) checker.check_step(in, s);
  in.close();
  return checker.finish();
}

// A live reader: step by step until the writer closed the dataset or is gone.
int follow(const Args& a, int rank, int size) {
  tapio::Context ctx(MPI_COMM_WORLD);
  tapio::IO io = ctx.declare_io("crash_follow");
  setup(io, a);
  tapio::Engine in = io.open(a.path, TAPIO_MODE_READ);
  std::optional<Checker> checker;
  tapio_step_status st;
  while ((st = in.begin_step()) == TAPIO_STEP_OK || st == TAPIO_STEP_NOT_READY) {
    if (st == TAPIO_STEP_NOT_READY) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    const uint64_t s = in.current_step();
    if (!checker) {  // the variables are known once the first step is committed
      checker.emplace(io, rank, size);
      checker->check_grid(in);
    }
    checker->check_step(in, s);
    in.end_step();
    say(rank, "step " + std::to_string(s));
  }
  const std::string steps = std::to_string(in.steps());
  say(rank, st == TAPIO_STEP_WRITER_GONE ? "writer gone " + steps : "end of stream " + steps);
  in.close();
  return checker ? checker->finish() : 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: crash_writer PATH ENGINE STEPS [SLEEP_MS] [--append | --verify | --follow] "
               "[--param KEY=VALUE]... [--slow-open-ms MS] [--slow-fsync-ms MS]\n");
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Args a;
  std::vector<std::string> pos;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--verify") {
      a.verify = true;
    } else if (s == "--follow") {
      a.follow = true;
    } else if (s == "--append") {
      a.append = true;
    } else if ((s == "--slow-open-ms" || s == "--slow-fsync-ms") && i + 1 < argc) {
      (s == "--slow-open-ms" ? a.slow_open_ms : a.slow_fsync_ms) =
          std::strtoull(argv[++i], nullptr, 10);
    } else if (s == "--param" && i + 1 < argc) {
      const std::string kv = argv[++i];
      const auto eq = kv.find('=');
      if (eq == std::string::npos) ok = false;
      else a.params.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else {
      pos.push_back(s);
    }
  }
  if (!ok || pos.size() < 3 || pos.size() > 4 || (a.verify + a.append + a.follow > 1)) {
    if (rank == 0) usage();
    MPI_Finalize();
    return 64;
  }
  a.path = pos[0];
  a.engine = pos[1];
  a.steps = std::strtoull(pos[2].c_str(), nullptr, 10);
  if (pos.size() == 4) a.sleep_ms = std::strtoull(pos[3].c_str(), nullptr, 10);

  int rc;
  try {
    slow_storage(a);
    rc = a.verify   ? verify(a, rank, size)
         : a.follow ? follow(a, rank, size)
                    : write(a, rank, size);
  } catch (const tapio::Error& e) {
    // Collective calls fail on every rank alike; rank 0 speaks for all.
    if (rank == 0) {
      std::printf("error: %s\n", e.what());
      std::fflush(stdout);
    }
    rc = 2;
  }
  MPI_Finalize();
  return rc;
}

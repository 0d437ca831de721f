// The injected half of the fault matrix (docs/reliability.md): every engine × phase × fault,
// injected through the I/O layer's system-call table on one rank (rank 0, then the last).
//   phases: open (creating the file), data (a step's data writes), commit (the step's small
//           writes: numrecs, metadata records, the index record), close (the final fsync),
//           read (a step's reads);
//   faults: EIO and ENOSPC (the call fails), short writes and reads (half of each call),
//           EINTR (each call interrupted once), slow storage (5 ms a call).
// A failing fault that fired anywhere fails the call on every rank with the errno's text, and
// the steps committed before read back exactly; a fault the I/O layer absorbs (short, EINTR,
// slow) changes nothing. The mpiio engine's data and reads go through MPI-IO, which calls libc
// itself, not the table: for those cells the fault goes in through this executable's own
// pwrite and pread (at the end of this file), under ROMIO (MpiioDataAndReadsOnRomio), whose
// errors carry no errno and which does not retry EINTR.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "io/syscalls.h"
#include "test_util.h"

namespace tapio::test {
namespace {

enum class Phase { kOpen, kData, kCommit, kClose, kRead };
// kUnsupported: a file system that cannot reserve storage (EOPNOTSUPP; aimed at fallocate).
enum class Fault { kEio, kEnospc, kShort, kEintr, kSlow, kUnsupported };
const char* name(Phase p) {
  const char* n[] = {"open", "data", "commit", "close", "read"};
  return n[static_cast<int>(p)];
}
const char* name(Fault f) {
  const char* n[] = {"EIO", "ENOSPC", "short", "EINTR", "slow", "EOPNOTSUPP"};
  return n[static_cast<int>(f)];
}
bool fails(Fault f) { return f == Fault::kEio || f == Fault::kEnospc; }

// What the wrappers inject while armed. Data writes are those over 1 KiB; commit writes the
// smaller ones (a numrecs field, an index record, metadata records of a small step).
struct Injection {
  bool armed = false;
  Fault fault = Fault::kEio;
  size_t min_bytes = 0, max_bytes = SIZE_MAX;
  bool interrupted = false;  // EINTR: the call after an interrupted one goes through
  int fired = 0;
} g;

bool hit(size_t n) {
  if (!g.armed || n < g.min_bytes || n > g.max_bytes) return false;
  if (g.fault == Fault::kEintr && g.interrupted) {
    g.interrupted = false;
    return false;
  }
  ++g.fired;
  return true;
}
// Returns -1 with errno for the failing faults and EINTR, or the bytes to pass on (half for a
// short call), sleeping first for slow storage.
ssize_t act(size_t n) {
  switch (g.fault) {
    case Fault::kEio: errno = EIO; return -1;
    case Fault::kEnospc: errno = ENOSPC; return -1;
    case Fault::kEintr: g.interrupted = true; errno = EINTR; return -1;
    case Fault::kShort: return static_cast<ssize_t>(n > 1 ? n / 2 : n);
    case Fault::kSlow: std::this_thread::sleep_for(std::chrono::milliseconds(5)); return n;
    case Fault::kUnsupported: errno = EOPNOTSUPP; return -1;
  }
  return -1;
}

// Armed on the test's thread only: tapio's write-behind threads call pwrite too.
thread_local bool t_libc_armed = false;

// The libc interposers' decision: -1 with errno, or the bytes to pass on (n when not armed).
ssize_t through_libc(size_t n) {
  if (!t_libc_armed || !hit(n)) return static_cast<ssize_t>(n);
  return act(n);
}

ssize_t inj_pwrite(int fd, const void* buf, size_t n, off_t off) {
  if (!hit(n)) return io::default_syscalls().pwrite(fd, buf, n, off);
  const ssize_t pass = act(n);
  return pass < 0 ? pass : io::default_syscalls().pwrite(fd, buf, pass, off);
}
ssize_t inj_pwritev(int fd, const struct iovec* iov, int cnt, off_t off) {
  size_t n = 0;
  for (int i = 0; i < cnt; ++i) n += iov[i].iov_len;
  if (!hit(n)) return io::default_syscalls().pwritev(fd, iov, cnt, off);
  const ssize_t pass = act(n);
  if (pass < 0) return pass;
  if (static_cast<size_t>(pass) == n) return io::default_syscalls().pwritev(fd, iov, cnt, off);
  // Short: only the first iovec's first half (the layer resumes from there).
  return io::default_syscalls().pwrite(fd, iov[0].iov_base, std::max<size_t>(iov[0].iov_len / 2, 1), off);
}
ssize_t inj_pread(int fd, void* buf, size_t n, off_t off) {
  if (!hit(n)) return io::default_syscalls().pread(fd, buf, n, off);
  const ssize_t pass = act(n);
  return pass < 0 ? pass : io::default_syscalls().pread(fd, buf, pass, off);
}
int inj_fallocate(int fd, off_t off, off_t n) {
  if (!hit(static_cast<size_t>(n))) return io::default_syscalls().fallocate(fd, off, n);
  const ssize_t pass = act(static_cast<size_t>(n));
  return pass < 0 ? -1 : io::default_syscalls().fallocate(fd, off, n);
}
int inj_fsync(int fd) {
  if (!hit(1)) return io::default_syscalls().fsync(fd);
  const ssize_t pass = act(1);
  return pass < 0 ? -1 : io::default_syscalls().fsync(fd);
}

constexpr uint64_t kPerRank = 4096;  // doubles: 32 KiB per rank and step
Dims mine() { return block_start(kPerRank); }
std::vector<double> step_data(uint64_t step) { return block_values(kPerRank, step); }

// Where a fault goes in: tapio's system-call table, or libc (the calls MPI-IO makes).
enum class Via { kTable, kLibc };

// One cell of the matrix: a fault in a phase of an engine, on rank `victim`.
struct Cell {
  const char* engine;
  Phase phase;
  Fault fault;
  int victim;
  Via via;
  std::string what() const {
    return std::string(engine) + ", " + name(phase) + ", " + name(fault) + " on rank " +
           std::to_string(victim);
  }
};

// Arms the cell's fault on its victim while `call` runs (when `now`). Through libc only the
// data (calls over 1 KiB) is hit, never tapio's own header and numrecs I/O.
template <typename F>
Outcome injected(const Cell& c, bool now, F&& call) {
  io::ScopedSyscalls restore;
  g = Injection{};
  if (now && rank() == c.victim) {
    g.armed = true;
    g.fault = c.fault;
    if (c.phase == Phase::kData || c.via == Via::kLibc) g.min_bytes = 1025;
    if (c.phase == Phase::kCommit) g.max_bytes = 1024;
    if (c.via == Via::kTable) {
      auto& t = io::syscalls();
      t.pwrite = inj_pwrite;
      t.pwritev = inj_pwritev;
      t.pread = inj_pread;
      t.fsync = inj_fsync;
      t.fallocate = inj_fallocate;
    }
  }
  t_libc_armed = g.armed && c.via == Via::kLibc;
  const Outcome o = attempt(call);
  t_libc_armed = false;
  return o;
}

struct Result {
  Outcome outcome{TAPIO_OK, ""};
  bool fired = false;  // on any rank
  uint64_t committed = 0;
};

// Writes two steps with the fault armed in `phase` (open: the open; data and commit: the
// second step; close: the close) and reads them back (read: the fault armed in the read).
Result run(const Cell& c, const std::string& path) {
  Result r;
  const auto note = [&](const Outcome& o) {
    if (r.outcome.code == TAPIO_OK) r.outcome = o;
  };
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("matrix");
    io.set_engine(c.engine);
    io.set_parameter("fsync", "close");
    Variable x = io.define_variable<double>("x", {kPerRank * static_cast<uint64_t>(size())}, {"n"});
    x.set_selection(mine(), {kPerRank});
    Engine out;
    note(injected(c, c.phase == Phase::kOpen, [&] { out = io.open(path, TAPIO_MODE_WRITE); }));
    int fired = g.fired;
    if (r.outcome.code == TAPIO_OK) {
      for (uint64_t s = 0; s < 2 && r.outcome.code == TAPIO_OK; ++s) {
        const std::vector<double> data = step_data(s);
        const bool now = s == 1 && (c.phase == Phase::kData || c.phase == Phase::kCommit);
        note(injected(c, now, [&] {
          out.begin_step();
          out.put(x, data);
          out.end_step();
        }));
        fired += g.fired;
        if (r.outcome.code == TAPIO_OK) ++r.committed;
      }
      const Outcome closed = injected(c, c.phase == Phase::kClose, [&] { out.close(); });
      fired += g.fired;
      expect_same_everywhere(closed.code);
      note(closed);
    }
    MPI_Allreduce(MPI_IN_PLACE, &fired, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    r.fired = fired > 0;
  }
  if (c.phase != Phase::kRead || r.outcome.code != TAPIO_OK) return r;
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("matrix_read");
  io.set_engine(c.engine);
  Engine in = io.open(path, TAPIO_MODE_READ);
  Variable x = io.inquire_variable("x");
  x.set_selection(mine(), {kPerRank});
  std::vector<double> got(kPerRank);
  in.begin_step();
  in.get(x, got);
  r.outcome = injected(c, true, [&] { in.end_step(); });
  int fired = g.fired;
  MPI_Allreduce(MPI_IN_PLACE, &fired, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  r.fired = fired > 0;
  if (r.outcome.code == TAPIO_OK) {
    EXPECT_EQ(got, step_data(0)) << c.what();
  }
  in.close();
  return r;
}

// The file holds `steps` exact steps (none when nothing was committed and it is unreadable).
void expect_readable(const char* engine, const std::string& path, uint64_t steps,
                     const std::string& what) {
  const Outcome o = attempt([&] { expect_block_steps(engine, path, kPerRank, steps, what); });
  if (steps > 0) {
    EXPECT_EQ(o.code, TAPIO_OK) << what << ": " << o.message;
  }
}

// What a cell whose fault fired returns: its code, and a text its message holds.
struct Expected {
  int code;
  std::string text;
};
// Through libc, ROMIO fails MPI_File_write_all / read_all with its error class MPI_ERR_IO
// (without the errno: tapio's TAPIO_ERR_MPI) when a pwrite or pread fails, EINTR too (it does
// not retry one); it completes short calls itself.
Expected expected(const Cell& c) {
  if (c.via == Via::kLibc) {
    if (!fails(c.fault) && c.fault != Fault::kEintr) return {TAPIO_OK, ""};
    const char* call = c.phase == Phase::kData ? "MPI_File_write_all" : "MPI_File_read_all";
    return {TAPIO_ERR_MPI, std::string(call) + " failed: MPI_ERR_IO"};
  }
  if (!fails(c.fault)) return {TAPIO_OK, ""};
  return {TAPIO_ERR_IO, std::strerror(c.fault == Fault::kEio ? EIO : ENOSPC)};
}

// Runs the cell: the same status on every rank, the one expected when its fault fired (none
// when it did not), and what was committed before a failure (everything otherwise) is there.
void check(const Cell& c) {
  TempDir dir;
  const std::string path = dir.file(std::string(c.engine) + ".out");
  const Result r = run(c, path);
  expect_same_everywhere(r.outcome.code);
  // TAPIO_FAULT_MATRIX=1 prints which cells fired (docs/reliability.md's matrix).
  if (rank() == 0 && std::getenv("TAPIO_FAULT_MATRIX"))
    std::printf("cell %s: %s, code %d: %s\n", c.what().c_str(), r.fired ? "fired" : "not fired",
                r.outcome.code, r.outcome.message.c_str());
  // ROMIO moves every rank's own block itself here (no aggregation): the fault must reach it.
  if (c.via == Via::kLibc) {
    EXPECT_TRUE(r.fired) << c.what() << ": the fault never reached MPI-IO's pwrite or pread";
  }
  const Expected e = r.fired ? expected(c) : Expected{TAPIO_OK, ""};
  EXPECT_EQ(r.outcome.code, e.code) << c.what() << ": " << r.outcome.message;
  EXPECT_NE(r.outcome.message.find(e.text), std::string::npos)
      << c.what() << ": " << r.outcome.message;
  const bool all = c.phase == Phase::kClose || c.phase == Phase::kRead;
  expect_readable(c.engine, path, all ? 2 : r.committed, c.what());
}

const Fault kFaults[] = {Fault::kEio, Fault::kEnospc, Fault::kShort, Fault::kEintr, Fault::kSlow};

// The victims of a fault: rank 0 and the last rank; slow storage once, where the I/O is.
std::vector<int> victims(Fault fault) {
  if (fault == Fault::kSlow) return {0};
  return {0, size() - 1};
}

// The mpiio engine's reads, which the table never sees, are MpiioDataAndReadsOnRomio's. Of its
// data the table sees rank 0's reservation of the step's record (fallocate), made before the
// collective write because OMPIO, the MPI-IO this process runs, reports no failed write.
bool through_mpiio(const char* engine, Phase phase) {
  return std::strcmp(engine, "mpiio") == 0 && phase == Phase::kRead;
}

TEST(FaultMatrix, EveryEnginePhaseAndFault) {
  const Phase phases[] = {Phase::kOpen, Phase::kData, Phase::kCommit, Phase::kClose, Phase::kRead};
  for (const char* engine : {"serial", "mpiio", "collective", "subfile"})
    for (Phase phase : phases)
      for (Fault fault : kFaults)
        for (int victim : victims(fault))
          if (!through_mpiio(engine, phase)) check({engine, phase, fault, victim, Via::kTable});
}

// Run by ctest's mpi.fault_matrix_romio (OMPI_MCA_io=romio321): Open MPI's default, OMPIO,
// returns MPI_SUCCESS from a write or read whose pwrite or pread failed, and hangs when that of
// its aggregator did (docs/reliability.md).
TEST(FaultMatrix, MpiioDataAndReadsOnRomio) {
  for (Phase phase : {Phase::kData, Phase::kRead})
    for (Fault fault : kFaults)
      for (int victim : victims(fault)) check({"mpiio", phase, fault, victim, Via::kLibc});
}

// A file system that cannot reserve storage (fallocate fails with EOPNOTSUPP on rank 0) at the
// second step: the mpiio engine's reservation is gone.
Result without_reservation(const std::string& path) {
  const Result r = run({"mpiio", Phase::kData, Fault::kUnsupported, 0, Via::kTable}, path);
  expect_same_everywhere(r.outcome.code);
  EXPECT_TRUE(r.fired) << "the data phase made no reservation";
  return r;
}

// Under OMPIO (this process's MPI-IO) a write into unreserved storage could fail unseen: the
// step is refused on every rank, naming why and the way out, and the step before reads back.
TEST(FaultMatrix, MpiioWithoutReservationIsRefusedOnOmpio) {
  TempDir dir;
  const std::string path = dir.file("mpiio.out");
  const Result r = without_reservation(path);
  EXPECT_EQ(r.outcome.code, TAPIO_ERR_UNSUPPORTED) << r.outcome.message;
  for (const std::string& part : {path, std::string("'x'"), std::string("rank 0"),
                                  std::string("OMPIO"), std::string("OMPI_MCA_io=romio321")})
    EXPECT_TRUE(contains(r.outcome.message, part)) << part << ": " << r.outcome.message;
  EXPECT_EQ(r.committed, 1u);
  expect_readable("mpiio", path, 1, "without a reservation, OMPIO");
}

// ROMIO reports a failed write itself: the engine writes without a reservation.
TEST(FaultMatrix, MpiioWithoutReservationWritesOnRomio) {
  TempDir dir;
  const std::string path = dir.file("mpiio.out");
  const Result r = without_reservation(path);
  EXPECT_EQ(r.outcome.code, TAPIO_OK) << r.outcome.message;
  expect_readable("mpiio", path, 2, "without a reservation, ROMIO");
}

}  // namespace
}  // namespace tapio::test

// MPI-IO's data calls, in place of libc's: the executable exports them (ENABLE_EXPORTS, and
// default visibility, which the build otherwise hides), so Open MPI's MPI-IO components, which
// it loads with dlopen, bind to them; dlsym(RTLD_NEXT) finds libc's. Here rather than in an
// LD_PRELOAD library: the injection stays the test's own state, and mpiexec needs no option.
// ROMIO's UFS driver moves every byte with pwrite and pread (ADIOI_GEN_WriteContig and
// ReadContig, under collective buffering and data sieving too), which it imports by these
// names, not the 64-bit ones (nm -D); its read and write are not on the data path (strace).
#define TAPIO_EXPORTED __attribute__((visibility("default")))
extern "C" TAPIO_EXPORTED ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  static const auto next = reinterpret_cast<decltype(&pwrite)>(dlsym(RTLD_NEXT, "pwrite"));
  const ssize_t pass = tapio::test::through_libc(n);
  return pass < 0 ? pass : next(fd, buf, static_cast<size_t>(pass), off);
}
extern "C" TAPIO_EXPORTED ssize_t pread(int fd, void* buf, size_t n, off_t off) {
  static const auto next = reinterpret_cast<decltype(&pread)>(dlsym(RTLD_NEXT, "pread"));
  const ssize_t pass = tapio::test::through_libc(n);
  return pass < 0 ? pass : next(fd, buf, static_cast<size_t>(pass), off);
}

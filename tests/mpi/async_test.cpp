// Asynchronous output (`async = true`) of the serial and subfile engines: a storage failure
// injected into a background write or sync (through the syscall table, on rank 0, which writes
// the serial engine's file and the subfile engine's metadata, index and a subfile) surfaces
// at the next end_step on every rank, naming the file, the step and the rank; the steps
// committed before stay readable and exact, and the next step rewrites the first step that was
// not committed. Without faults, an async file is the same as a synchronous one.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <atomic>
#include <string>

#include "io/syscalls.h"
#include "test_util.h"

namespace tapio::test {
namespace {

constexpr uint64_t kPerRank = 4096;  // doubles per rank and step: 32 KiB

// The syscall table is written before the background thread exists and then left alone (the
// thread reads it). What fails is counted, not timed: the background thread may still be
// writing step k - 1 when the program ends step k, so "from now on" would be a race. Data
// writes (more than numrecs' few bytes: one per step here) or fsyncs fail from the
// `fail_from`-th on (0-based), until `failing` is reset.
enum FailWhat { kNothing, kDataWrites, kSyncs };
std::atomic<int> failing{kNothing};
std::atomic<int> data_writes{0}, syncs{0};
int fail_from = 0;  // set before `failing`, read after it

ssize_t pwrite_or_fail(int fd, const void* buf, size_t n, off_t offset) {
  if (n > 1024 && data_writes++ >= fail_from && failing == kDataWrites) {
    errno = EIO;
    return -1;
  }
  return io::default_syscalls().pwrite(fd, buf, n, offset);
}
int fsync_or_fail(int fd) {
  if (syncs++ >= fail_from && failing == kSyncs) {
    errno = EIO;
    return -1;
  }
  return io::default_syscalls().fsync(fd);
}

// Rank 0 (the serial engine's writer) goes through the switchable calls until the end of scope.
class SwitchableFaults {
 public:
  SwitchableFaults() {
    data_writes = 0;
    syncs = 0;
    if (rank() != 0) return;
    io::syscalls().pwrite = pwrite_or_fail;
    io::syscalls().fsync = fsync_or_fail;
  }
  ~SwitchableFaults() { failing = kNothing; }

 private:
  io::ScopedSyscalls restore_;
};

Engine open_async(IO& io, const std::string& path, const std::string& fsync,
                  const std::string& engine) {
  io.set_engine(engine);
  io.set_parameter("async", "true");
  io.set_parameter("async_buffer", "64KiB");  // smaller than a step at 4 ranks: end_step waits
  io.set_parameter("fsync", fsync);
  io.define_variable<double>("x", {kPerRank * size()}, {"n"});
  return io.open(path, TAPIO_MODE_WRITE);
}

// Puts this rank's block of `step`, from *data (a put's buffer must live until end_step).
void put_step(Engine& out, Variable& x, uint64_t step, std::vector<double>* data) {
  *data = block_values(kPerRank, step);
  x.set_selection(block_start(kPerRank), {kPerRank});
  out.put(x, *data);
}

// Steps 0 .. n-1 (each end_step only queues the writes: OK everywhere). Before step
// `arm_at`'s end_step, `what` is armed to fail from its `from`-th call on.
void write_steps(Engine& out, Variable& x, uint64_t n, std::vector<double>* data,
                 uint64_t arm_at = UINT64_MAX, FailWhat what = kNothing, int from = 0) {
  for (uint64_t s = 0; s < n; ++s) {
    out.begin_step();
    put_step(out, x, s, data);
    if (s == arm_at) {
      fail_from = from;
      failing = what;
    }
    expect_same_everywhere(attempt([&] { out.end_step(); }).code);
  }
}

void round_trip(const std::string& engine) {
  TempDir dir;
  const std::string path = dir.file("async.nc");
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("async");
    Engine out = open_async(io, path, "step", engine);
    Variable x = io.inquire_variable("x");
    std::vector<double> data;
    write_steps(out, x, 5, &data);
    out.close();
  }
  expect_block_steps(engine, path, kPerRank, 5, "async");
}

TEST(Async, StepsWrittenInTheBackgroundReadBackExact) { round_trip("serial"); }
TEST(Async, SubfileStepsWrittenInTheBackgroundReadBackExact) { round_trip("subfile"); }

struct Fault {
  const char* name;
  std::string fsync;
  FailWhat what;       // on rank 0
  int from;            // the first failing call of that kind (0-based)
  uint64_t committed;  // steps committed when the failure surfaces
  const char* step;    // what the error names
  std::string engine = "serial";
};

// Steps 0-2, the fault armed on rank 0 before step 2's end_step; step 3's end_step (the
// next call) reports it everywhere. Then the file holds `committed` steps, and the program
// goes on: the next step is step `committed` again.
void fail_and_recover(const Fault& f) {
  TempDir dir;
  const std::string path = dir.file("fault.nc");
  {
    SwitchableFaults faults;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("async");
    Engine out = open_async(io, path, f.fsync, f.engine);
    Variable x = io.inquire_variable("x");
    std::vector<double> data;
    write_steps(out, x, 3, &data, 2, f.what, f.from);
    // Rank 0's begin_step may report the failure already (when the thread has met it).
    const Outcome begun = attempt([&] { out.begin_step(); });
    EXPECT_TRUE(begun.code == TAPIO_OK || (rank() == 0 && begun.code == TAPIO_ERR_IO))
        << begun.message;
    if (begun.code == TAPIO_OK) put_step(out, x, 3, &data);
    const Outcome o = attempt([&] { out.end_step(); });
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_IO) << f.name;
    EXPECT_TRUE(contains(o.message, "rank 0")) << f.name << ": " << o.message;
    EXPECT_TRUE(contains(o.message, path)) << f.name << ": " << o.message;
    EXPECT_TRUE(contains(o.message, f.step)) << f.name << ": " << o.message;
    EXPECT_TRUE(contains(o.message, "Input/output error")) << f.name << ": " << o.message;
    failing = kNothing;
    EXPECT_EQ(out.current_step(), f.committed) << f.name;
    out.begin_step();
    put_step(out, x, f.committed, &data);
    out.end_step();
    out.close();
  }
  expect_block_steps(f.engine, path, kPerRank, f.committed + 1, f.name);
}

TEST(Async, BackgroundWriteFailureReachesEveryRankAtTheNextCall) {
  fail_and_recover(Fault{"write", "close", kDataWrites, 2, 2, "step 2"});
}

TEST(Async, BackgroundSyncFailureReachesEveryRankAtTheNextCall) {
  // With fsync = step, each commit syncs twice (before and after numrecs): step 1's commit,
  // queued by step 2's end_step, makes the third fsync.
  fail_and_recover(Fault{"sync", "step", kSyncs, 2, 1, "the commit of step 1"});
}

// Subfile: rank 0's data writes (> 1 KiB: its region or its group's round; metadata and index
// records are smaller) are one per step, so the third is step 2's.
TEST(Async, SubfileBackgroundWriteFailureReachesEveryRankAtTheNextCall) {
  fail_and_recover(Fault{"write", "close", kDataWrites, 2, 2, "step 2", "subfile"});
}

TEST(Async, SubfileBackgroundSyncFailureReachesEveryRankAtTheNextCall) {
  // fsync = step: rank 0 syncs the subfile behind each step's data, and the metadata and the
  // index behind each index record. Queued before the fault is armed: subfile 0 (#0), step 0's
  // index record (#1, #2), subfile 1 (#3); step 1's index record, queued by step 2's end_step,
  // makes the fifth, which fails: step 1 is not committed either.
  fail_and_recover(
      Fault{"sync", "step", kSyncs, 4, 1, "the index record of step 1", "subfile"});
}

void fail_at_close(const std::string& engine) {
  TempDir dir;
  const std::string path = dir.file("close.nc");
  {
    SwitchableFaults faults;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("async");
    Engine out = open_async(io, path, "close", engine);
    Variable x = io.inquire_variable("x");
    std::vector<double> data;
    write_steps(out, x, 3, &data, 2, kDataWrites, 2);
    const Outcome o = attempt([&] { out.close(); });
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_IO);
    EXPECT_TRUE(contains(o.message, "rank 0") && contains(o.message, "step 2")) << o.message;
  }
  expect_block_steps(engine, path, kPerRank, 2, "close");
}

TEST(Async, FailureAtCloseIsReportedByCloseOnEveryRank) { fail_at_close("serial"); }
TEST(Async, SubfileFailureAtCloseIsReportedByCloseOnEveryRank) { fail_at_close("subfile"); }

TEST(Async, OtherEnginesRefuseAsyncClearly) {
  for (const char* engine : {"collective", "mpiio"}) {
    TempDir dir;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("async");
    io.set_engine(engine);
    io.set_parameter("async", "true");
    io.define_variable<double>("x", {kPerRank * size()}, {"n"});
    const Outcome o = attempt([&] { io.open(dir.file("x.nc"), TAPIO_MODE_WRITE); });
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_UNSUPPORTED) << engine;
    EXPECT_TRUE(contains(o.message, "async")) << o.message;
  }
}

TEST(Async, SubfileRefusesAsyncWithLogMetadata) {
  TempDir dir;
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("async");
  io.set_engine("subfile");
  io.set_parameter("async", "true");
  io.set_parameter("metadata", "log");
  io.define_variable<double>("x", {kPerRank * size()}, {"n"});
  const Outcome o = attempt([&] { io.open(dir.file("x.sub"), TAPIO_MODE_WRITE); });
  expect_same_everywhere(o.code);
  EXPECT_EQ(o.code, TAPIO_ERR_UNSUPPORTED);
  EXPECT_TRUE(contains(o.message, "metadata = gather")) << o.message;
}

}  // namespace
}  // namespace tapio::test

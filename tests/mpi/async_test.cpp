// Asynchronous output (`async = true`) of the serial, subfile, collective and mpiio engines: a
// storage failure injected into a background write or sync (through the syscall table, on rank
// 0, which writes the serial engine's file, the subfile engine's metadata, index and a subfile,
// and the collective engine's commits, its aggregator's rounds and its own direct writes)
// surfaces at the next end_step on every rank, naming the file, the step and the rank; the
// steps committed before stay readable and exact, and the next step rewrites the first step
// that was not committed. Without faults, an async file is the same as a synchronous one.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/syscalls.h"
#include "test_util.h"

namespace tapio::test {
namespace {

constexpr uint64_t kPerRank = 4096;  // doubles per rank and step: 32 KiB

// The syscall table is written before the background thread exists and then left alone (the
// thread reads it). What fails is counted, not timed: the background thread may still be
// writing step k - 1 when the program ends step k, so "from now on" would be a race. Data
// writes (more than numrecs' few bytes: one per step here) or fsyncs fail from the
// `fail_from`-th on (0-based), until `failing` is reset; or (kSlowWrites) every data write
// takes 2 ms longer, so that a buffer reused before its background write finished shows.
enum FailWhat { kNothing, kDataWrites, kSyncs, kSlowWrites, kMpiWaits };
std::atomic<int> failing{kNothing};
std::atomic<int> data_writes{0}, syncs{0}, mpi_waits{0};
std::atomic<int> fail_from{0};  // read by the background threads too

ssize_t pwrite_or_fail(int fd, const void* buf, size_t n, off_t offset) {
  if (n > 1024 && failing == kSlowWrites)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (n > 1024 && data_writes++ >= fail_from && failing == kDataWrites) {
    errno = EIO;
    return -1;
  }
  return io::default_syscalls().pwrite(fd, buf, n, offset);
}
}  // namespace
}  // namespace tapio::test

// The mpiio engine's started writes (MPI_File_iwrite_all) complete in tapio's
// MPI_Request_get_status (not MPI_Wait, which crashes on a failed OMPIO request), the only one
// it makes: through the profiling interface, on rank 0, the `fail_from`-th completion on
// reports an error (the write itself completed).
extern "C" int MPI_Request_get_status(MPI_Request request, int* done, MPI_Status* status) {
  using namespace tapio::test;
  const int rc = PMPI_Request_get_status(request, done, status);
  if (rank() != 0 || !*done) return rc;
  return mpi_waits++ >= fail_from && failing == kMpiWaits ? MPI_ERR_OTHER : rc;
}

namespace tapio::test {
namespace {

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
    mpi_waits = 0;
    if (rank() != 0) return;
    io::syscalls().pwrite = pwrite_or_fail;
    io::syscalls().fsync = fsync_or_fail;
  }
  ~SwitchableFaults() { failing = kNothing; }

 private:
  io::ScopedSyscalls restore_;
};

using Params = std::vector<std::pair<std::string, std::string>>;

Engine open_async(IO& io, const std::string& path, const std::string& fsync,
                  const std::string& engine, const Params& more = {}) {
  io.set_engine(engine);
  io.set_parameter("async", "true");
  io.set_parameter("async_buffer", "64KiB");  // smaller than a step at 4 ranks: end_step waits
  io.set_parameter("fsync", fsync);
  for (const auto& [name, value] : more) io.set_parameter(name, value);
  io.define_variable<double>("x", {kPerRank * size()}, {"n"});
  return io.open(path, TAPIO_MODE_WRITE);
}

// Puts this rank's block of `step`, from *data (a put's buffer must live until end_step);
// with `split`, in two halves with a perform_puts between them, so the second batch reuses
// buffers the first one's background writes may still read.
void put_step(Engine& out, Variable& x, uint64_t step, std::vector<double>* data,
              bool split = false) {
  *data = block_values(kPerRank, step);
  const uint64_t first = split ? kPerRank / 2 : kPerRank;
  x.set_selection(block_start(kPerRank), {first});
  out.put(x, data->data());
  if (!split) return;
  out.perform_puts();
  x.set_selection({block_start(kPerRank)[0] + first}, {kPerRank - first});
  out.put(x, data->data() + first);
}

// Before step `at`'s end_step, `what` is armed to fail from its `from`-th call on, once rank 0
// has made `after_syncs` fsyncs (the collective engine syncs on two threads, its data writer's
// and its commits': waiting for the syncs queued before makes the failing one known).
struct Arm {
  uint64_t at = UINT64_MAX;
  FailWhat what = kNothing;
  int from = 0;
  int after_syncs = 0;
};

void arm(const Arm& a) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (rank() == 0 && syncs < a.after_syncs && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  fail_from = a.from;
  failing = a.what;
}

// Steps 0 .. n-1 (each end_step only queues the writes: OK everywhere), armed as `a` says.
void write_steps(Engine& out, Variable& x, uint64_t n, std::vector<double>* data,
                 const Arm& a = {}, bool split = false) {
  for (uint64_t s = 0; s < n; ++s) {
    out.begin_step();
    put_step(out, x, s, data, split);
    if (s == a.at) arm(a);
    expect_same_everywhere(attempt([&] { out.end_step(); }).code);
  }
}

void round_trip(const std::string& engine, const Params& more = {}, bool split = false) {
  TempDir dir;
  const std::string path = dir.file("async.nc");
  {
    SwitchableFaults slow;
    failing = kSlowWrites;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("async");
    Engine out = open_async(io, path, "step", engine, more);
    Variable x = io.inquire_variable("x");
    std::vector<double> data;
    write_steps(out, x, 5, &data, Arm{}, split);
    out.close();
  }
  expect_block_steps(engine, path, kPerRank, 5, "async");
}

TEST(Async, StepsWrittenInTheBackgroundReadBackExact) { round_trip("serial"); }
TEST(Async, SubfileStepsWrittenInTheBackgroundReadBackExact) { round_trip("subfile"); }
TEST(Async, CollectiveStepsWrittenInTheBackgroundReadBackExact) {
  round_trip("collective");  // direct writes: each rank its own block
  // Through the aggregators in 8 KiB rounds (4 * P per step) and async_buffer / buffer_size
  // = 8 slots: in the node's shared window, in private buffers, and between virtual nodes
  // (messages), and two-level between virtual nodes of two ranks; each also with a
  // perform_puts inside every step.
  const Params rounds = {{"direct", "never"}, {"buffer_size", "8KiB"}, {"stripe_size", "8KiB"}};
  for (const Params& how : {Params{}, Params{{"shared_memory", "false"}},
                            Params{{"ranks_per_node", "1"}},
                            Params{{"ranks_per_node", "2"}, {"two_level", "true"}}}) {
    Params more = rounds;
    more.insert(more.end(), how.begin(), how.end());
    round_trip("collective", more);
    more.emplace_back("fill", "false");  // else each batch fills what it leaves out (api.md)
    round_trip("collective", more, true);
  }
}

struct Fault {
  const char* name;
  std::string fsync;
  FailWhat what;       // on rank 0
  int from;            // the first failing call of that kind (0-based)
  uint64_t committed;  // steps committed when the failure surfaces
  const char* step;    // what the error names
  std::string engine = "serial";
  int after_syncs = 0;  // Arm::after_syncs
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
    write_steps(out, x, 3, &data, Arm{2, f.what, f.from, f.after_syncs});
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

// Collective: rank 0's data writes are its own block, written directly (one per step, the
// third step 2's); its commits (numrecs) are smaller than 1 KiB.
TEST(Async, CollectiveBackgroundWriteFailureReachesEveryRankAtTheNextCall) {
  fail_and_recover(Fault{"write", "close", kDataWrites, 2, 2, "step 2", "collective"});
}

TEST(Async, CollectiveBackgroundSyncFailureReachesEveryRankAtTheNextCall) {
  // fsync = step: rank 0 syncs its data file behind each step's writes and its header file
  // twice in each commit. Once the four syncs of steps 0 and 1 have run (step 0's data, its
  // commit's two, step 1's data), every later one fails: step 1's commit, queued by step 2's
  // end_step, and step 2's data sync; the commit is reported (rank 0's own queue first).
  fail_and_recover(Fault{"sync", "step", kSyncs, 4, 1, "the commit of step 1", "collective", 4});
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
    write_steps(out, x, 3, &data, Arm{2, kDataWrites, 2});
    const Outcome o = attempt([&] { out.close(); });
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_IO);
    EXPECT_TRUE(contains(o.message, "rank 0") && contains(o.message, "step 2")) << o.message;
  }
  expect_block_steps(engine, path, kPerRank, 2, "close");
}

TEST(Async, FailureAtCloseIsReportedByCloseOnEveryRank) { fail_at_close("serial"); }
TEST(Async, SubfileFailureAtCloseIsReportedByCloseOnEveryRank) { fail_at_close("subfile"); }
TEST(Async, CollectiveFailureAtCloseIsReportedByCloseOnEveryRank) { fail_at_close("collective"); }

TEST(Async, MpiioStepsWrittenInTheBackgroundReadBackExact) {
  round_trip("mpiio");
  round_trip("mpiio", {{"fill", "false"}}, true);  // a perform_puts in every step
}

// mpiio: step k's write completes (MPI_Request_get_status) in end_step k + 1. Armed before step 2's
// end_step from the third completion on, so step 2's fails: reported at step 3's end_step on
// every rank, naming the file, the step and the rank; steps 0 and 1 stay, and the program
// goes on from step 2.
TEST(Async, MpiioBackgroundWriteFailureReachesEveryRankAtTheNextCall) {
  TempDir dir;
  const std::string path = dir.file("fault.nc");
  {
    SwitchableFaults faults;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("async");
    Engine out = open_async(io, path, "close", "mpiio");
    Variable x = io.inquire_variable("x");
    std::vector<double> data;
    write_steps(out, x, 3, &data, Arm{2, kMpiWaits, 2});
    out.begin_step();
    put_step(out, x, 3, &data);
    const Outcome o = attempt([&] { out.end_step(); });
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_MPI);
    for (const char* part : {"rank 0", "step 2", "MPI_File_iwrite_all", path.c_str()})
      EXPECT_TRUE(contains(o.message, part)) << part << ": " << o.message;
    failing = kNothing;
    EXPECT_EQ(out.current_step(), 2u);
    out.begin_step();
    put_step(out, x, 2, &data);
    out.end_step();
    out.close();
  }
  expect_block_steps("mpiio", path, kPerRank, 3, "mpiio");
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

// Storage faults injected through the I/O layer's system-call table. A failing call on one
// rank returns the error on every rank (naming the file and the rank), nobody hangs, and the
// steps written before stay readable: the collective engine's aggregator writes (with and
// without node shared memory), direct writes by any rank, and reads. Slow storage never lets
// the next rounds' data into a buffer that is still being written; a node whose shared window
// cannot be allocated fails the step everywhere, and the next step allocates again; so does a
// rank that runs out of memory for its data.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <new>
#include <thread>

#include "io/syscalls.h"
#include "test_util.h"

namespace tapio::test {
namespace {

// Data writes (more than a header's or numrecs' few bytes) fail with EIO on this process.
ssize_t failing_pwrite(int, const void*, size_t n, off_t) {
  if (n > 1024) {
    errno = EIO;
    return -1;
  }
  return static_cast<ssize_t>(n);  // never reached for data: those fail
}
ssize_t failing_pread(int, void*, size_t, off_t) {
  errno = EIO;
  return -1;
}

// Data writes take 20 ms (then happen): the write-behind thread lags the exchange.
ssize_t slow_pwrite(int fd, const void* buf, size_t n, off_t offset) {
  if (n > 1024) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return io::default_syscalls().pwrite(fd, buf, n, offset);
}

// MPI's profiling interface: this definition takes the place of the library's, and fails
// without allocating (and without entering the collective) while the flag is set.
bool fail_shared_window = false;

}  // namespace
}  // namespace tapio::test

// tapio takes its large buffers with the nothrow array new (linked statically here, it uses
// this replacement): allocations of at least this many bytes fail while it is set, as they do
// when a rank runs out of memory.
size_t fail_allocations_from = SIZE_MAX;

extern "C" int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                                       MPI_Comm comm, void* baseptr, MPI_Win* win) {
  if (tapio::test::fail_shared_window) return MPI_ERR_NO_MEM;
  return PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
}

// The memory comes from the throwing operator new[], so the delete[] that frees it matches
// (AddressSanitizer reports malloc freed by delete[]).
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  if (n >= fail_allocations_from) return nullptr;
  try {
    return ::operator new[](n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

namespace tapio::test {
namespace {

struct Case {
  const char* name;
  std::map<std::string, std::string> params;
  bool slabs;  // rows in rank order: direct writes; otherwise columns: through aggregators
};

constexpr uint64_t kRows = 64;
uint64_t cols() { return 64 * static_cast<uint64_t>(size()); }

void expect_everywhere(int code, int want) {
  int lo = code, hi = code;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, want);
  EXPECT_EQ(hi, want);
}

// Writes three steps of field[kRows][cols()] (element g of step s holds value(0, s, g));
// during the third, `victim`'s data writes fail (-1: nobody's).
void write_steps(const std::string& path, const Case& c, int victim) {
  tapio_context* ctx;
  ASSERT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_OK);
  tapio_io* io;
  ASSERT_EQ(tapio_declare_io(ctx, "fault", &io), TAPIO_OK);
  ASSERT_EQ(tapio_io_set_engine(io, "collective"), TAPIO_OK);
  ASSERT_EQ(tapio_io_set_parameter(io, "stripe_size", "4096"), TAPIO_OK);
  for (const auto& [k, v] : c.params)
    ASSERT_EQ(tapio_io_set_parameter(io, k.c_str(), v.c_str()), TAPIO_OK);
  const uint64_t shape[2] = {kRows, cols()};
  tapio_var* var;
  ASSERT_EQ(tapio_define_variable(io, "field", TAPIO_FLOAT64, 2, shape, nullptr, 0, &var),
            TAPIO_OK);
  tapio_engine* e;
  ASSERT_EQ(tapio_open(io, path.c_str(), TAPIO_MODE_WRITE, &e), TAPIO_OK);
  Dims start = {0, 64 * static_cast<uint64_t>(rank())}, count = {kRows, 64};
  if (c.slabs) {
    const uint64_t band = kRows / size();
    start = {band * rank(), 0};
    count = {rank() + 1 == size() ? kRows - start[0] : band, cols()};
  }
  const std::vector<uint64_t> mine = box_indices({kRows, cols()}, start, count);
  std::vector<double> data(mine.size());
  for (int s = 0; s < 3; ++s) {
    for (size_t i = 0; i < mine.size(); ++i) data[i] = value(0, s, mine[i]);
    ASSERT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
    ASSERT_EQ(tapio_var_set_selection(var, start.data(), count.data()), TAPIO_OK);
    ASSERT_EQ(tapio_put(e, var, TAPIO_FLOAT64, data.data()), TAPIO_OK);
    if (s < 2 || victim < 0) {
      expect_everywhere(tapio_end_step(e), TAPIO_OK);
      continue;
    }
    io::ScopedSyscalls restore;
    if (rank() == victim) io::syscalls().pwrite = failing_pwrite;
    const Outcome o = outcome(tapio_end_step(e));
    expect_everywhere(o.code, TAPIO_ERR_IO);
    EXPECT_TRUE(contains(o.message, "rank " + std::to_string(victim))) << c.name << ": " << o.message;
    EXPECT_TRUE(contains(o.message, path)) << c.name << ": " << o.message;
    EXPECT_TRUE(contains(o.message, "Input/output error")) << c.name << ": " << o.message;
  }
  EXPECT_EQ(tapio_close(e), TAPIO_OK);
  EXPECT_EQ(tapio_finalize(ctx), TAPIO_OK);
}

// The file has exactly `steps` steps, each exact (read by columns, whatever the writer did).
void expect_steps(const std::string& path, uint64_t steps, const char* name) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("check");
  io.set_engine("collective");
  Engine in = io.open(path, TAPIO_MODE_READ);
  EXPECT_EQ(in.steps(), steps) << name;
  Variable v = io.inquire_variable("field");
  const Dims start = {0, 64 * static_cast<uint64_t>(rank())}, count = {kRows, 64};
  const std::vector<uint64_t> mine = box_indices({kRows, cols()}, start, count);
  v.set_selection(start, count);
  for (uint64_t s = 0; s < steps; ++s) {
    std::vector<double> got(mine.size());
    in.begin_step();
    in.get(v, got);
    in.end_step();
    for (size_t i = 0; i < mine.size(); ++i)
      ASSERT_EQ(got[i], value(0, s, mine[i])) << name << " step " << s;
  }
  in.close();
}

TEST(Faults, FailedWritesReachEveryRankAndKeepEarlierSteps) {
  const std::vector<Case> cases = {
      {"aggregator, shared memory", {}, false},
      {"aggregator, messages", {{"shared_memory", "false"}}, false},
      {"aggregator, many rounds", {{"buffer_size", "8192"}}, false},
      {"direct", {}, true},
  };
  for (const Case& c : cases) {
    // On one node the aggregator is rank 0; a direct write fails on the last rank.
    const int victim = c.slabs ? size() - 1 : 0;
    TempDir dir;
    const std::string path = dir.file("fault.nc");
    write_steps(path, c, victim);
    expect_steps(path, 2, c.name);
  }
}

TEST(Faults, FailedReadReachesEveryRank) {
  TempDir dir;
  const std::string path = dir.file("read_fault.nc");
  write_steps(path, Case{"setup", {}, false}, -1);
  expect_steps(path, 3, "setup");
  tapio_context* ctx;
  ASSERT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_OK);
  tapio_io* io;
  ASSERT_EQ(tapio_declare_io(ctx, "read", &io), TAPIO_OK);
  ASSERT_EQ(tapio_io_set_engine(io, "collective"), TAPIO_OK);
  tapio_engine* e;
  ASSERT_EQ(tapio_open(io, path.c_str(), TAPIO_MODE_READ, &e), TAPIO_OK);
  tapio_var* var;
  ASSERT_EQ(tapio_inquire_variable(io, "field", &var), TAPIO_OK);
  const uint64_t start[2] = {0, 64 * static_cast<uint64_t>(rank())}, count[2] = {kRows, 64};
  ASSERT_EQ(tapio_var_set_selection(var, start, count), TAPIO_OK);
  std::vector<double> got(kRows * 64);
  ASSERT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
  ASSERT_EQ(tapio_get(e, var, TAPIO_FLOAT64, got.data()), TAPIO_OK);
  {
    io::ScopedSyscalls restore;
    if (rank() == 0) io::syscalls().pread = failing_pread;  // the aggregator
    const Outcome o = outcome(tapio_end_step(e));
    expect_everywhere(o.code, TAPIO_ERR_IO);
    EXPECT_TRUE(contains(o.message, "rank 0")) << o.message;
    EXPECT_TRUE(contains(o.message, path)) << o.message;
  }
  EXPECT_EQ(tapio_close(e), TAPIO_OK);
  EXPECT_EQ(tapio_finalize(ctx), TAPIO_OK);
}

// Two virtual nodes (one at 1 rank); every rank of node 0 fails to allocate the node window
// while node 1 makes its own. The step fails on every rank, naming the call once; the next
// step must agree to allocate again on both nodes (had node 1 kept its window, it would skip
// the agreement node 0 enters) and writes exact data.
TEST(Faults, FailedSharedWindowFailsTheStepAndTheNextAllocatesAgain) {
  const int per_node = std::max(1, size() / 2);
  TempDir dir;
  const std::string path = dir.file("window.nc");
  const Dims start = {0, 64 * static_cast<uint64_t>(rank())}, count = {kRows, 64};
  const std::vector<uint64_t> mine = box_indices({kRows, cols()}, start, count);
  std::vector<double> data(mine.size());
  for (size_t i = 0; i < mine.size(); ++i) data[i] = value(0, 0, mine[i]);
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("window");
    io.set_engine("collective");
    io.set_parameter("ranks_per_node", std::to_string(per_node));
    Variable field = io.define_variable<double>("field", {kRows, cols()}, {"y", "x"});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    field.set_selection(start, count);
    fail_shared_window = rank() < per_node;
    out.begin_step();
    out.put(field, data);
    Outcome failed{TAPIO_OK, ""};
    try {
      out.end_step();
    } catch (const Error& e) {
      failed = Outcome{e.code(), e.what()};
    }
    fail_shared_window = false;
    expect_everywhere(failed.code, TAPIO_ERR_MPI);
    EXPECT_TRUE(contains(failed.message, "rank 0: ")) << failed.message;
    EXPECT_TRUE(contains(failed.message, "MPI_Win_allocate_shared")) << failed.message;
    EXPECT_FALSE(contains(failed.message, "rank 0: rank 0:")) << failed.message;
    out.begin_step();
    out.put(field, data);
    out.end_step();
    out.close();
  }
  expect_steps(path, 1, "after a failed window");
}

// The last rank (not an aggregator at 2+ ranks) cannot allocate the staging copy of its
// 4 MiB: the write step and then a read fail on every rank with its error, naming the file;
// nobody is left inside the exchange, and with the memory back both work.
TEST(Faults, OutOfMemoryFailsTheCallOnEveryRank) {
  constexpr uint64_t kPerRank = 512u << 10;  // doubles: 4 MiB
  const uint64_t n = kPerRank * static_cast<uint64_t>(size());
  const int victim = size() - 1;
  TempDir dir;
  const std::string path = dir.file("nomem.nc");
  const Dims start = {kPerRank * static_cast<uint64_t>(rank())}, count = {kPerRank};
  std::vector<double> data(kPerRank);
  for (uint64_t i = 0; i < kPerRank; ++i) data[i] = value(0, 0, start[0] + i);
  const auto expect_nomem = [&](const std::function<void()>& call, const char* what) {
    Outcome o{TAPIO_OK, ""};
    if (rank() == victim) fail_allocations_from = 2u << 20;
    try {
      call();
    } catch (const Error& e) {
      o = Outcome{e.code(), e.what()};
    }
    fail_allocations_from = SIZE_MAX;
    expect_everywhere(o.code, TAPIO_ERR_NOMEM);
    EXPECT_TRUE(contains(o.message, "rank " + std::to_string(victim))) << what << ": " << o.message;
    EXPECT_TRUE(contains(o.message, path)) << what << ": " << o.message;
  };
  // Messages, not shared slots: every rank stages its data.
  const std::map<std::string, std::string> params = {
      {"shared_memory", "false"}, {"direct", "never"}, {"fsync", "never"}};
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("nomem");
    io.set_engine("collective");
    for (const auto& [k, v] : params) io.set_parameter(k, v);
    Variable x = io.define_variable<double>("x", {n}, {"n"});
    x.set_selection(start, count);
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    out.begin_step();
    out.put(x, data);
    expect_nomem([&] { out.end_step(); }, "write");
    out.begin_step();
    out.put(x, data);
    out.end_step();
    out.close();
  }
  // A read step ends whether or not its gets succeeded: the second read opens the file again.
  std::vector<double> got(kPerRank, -1.0);
  for (bool short_of_memory : {true, false}) {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("nomem_read");
    io.set_engine("collective");
    for (const auto& [k, v] : params) io.set_parameter(k, v);
    Engine in = io.open(path, TAPIO_MODE_READ);
    EXPECT_EQ(in.steps(), 1u);
    Variable x = io.inquire_variable("x");
    x.set_selection(start, count);
    in.begin_step();
    in.get(x, got);
    if (short_of_memory)
      expect_nomem([&] { in.end_step(); }, "read");
    else
      in.end_step();
    in.close();
  }
  for (uint64_t i = 0; i < kPerRank; ++i) ASSERT_EQ(got[i], data[i]) << i;
}

// A step puts A and C but not B, which lies between them: the rounds inside B write nothing,
// so after an odd number of them C's first round reuses the slot whose (slow) write of A may
// still be running. It must wait for that write, or C's bytes land in the slot and go to A's
// place in the file. B of one to four rounds gives both parities wherever the rounds fall.
TEST(Faults, SlowWritesNeverSeeLaterRoundsData) {
  constexpr uint64_t kPerRank = 1024;  // doubles: 8 KiB per rank in A and C, two rounds
  const uint64_t n = kPerRank * static_cast<uint64_t>(size());
  const std::vector<std::map<std::string, std::string>> cases = {
      {}, {{"shared_memory", "false"}}, {{"ranks_per_node", "1"}}};
  const Dims start = {kPerRank * static_cast<uint64_t>(rank())}, count = {kPerRank};
  for (const auto& params : cases)
    for (uint64_t b_rounds = 1; b_rounds <= 4; ++b_rounds) {
      TempDir dir;
      const std::string path = dir.file("slow.nc");
      {
        io::ScopedSyscalls restore;
        io::syscalls().pwrite = slow_pwrite;
        Context ctx(MPI_COMM_WORLD);
        IO io = ctx.declare_io("slow");
        io.set_engine("collective");
        io.set_parameter("buffer_size", "4096");
        io.set_parameter("stripe_size", "4096");
        io.set_parameter("direct", "never");
        for (const auto& [k, v] : params) io.set_parameter(k, v);
        Variable a = io.define_variable<double>("A", {n}, {"x"});
        io.define_variable<double>("B", {b_rounds * 512}, {"y"});
        Variable c = io.define_variable<double>("C", {n}, {"x"});
        std::vector<double> va(kPerRank), vc(kPerRank);
        for (uint64_t i = 0; i < kPerRank; ++i) {
          va[i] = value(0, 0, start[0] + i);
          vc[i] = value(2, 0, start[0] + i);
        }
        Engine out = io.open(path, TAPIO_MODE_WRITE);
        out.begin_step();
        a.set_selection(start, count);
        out.put(a, va);
        c.set_selection(start, count);
        out.put(c, vc);
        out.end_step();
        out.close();
      }
      Context ctx(MPI_COMM_WORLD);
      IO io = ctx.declare_io("check");
      Engine in = io.open(path, TAPIO_MODE_READ);
      in.begin_step();
      std::vector<double> got_a(kPerRank), got_c(kPerRank), got_b(b_rounds * 512);
      Variable a = io.inquire_variable("A"), b = io.inquire_variable("B");
      Variable c = io.inquire_variable("C");
      a.set_selection(start, count);
      in.get(a, got_a);
      c.set_selection(start, count);
      in.get(c, got_c);
      in.get(b, got_b);
      in.end_step();
      in.close();
      const std::string what = "B of " + std::to_string(b_rounds) + " rounds";
      for (uint64_t i = 0; i < kPerRank; ++i) {
        ASSERT_EQ(got_a[i], value(0, 0, start[0] + i)) << what << ": A[" << start[0] + i << "]";
        ASSERT_EQ(got_c[i], value(2, 0, start[0] + i)) << what << ": C[" << start[0] + i << "]";
      }
      for (double x : got_b) ASSERT_EQ(x, 9.9692099683868690e36) << what << ": B is fill";
    }
}

}  // namespace
}  // namespace tapio::test

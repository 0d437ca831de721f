// Storage faults on one rank, injected through the I/O layer's system-call table: the failing
// call returns the error on every rank (naming the file and the rank), nobody hangs, and the
// steps written before stay readable. Covers the collective engine's aggregator writes (with
// and without node shared memory), direct writes by any rank, and reads.
#include <gtest/gtest.h>

#include <cerrno>
#include <map>

#include "io/syscalls.h"
#include "test_util.h"

namespace tapio::test {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

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

}  // namespace
}  // namespace tapio::test

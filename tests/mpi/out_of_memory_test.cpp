// An allocation failure on one rank, every engine (docs/reliability.md, the fault matrix):
// this executable replaces the global operator new, which tapio's library calls too, and
// fails the first allocation of at least 1 MiB on the victim rank (rank 0, then the last)
// while armed — inside a step's end_step, then inside a read. The call fails on every rank
// with TAPIO_ERR_NOMEM naming the victim and what it was doing, no rank hangs, the step
// committed before reads back exactly, and the next call works.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>

#include "test_util.h"

namespace {

// Armed on the test's thread only, for one allocation.
thread_local bool t_armed = false;
thread_local int t_fired = 0;
constexpr size_t kFailFrom = size_t{1} << 20;

}  // namespace

void* operator new(size_t n) {
  if (t_armed && n >= kFailFrom) {
    t_armed = false;
    ++t_fired;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n > 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
// The pair of the operator new above: malloc's memory goes back to free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace tapio::test {
namespace {

constexpr uint64_t kPerRank = 512 * 1024;  // doubles: 4 MiB per rank and step

// Runs `call` with the failure armed on `victim`; the outcome, and whether it fired anywhere.
template <typename F>
Outcome injected(int victim, bool* fired, F&& call) {
  t_fired = 0;
  t_armed = rank() == victim;
  const Outcome o = attempt(call);
  t_armed = false;
  int any = t_fired;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  *fired = any > 0;
  return o;
}

// Fired: TAPIO_ERR_NOMEM on every rank, naming the victim, the size and what failed.
void expect_agreed_failure(const Outcome& o, bool fired, int victim, const std::string& what) {
  expect_same_everywhere(o.code);
  if (!fired) {
    EXPECT_EQ(o.code, TAPIO_OK) << what << ": " << o.message;
    return;
  }
  EXPECT_EQ(o.code, TAPIO_ERR_NOMEM) << what << ": " << o.message;
  for (const std::string& part : {"rank " + std::to_string(victim), std::string("allocate"),
                                  std::string(" bytes")})
    EXPECT_TRUE(contains(o.message, part)) << what << ": '" << part << "' not in " << o.message;
}

class OutOfMemory : public ::testing::TestWithParam<const char*> {};

// Step 0 writes x; step 1 writes x and y, so its buffers outgrow step 0's (which the engines
// keep) and take new memory: where the failure is armed.
TEST_P(OutOfMemory, OneRankFailsEveryRankReportsAndNothingCommittedIsLost) {
  const char* engine = GetParam();
  for (int victim : size() > 1 ? std::vector<int>{0, size() - 1} : std::vector<int>{0}) {
    const std::string what = std::string(engine) + ", rank " + std::to_string(victim);
    TempDir dir;
    const std::string path = dir.file("oom.out");
    bool fired = false;
    {
      Context ctx(MPI_COMM_WORLD);
      IO io = ctx.declare_io("oom");
      io.set_engine(engine);
      const Dims shape{kPerRank * static_cast<uint64_t>(size())};
      Variable x = io.define_variable<double>("x", shape, {"n"});
      Variable y = io.define_variable<double>("y", shape, {"n"});
      x.set_selection(block_start(kPerRank), {kPerRank});
      y.set_selection(block_start(kPerRank), {kPerRank});
      Engine out = io.open(path, TAPIO_MODE_WRITE);
      const std::vector<double> first = block_values(kPerRank, 0);
      out.begin_step();
      out.put(x, first);
      out.end_step();
      const std::vector<double> second = block_values(kPerRank, 1);
      out.begin_step();
      out.put(x, second);
      out.put(y, second);
      const Outcome o = injected(victim, &fired, [&] { out.end_step(); });
      // The subfile engine's direct writes (its default here) take no memory of the data's size.
      if (victim == 0 && std::string(engine) != "subfile")
        EXPECT_TRUE(fired) << what << ": nothing allocated 1 MiB";
      expect_agreed_failure(o, fired, victim, what);
      out.close();
    }
    expect_block_steps(engine, path, kPerRank, fired ? 1 : 2, what);
    // A read: the failure on the victim, then the same read again.
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("oom_read");
    io.set_engine(engine);
    Engine in = io.open(path, TAPIO_MODE_READ);
    Variable x = io.inquire_variable("x");
    x.set_selection(block_start(kPerRank), {kPerRank});
    x.set_step_selection(0, 1);
    std::vector<double> got(kPerRank, -1.0);
    in.get(x, got);
    const Outcome o = injected(victim, &fired, [&] { in.perform_gets(); });
    expect_agreed_failure(o, fired, victim, what + ", read");
    in.get(x, got);
    in.perform_gets();
    EXPECT_EQ(got, block_values(kPerRank, 0)) << what;
    in.close();
  }
}

// The subfile engine's aggregating rank takes its round buffers (buffer_size each) at its first
// step: armed there, the step fails on every rank, and the next step writes and reads back.
TEST(OutOfMemorySubfile, AggregatorWithoutRoundBuffersFailsTheStepEverywhere) {
  TempDir dir;
  const std::string path = dir.file("oom.sub");
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("oom");
    io.set_engine("subfile");
    io.set_parameter("subfile_write", "aggregate");
    io.set_parameter("buffer_size", "2MiB");
    Variable x = io.define_variable<double>("x", {kPerRank * static_cast<uint64_t>(size())}, {"n"});
    x.set_selection(block_start(kPerRank), {kPerRank});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    for (uint64_t s = 0; s < 2; ++s) {  // step 0 fails: what step 1 writes is step 0
      const std::vector<double> data = block_values(kPerRank, 0);
      bool fired = false;
      out.begin_step();
      out.put(x, data);
      const Outcome o = injected(s == 0 ? 0 : -1, &fired, [&] { out.end_step(); });
      if (s == 0) {
        EXPECT_TRUE(fired) << "the aggregator allocated no round buffer";
        expect_agreed_failure(o, fired, 0, "subfile, aggregate");
      } else {
        EXPECT_EQ(o.code, TAPIO_OK) << o.message;
      }
    }
    out.close();
  }
  expect_block_steps("subfile", path, kPerRank, 1, "subfile, aggregate");
}

INSTANTIATE_TEST_SUITE_P(Engines, OutOfMemory,
                         ::testing::Values("serial", "mpiio", "collective", "subfile"));

}  // namespace
}  // namespace tapio::test

// An allocation failure on one rank, every engine (docs/reliability.md, the fault matrix):
// this executable replaces the global operator new, which tapio's library calls too, and
// fails an allocation on the victim rank (rank 0, then the last) while armed: the first of at
// least 1 MiB inside a step's end_step, then inside a read; and, with 8000 variables, each
// of at least 64 KiB that open, close and a step's commit make, in turn. The call fails on
// every rank with TAPIO_ERR_NOMEM naming the victim and what it was doing, no rank hangs, the
// step committed before reads back exactly, and the next call works.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>

#include "test_util.h"

namespace {

// Armed on the test's thread only, for one allocation: the one after t_skip others of at least
// t_fail_from bytes. While t_counting, those allocations are only counted (in t_seen).
thread_local bool t_armed = false;
thread_local bool t_counting = false;
thread_local int t_fired = 0;
thread_local int t_skip = 0;
thread_local int t_seen = 0;
constexpr size_t kMiB = size_t{1} << 20;
thread_local size_t t_fail_from = kMiB;

}  // namespace

void* operator new(size_t n) {
  if (t_counting && n >= t_fail_from) ++t_seen;
  if (t_armed && n >= t_fail_from && t_skip-- == 0) {
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
Outcome injected(int victim, bool* fired, F&& call, int skip = 0) {
  t_fired = 0;
  t_skip = skip;
  t_armed = rank() == victim;
  const Outcome o = attempt(call);
  t_armed = false;
  int any = t_fired;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  *fired = any > 0;
  return o;
}

// Fired: TAPIO_ERR_NOMEM on every rank, naming the victim, the size (when `sized`: a list's
// growth does not tell it) and what failed; or, when `may_cope`, success on every rank (a
// sort that goes on without its temporary buffer).
void expect_agreed_failure(const Outcome& o, bool fired, int victim, const std::string& what,
                           bool sized = true, bool may_cope = false) {
  expect_same_everywhere(o.code);
  if (!fired || (may_cope && o.code == TAPIO_OK)) {
    EXPECT_EQ(o.code, TAPIO_OK) << what << ": " << o.message;
    return;
  }
  EXPECT_EQ(o.code, TAPIO_ERR_NOMEM) << what << ": " << o.message;
  std::vector<std::string> parts{"rank " + std::to_string(victim) + ": "};
  if (sized)
    parts.insert(parts.end(), {"allocate", " bytes"});
  else
    parts.push_back("out of memory while ");
  for (const std::string& part : parts)
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
      if (victim == 0 && std::string(engine) != "subfile") {
        EXPECT_TRUE(fired) << what << ": nothing allocated 1 MiB";
      }
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

// How many allocations of at least t_fail_from bytes call() makes on `victim`: every rank
// learns the count.
template <typename F>
int counted(int victim, F&& call) {
  t_seen = 0;
  t_counting = rank() == victim;
  call();
  t_counting = false;
  int n = t_seen;
  MPI_Bcast(&n, 1, MPI_INT, victim, MPI_COMM_WORLD);
  return n;
}

// Many variables make open (the definitions check, the header), a step's commit (block lists,
// metadata records) and close allocate lists of 64 KiB and more between their collectives.
// Each such allocation is failed in turn on one rank (rank 0, then the last): the call fails
// on every rank, naming the rank, or succeeds everywhere; no rank hangs, and every step
// committed reads back.
constexpr int kManyVars = 8000;
constexpr size_t kListSize = size_t{64} << 10;

class OutOfMemoryPhases : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { t_fail_from = kListSize; }
  void TearDown() override { t_fail_from = kMiB; }

  std::vector<int> victims() const {
    return size() > 1 ? std::vector<int>{0, size() - 1} : std::vector<int>{0};
  }
  // kManyVars variables of one double per rank: "x" first.
  IO declare(Context& ctx) {
    IO io = ctx.declare_io("oom_phases");
    io.set_engine(GetParam());
    vars_.clear();
    const Dims shape{static_cast<uint64_t>(size())};
    for (int i = 0; i < kManyVars; ++i) {
      const std::string name = i == 0 ? std::string("x") : "v" + std::to_string(i);
      vars_.push_back(io.define_variable<double>(name, shape, {"n"}));
      vars_.back().set_selection(block_start(1), {1});
    }
    return io;
  }
  // The puts are deferred: their data lives in values_ until the step ends.
  void write_step(Engine& out, uint64_t step) {
    values_ = block_values(1, step);
    out.begin_step();
    for (Variable& v : vars_) out.put(v, values_);
  }
  Engine one_step(IO& io, const std::string& path) {
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    write_step(out, 0);
    out.end_step();
    return out;
  }

  std::vector<Variable> vars_;
  std::vector<double> values_;
};

TEST_P(OutOfMemoryPhases, EveryLargeAllocationOfOpenIsAgreed) {
  for (int victim : victims()) {
    const std::string what = std::string(GetParam()) + ", rank " + std::to_string(victim);
    TempDir dir;
    Context ctx(MPI_COMM_WORLD);
    IO io = declare(ctx);
    const auto open_and_close = [&](const std::string& path) {
      Engine out = io.open(path, TAPIO_MODE_WRITE);
      out.close();
    };
    const int opens = counted(victim, [&] { open_and_close(dir.file("count.out")); });
    EXPECT_GT(opens, 0) << what << ": open allocated no list of 64 KiB";
    for (int k = 0; k <= opens; ++k) {  // k == opens: nothing fails
      bool fired = false;
      const std::string path = dir.file("open" + std::to_string(k) + ".out");
      const Outcome o = injected(victim, &fired, [&] { open_and_close(path); }, k);
      expect_agreed_failure(o, fired, victim, what + ", open, allocation " + std::to_string(k),
                            false);
    }
    // The same path opens after a failed open.
    Engine out = one_step(io, dir.file("open0.out"));
    out.close();
    expect_block_steps(GetParam(), dir.file("open0.out"), 1, 1, what + ", open");
  }
}

// A step's commit: each failed step leaves the steps before it readable; the next commits.
class OutOfMemoryCommit : public OutOfMemoryPhases {};

TEST_P(OutOfMemoryCommit, EveryLargeAllocationOfACommitIsAgreed) {
  int allocations = 0;  // over the victims: a rank may need none (a collective non-aggregator)
  int failed = 0;       // the steps that failed for it (the others coped)
  for (int victim : victims()) {
    const std::string what = std::string(GetParam()) + ", rank " + std::to_string(victim);
    TempDir dir;
    Context ctx(MPI_COMM_WORLD);
    IO io = declare(ctx);
    const std::string path = dir.file("commit.out");
    uint64_t committed = 1;
    {
      Engine out = one_step(io, path);
      write_step(out, committed);
      const int commits = counted(victim, [&] { out.end_step(); });
      allocations += commits;
      ++committed;
      for (int k = 0; k < commits; ++k) {
        bool fired = false;
        write_step(out, committed);
        const Outcome o = injected(victim, &fired, [&] { out.end_step(); }, k);
        expect_agreed_failure(o, fired, victim, what + ", commit, allocation " + std::to_string(k),
                              false, true);
        if (o.code == TAPIO_OK)
          ++committed;
        else
          ++failed;
      }
      write_step(out, committed);
      out.end_step();
      ++committed;
      out.close();
    }
    expect_block_steps(GetParam(), path, 1, committed, what + ", commit");
  }
  EXPECT_GT(allocations, 0) << GetParam() << ": a commit allocated no list of 64 KiB";
  EXPECT_GT(failed, 0) << GetParam() << ": no failed allocation failed a step";
}

TEST_P(OutOfMemoryPhases, EveryLargeAllocationOfCloseIsAgreed) {
  for (int victim : victims()) {
    const std::string what = std::string(GetParam()) + ", rank " + std::to_string(victim);
    TempDir dir;
    Context ctx(MPI_COMM_WORLD);
    IO io = declare(ctx);
    Engine counting = one_step(io, dir.file("count.out"));
    const int closes = counted(victim, [&] { counting.close(); });
    for (int k = 0; k <= closes; ++k) {  // k == closes: nothing fails
      bool fired = false;
      const std::string path = dir.file("close" + std::to_string(k) + ".out");
      Engine out = one_step(io, path);
      const Outcome o = injected(victim, &fired, [&] { out.close(); }, k);
      expect_agreed_failure(o, fired, victim, what + ", close, allocation " + std::to_string(k),
                            false);
      expect_block_steps(GetParam(), path, 1, 1, what + ", close");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, OutOfMemoryPhases,
                         ::testing::Values("serial", "mpiio", "collective", "subfile"));
INSTANTIATE_TEST_SUITE_P(Engines, OutOfMemoryCommit,
                         ::testing::Values("serial", "mpiio", "collective", "subfile"));

INSTANTIATE_TEST_SUITE_P(Engines, OutOfMemory,
                         ::testing::Values("serial", "mpiio", "collective", "subfile"));

}  // namespace
}  // namespace tapio::test

// Reading while writing under load (issue 14 item 6): 4 writer ranks write steps as fast as
// they can, closing and appending every quarter of the run, while 2 reader ranks poll. A
// reader only ever sees a consistent prefix of the steps, each with its exact values.
//   subfile: a live reader (begin_step answers NOT_READY until the next step is committed);
//   NetCDF (every engine): a reader reopens the file and reads its newest step.
// TAPIO_CONCURRENCY_STEPS sets the steps (make test: 100; make fuzz runs 1,000).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "test_util.h"

namespace tapio::test {
namespace {

constexpr int kWriters = 4;
constexpr uint64_t kPerWriter = 8192;  // doubles of x per writer and step: 64 KiB
constexpr uint64_t kElements = kPerWriter * kWriters;

uint64_t steps() {
  const char* s = std::getenv("TAPIO_CONCURRENCY_STEPS");
  return s ? std::strtoull(s, nullptr, 10) : 100;
}

// Writers (ranks 0-3 of `side`): the steps in four sessions, the first creating the file and
// each later one appending. Returns after the first step of the first session is committed
// only through `first_committed` (called once, collectively over MPI_COMM_WORLD).
template <typename F>
void write(MPI_Comm side, const char* engine, const std::string& path, F&& first_committed) {
  const uint64_t n = steps();
  int me;
  MPI_Comm_rank(side, &me);
  std::vector<double> data(kPerWriter);
  for (uint64_t session = 0; session < 4; ++session) {
    Context ctx(side);
    IO io = ctx.declare_io("writer");
    io.set_engine(engine);
    Variable x = io.define_variable<double>("x", {kElements}, {"n"});
    x.set_selection({kPerWriter * static_cast<uint64_t>(me)}, {kPerWriter});
    Engine out = io.open(path, session == 0 ? TAPIO_MODE_WRITE : TAPIO_MODE_APPEND);
    for (uint64_t s = n * session / 4; s < n * (session + 1) / 4; ++s) {
      for (uint64_t i = 0; i < kPerWriter; ++i) data[i] = value(0, s, kPerWriter * me + i);
      out.begin_step();
      out.put(x, data);
      out.end_step();
      if (s == 0) first_committed();
    }
    out.close();
  }
}

void expect_step(const std::vector<double>& got, uint64_t s, const char* engine) {
  for (uint64_t g = 0; g < kElements; ++g)
    ASSERT_EQ(got[g], value(0, s, g)) << engine << ": step " << s << ", element " << g;
}

// A live reader of a subfile dataset: every step in order, none skipped, each exact.
void read_live(MPI_Comm side, const std::string& path) {
  Context ctx(side);
  IO io = ctx.declare_io("reader");
  io.set_engine("subfile");
  Engine in = io.open(path, TAPIO_MODE_READ);
  std::vector<double> got(kElements);
  uint64_t seen = 0;
  Variable x = io.inquire_variable("x");
  for (int idle = 0; seen < steps() && idle < 60000;) {
    const tapio_step_status st = in.begin_step();
    if (st != TAPIO_STEP_OK) {  // not ready, or a close between two sessions
      ++idle;
      usleep(1000);
      continue;
    }
    idle = 0;
    ASSERT_EQ(in.current_step(), seen) << "a step was skipped or repeated";
    in.get(x, got);
    in.end_step();
    expect_step(got, seen, "subfile");
    ++seen;
  }
  EXPECT_EQ(seen, steps());
  in.close();
}

// A NetCDF reader: reopens the file until it holds every step; the step count never goes
// down, and the newest step (and the first) read back exactly.
void read_reopening(MPI_Comm side, const char* engine, const std::string& path) {
  uint64_t last = 0;
  std::vector<double> got(kElements);
  for (int polls = 0; last < steps() && polls < 60000; ++polls) {
    Context ctx(side);
    IO io = ctx.declare_io("reader");
    io.set_engine(engine);
    Engine in = io.open(path, TAPIO_MODE_READ);
    const uint64_t n = in.steps();
    ASSERT_GE(n, last) << engine << ": the file lost steps";
    last = n;
    Variable x = io.inquire_variable("x");
    for (uint64_t s : {uint64_t{0}, n - 1}) {
      x.set_step_selection(s, 1);
      in.get(x, got);
      in.perform_gets();
      expect_step(got, s, engine);
    }
    in.close();
  }
  EXPECT_EQ(last, steps()) << engine;
}

TEST(Concurrency, ReadersSeeAConsistentPrefixWhileWritersAppend) {
  if (size() != kWriters + 2) GTEST_SKIP() << "needs 4 writer and 2 reader ranks";
  const bool writer = rank() < kWriters;
  MPI_Comm side;
  MPI_Comm_split(MPI_COMM_WORLD, writer ? 0 : 1, rank(), &side);
  for (const char* engine : {"subfile", "collective", "serial", "mpiio"}) {
    TempDir dir;
    const std::string path = dir.file(std::string(engine) + ".out");
    // Readers start once the file exists with a committed step.
    const auto start_readers = [] { MPI_Barrier(MPI_COMM_WORLD); };
    if (writer) {
      write(side, engine, path, start_readers);
    } else {
      start_readers();
      if (std::string(engine) == "subfile")
        read_live(side, path);
      else
        read_reopening(side, engine, path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&side);
}

}  // namespace
}  // namespace tapio::test

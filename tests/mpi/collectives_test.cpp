// How many collectives a write step costs, counted through MPI's profiling interface (these
// definitions take the place of the library's in this statically linked program): the subfile
// engine's begin_step communicates nothing, and its end_step makes only the collectives of its
// commit — and, for ranks sharing a subfile, one node-local allgather that places their
// regions.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "test_util.h"

namespace tapio::test {
namespace {

// Calls per MPI collective since the last reset, by name.
std::map<std::string, int> calls;

}  // namespace
}  // namespace tapio::test

#define COUNTED(name) ++tapio::test::calls[name]

extern "C" {
int MPI_Allreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  COUNTED("Allreduce");
  return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  COUNTED("Bcast");
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Gather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
               MPI_Comm c) {
  COUNTED("Gather");
  return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}
int MPI_Gatherv(const void* s, int sn, MPI_Datatype st, void* r, const int* rn, const int* d,
                MPI_Datatype rt, int root, MPI_Comm c) {
  COUNTED("Gatherv");
  return PMPI_Gatherv(s, sn, st, r, rn, d, rt, root, c);
}
int MPI_Exscan(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  COUNTED("Exscan");
  return PMPI_Exscan(s, r, n, t, op, c);
}
int MPI_Allgather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                  MPI_Comm c) {
  COUNTED("Allgather");
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int MPI_Barrier(MPI_Comm c) {
  COUNTED("Barrier");
  return PMPI_Barrier(c);
}
int MPI_Reduce_scatter(const void* s, void* r, const int* n, MPI_Datatype t, MPI_Op op,
                       MPI_Comm c) {
  COUNTED("Reduce_scatter");
  return PMPI_Reduce_scatter(s, r, n, t, op, c);
}
}

namespace tapio::test {
namespace {

using Params = std::map<std::string, std::string>;

// The collectives of each call of write step `steps - 1`: by default the dataset's second,
// a steady step (the first also checks its new blocks for overlaps). `shift_at`: from that
// step on, each rank's block moves by one element (another selection).
std::map<std::string, int> steady_step(const Params& params, std::map<std::string, int>* begin,
                                       const char* engine = "subfile", int steps = 2,
                                       int shift_at = -1) {
  TempDir dir;
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("count");
  io.set_engine(engine);
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  const uint64_t n = 1000;
  Variable x = io.define_variable<double>("x", {n * size() + 1}, {"n"});
  std::vector<double> d(n, rank());
  Engine out = io.open(dir.file(engine == std::string("subfile") ? "c.tapio" : "c.nc"),
                       TAPIO_MODE_WRITE);
  std::map<std::string, int> step;
  for (int s = 0; s < steps; ++s) {
    x.set_selection({n * rank() + (s >= shift_at && shift_at >= 0 ? 1 : 0)}, {n});
    calls.clear();
    out.begin_step();
    *begin = calls;
    out.put(x, d);
    calls.clear();
    out.end_step();
    step = calls;
  }
  out.close();
  return step;
}

TEST(Collectives, SubfileStepIsItsCommit) {
  std::map<std::string, int> begin;
  // gather: the vote, the records to rank 0, and the outcome agreed (rank 0's writes, or a
  // rank whose gather failed: one reduction). The second step's records differ in length from
  // the first's (rank 0 described the variables then): first the record sizes to rank 0 and
  // whether it has room for them (one byte's broadcast: a rank 0 without must not be sent
  // them); the fourth step's are the third's lengths again, which the vote says (the third's
  // are not quite the second's: a block's offset in its subfile took a byte more to encode).
  const std::map<std::string, int> resized = {
      {"Allreduce", 2}, {"Gather", 1}, {"Bcast", 1}, {"Gatherv", 1}};
  const std::map<std::string, int> steady = {{"Allreduce", 2}, {"Gatherv", 1}};
  EXPECT_EQ(steady_step({{"aggregators", "all"}}, &begin), resized);
  EXPECT_TRUE(begin.empty());
  EXPECT_EQ(steady_step({{"aggregators", "all"}}, &begin, "subfile", 4), steady);
  EXPECT_TRUE(begin.empty());
  // log: the prefix sum that places the records, the vote, rank 0's status agreed.
  auto step = steady_step({{"aggregators", "all"}, {"metadata", "log"}}, &begin);
  EXPECT_TRUE(begin.empty());
  EXPECT_EQ(step, (std::map<std::string, int>{{"Exscan", 1}, {"Allreduce", 2}}));
  // One subfile per node: the node's ranks place their regions with one allgather.
  step = steady_step({}, &begin, "subfile", 4);
  EXPECT_EQ(step, (std::map<std::string, int>{{"Allgather", 1}, {"Allreduce", 2}, {"Gatherv", 1}}));
}

// The collective engine's steady step (every rank puts what it put in the previous step):
// one reduction votes (outcome, sizes, which variables), one agrees that the data is written,
// one that rank 0 committed it; the direct vote, the round counts and their agreement are the
// previous step's, moved by a record. A step whose selections changed makes them again.
TEST(Collectives, CollectiveSteadyStepIsThreeReductions) {
  std::map<std::string, int> begin;
  const std::map<std::string, int> steady = {{"Allreduce", 3}};
  for (const Params& p : {Params{}, Params{{"stripe_size", "4KiB"}, {"fill", "false"}},
                        Params{{"direct", "never"}}}) {
    const std::string name = p.empty() ? "aggregators" : p.begin()->first;
    EXPECT_EQ(steady_step(p, &begin, "collective"), steady) << name;
    EXPECT_TRUE(begin.empty()) << name;
    EXPECT_EQ(steady_step(p, &begin, "collective", 4), steady) << name;
  }
  // Changed at the third step: the round counts (a reduce-scatter) agreed on; no direct scan,
  // since the vote says some rank's pieces are too small for it. Steady again at the fourth.
  EXPECT_EQ(steady_step({}, &begin, "collective", 3, 2),
            (std::map<std::string, int>{{"Allreduce", 4}, {"Reduce_scatter", 1}}));
  EXPECT_EQ(steady_step({}, &begin, "collective", 4, 2), steady);
  // A stripe size asked for (or detected on Lustre) keeps the domains on the file's stripes:
  // a record that is not a whole number of stripes is routed again, its counts reduced.
  EXPECT_EQ(steady_step({{"stripe_size", "1MiB"}}, &begin, "collective"),
            (std::map<std::string, int>{{"Allreduce", 4}, {"Reduce_scatter", 1}}));
  // Where every rank's pieces could go direct, a changed step scans rank order and votes.
  const Params direct = {{"stripe_size", "4KiB"}, {"fill", "false"}};
  EXPECT_EQ(steady_step(direct, &begin, "collective", 3, 2),
            (std::map<std::string, int>{{"Allreduce", 4}, {"Exscan", 1}}));
  EXPECT_EQ(steady_step(direct, &begin, "collective", 4, 2), steady);
}

// The collectives of the first step of each of `files` written in turn through one context,
// each of `steps` steps of x (every rank's block of 1000 doubles at 1000 * rank + 1,
// holding 10 * file + step + rank); with `extra_in` >= 0, one more variable in that file's
// header (another layout), with `moved_in` >= 0 every block one element lower in that file
// (other puts). Every file is read back and checked.
// `first_reads`: the collectives of each file's first read batch (step 0, read after the
// file's last step was read in the file before).
std::vector<std::map<std::string, int>> first_steps(
    int files, int steps, int extra_in = -1, int moved_in = -1,
    const std::string& engine = "collective",
    std::vector<std::map<std::string, int>>* first_reads = nullptr) {
  TempDir dir;
  Context ctx(MPI_COMM_WORLD);
  const uint64_t n = 1000;
  std::vector<std::map<std::string, int>> counted;
  for (int f = 0; f < files; ++f) {
    const std::string path =
        dir.file("f" + std::to_string(f) + (engine == "subfile" ? ".tapio" : ".nc"));
    IO io = ctx.declare_io("w" + std::to_string(f));
    io.set_engine(engine);
    Variable x = io.define_variable<double>("x", {n * size() + 1}, {"n"});
    if (f == extra_in) io.define_variable<double>("y", {n * size() + 1}, {"n"});
    const uint64_t start = n * rank() + (f == moved_in ? 0 : 1);
    x.set_selection({start}, {n});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    for (int s = 0; s < steps; ++s) {
      const std::vector<double> d(n, 10 * f + s + rank());
      out.begin_step();
      out.put(x, d);
      calls.clear();
      out.end_step();
      if (s == 0) counted.push_back(calls);
    }
    out.close();
    IO rio = ctx.declare_io("r" + std::to_string(f));
    Engine in = rio.open(path, TAPIO_MODE_READ);
    Variable rx = rio.inquire_variable("x");
    rx.set_selection({start}, {n});
    for (int s = 0; s < steps; ++s) {
      std::vector<double> got(n, -1);
      rx.set_step_selection(static_cast<uint64_t>(s), 1);
      in.get(rx, got);
      calls.clear();
      in.perform_gets();
      if (s == 0 && first_reads) first_reads->push_back(calls);
      for (double v : got) EXPECT_EQ(v, 10 * f + s + rank()) << "file " << f << " step " << s;
    }
    in.close();
  }
  return counted;
}

// A file of the same layout as one its context closed before takes that file's last plan: its
// first step is steady (three reductions, no round counts), whatever step the plan was made
// at. Another layout or other puts plan afresh (the round counts reduced).
TEST(Collectives, CollectiveFileOfTheSameLayoutRepeatsTheLastFilesPlan) {
  const std::map<std::string, int> steady = {{"Allreduce", 3}};
  const std::map<std::string, int> planned = {{"Allreduce", 4}, {"Reduce_scatter", 1}};
  for (int steps : {1, 3}) {
    const auto first = first_steps(3, steps);
    ASSERT_EQ(first.size(), 3u);
    // The context's first file also agrees on the node window it allocates.
    EXPECT_EQ(first[0], (std::map<std::string, int>{{"Allreduce", 5}, {"Reduce_scatter", 1}}));
    EXPECT_EQ(first[1], steady) << steps;
    EXPECT_EQ(first[2], steady) << steps;
  }
  // Another layout between two files of one layout: planned, and the third file repeats the
  // first's plan (the context keeps one per layout).
  const auto other = first_steps(3, 2, 1);
  EXPECT_EQ(other[1], planned);
  EXPECT_EQ(other[2], steady);
  // Other puts in the second file: planned, and so is the third file (the layout's plan is
  // now the second file's).
  const auto moved = first_steps(3, 2, -1, 1);
  EXPECT_EQ(moved[1], planned);
  EXPECT_EQ(moved[2], planned);
}

// Reads too: a file of the same layout read in the context of one read before takes that
// read's last plan, and its first read batch is steady (two reductions: the vote and the
// outcome), though it reads step 0 and the plan was made for step 2 (a move backwards).
TEST(Collectives, CollectiveReadOfTheSameLayoutRepeatsTheLastReadsPlan) {
  const std::map<std::string, int> steady = {{"Allreduce", 2}};
  const std::map<std::string, int> planned = {{"Allreduce", 3}, {"Reduce_scatter", 1}};
  for (int steps : {1, 3}) {
    std::vector<std::map<std::string, int>> reads;
    first_steps(3, steps, -1, -1, "collective", &reads);
    ASSERT_EQ(reads.size(), 3u);
    EXPECT_EQ(reads[0], planned) << steps;
    EXPECT_EQ(reads[1], steady) << steps;
    EXPECT_EQ(reads[2], steady) << steps;
  }
  std::vector<std::map<std::string, int>> other, moved;
  first_steps(3, 2, 1, -1, "collective", &other);
  EXPECT_EQ(other[1], planned);  // another layout
  EXPECT_EQ(other[2], steady);   // the first file's
  first_steps(3, 2, -1, 1, "collective", &moved);
  EXPECT_EQ(moved[1], planned);  // other gets
  EXPECT_EQ(moved[2], planned);
}

// A subfile dataset's first step checks its blocks for overlaps (a reduce-scatter of message
// counts and the check's agreement), unless every rank puts what it put in the last step of
// the context's last dataset of the same variables' shapes.
TEST(Collectives, SubfileDatasetRepeatingTheLastOneSkipsTheOverlapCheck) {
  const auto checks = [](const std::map<std::string, int>& step) {
    return step.count("Reduce_scatter") ? step.at("Reduce_scatter") : 0;
  };
  for (int steps : {1, 3}) {
    const auto first = first_steps(3, steps, -1, -1, "subfile");
    ASSERT_EQ(first.size(), 3u);
    EXPECT_EQ(checks(first[0]), 1) << steps;
    EXPECT_EQ(checks(first[1]), 0) << steps;
    EXPECT_EQ(checks(first[2]), 0) << steps;
  }
  const auto other = first_steps(3, 2, 1, -1, "subfile");
  EXPECT_EQ(checks(other[1]), 1);
  EXPECT_EQ(checks(other[2]), 0);  // the first dataset's step, kept under its shapes
  const auto moved = first_steps(3, 2, -1, 1, "subfile");
  EXPECT_EQ(checks(moved[1]), 1);
  EXPECT_EQ(checks(moved[2]), 1);
}

// A collective file of `steps` steps of x, each rank's block of `n` doubles holding
// 100 * step + rank, written through `ctx` (the reads below use it too: a context's first
// engine makes collectives of its own).
void write_blocks(Context& ctx, const std::string& path, uint64_t n, int steps) {
  IO io = ctx.declare_io("w");
  io.set_engine("collective");
  Variable x = io.define_variable<double>("x", {n * size()}, {"n"});
  x.set_selection({n * rank()}, {n});
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  for (int s = 0; s < steps; ++s) {
    const std::vector<double> d(n, 100 * s + rank());  // put keeps it until end_step
    out.begin_step();
    out.put(x, d);
    out.end_step();
  }
  out.close();
}

// A file of write_blocks, open for reading through `params`, x selecting this rank's block.
struct BlocksRead {
  BlocksRead(uint64_t n, int steps, const Params& params = {}) {
    write_blocks(ctx, path, n, steps);
    IO io = ctx.declare_io("r");
    for (const auto& [k, v] : params) io.set_parameter(k, v);
    in = io.open(path, TAPIO_MODE_READ);
    x = io.inquire_variable("x");
    x.set_selection({n * rank()}, {n});
  }
  TempDir dir;
  const std::string path = dir.file("r.nc");
  Context ctx{MPI_COMM_WORLD};
  Engine in;
  Variable x;
};

// The collectives of perform_gets reading step `steps - 1` of a collective file, every step read
// with the same selection: a steady read's vote (range, direct, memory, moves) and its
// outcome; the round counts are the previous step's, moved by a record.
std::map<std::string, int> read_step(int steps) {
  const uint64_t n = 1000;
  BlocksRead f(n, steps);
  Engine& in = f.in;
  Variable& x = f.x;
  std::map<std::string, int> step;
  for (int s = 0; s < steps; ++s) {
    std::vector<double> got(n, -1);
    x.set_step_selection(s, 1);
    in.get(x, got);
    calls.clear();
    in.perform_gets();
    step = calls;
    EXPECT_EQ(got, std::vector<double>(n, 100 * s + rank())) << "step " << s;
  }
  in.close();
  return step;
}

TEST(Collectives, CollectiveSteadyReadIsTwoReductions) {
  EXPECT_EQ(read_step(1), (std::map<std::string, int>{{"Allreduce", 3}, {"Reduce_scatter", 1}}));
  EXPECT_EQ(read_step(3), (std::map<std::string, int>{{"Allreduce", 2}}));
}

// The collectives of one get of every step of a collective file, each rank reading its own
// block of `n` doubles (runs of n * 8 bytes), through `params`; the values are checked.
std::map<std::string, int> read_steps_at_once(uint64_t n, const Params& params) {
  const int steps = 3;
  BlocksRead f(n, steps, params);
  Engine& in = f.in;
  Variable& x = f.x;
  x.set_step_selection(0, steps);
  std::vector<double> got(n * steps, -1);
  in.get(x, got);
  calls.clear();
  in.perform_gets();
  const std::map<std::string, int> counted = calls;
  for (int s = 0; s < steps; ++s)
    EXPECT_EQ(std::vector<double>(got.begin() + s * n, got.begin() + (s + 1) * n),
              std::vector<double>(n, 100 * s + rank()))
        << "step " << s;
  in.close();
  return counted;
}

// A rank's blocks of several steps span records where the other ranks' blocks lie, yet they
// meet no other rank's in any one record: runs of direct_read_min or more are read directly
// (a scan of rank order, no round counts), smaller ones through the aggregators (whose
// rounds, read by the aggregator alone here, pass no node barrier).
TEST(Collectives, CollectiveReadOfSeveralStepsGoesDirect) {
  const std::map<std::string, int> direct = {{"Allreduce", 3}, {"Exscan", 1}};
  EXPECT_EQ(read_steps_at_once(8192, {}), direct);  // 64 KiB runs
  EXPECT_EQ(read_steps_at_once(1024, {{"direct_read_min", "8KiB"}}), direct);
  const std::map<std::string, int> rounds = {{"Allreduce", 3}, {"Reduce_scatter", 1}};
  EXPECT_EQ(read_steps_at_once(8192, {{"direct_read_min", "1MiB"}, {"node_read_share", "0"}}),
            rounds);
  EXPECT_EQ(read_steps_at_once(8192, {{"direct", "never"}, {"node_read_share", "0"}}), rounds);
}

// When the node's ranks read a round together (shared_reads.h), it costs two barriers of the
// node a round and nothing else: 3 records of 64 KiB a rank through one aggregator, in rounds
// of 1 MiB (one round at 4 ranks, two at 8; none shared with fewer, whose windows are smaller
// than two shares).
TEST(Collectives, ReadingARoundTogetherCostsTwoNodeBarriers) {
  std::map<std::string, int> rounds = {{"Allreduce", 3}, {"Reduce_scatter", 1}};
  const int shared_rounds = size() == 4 ? 1 : size() == 8 ? 2 : 0;
  if (shared_rounds > 0) rounds["Barrier"] = 2 * shared_rounds;
  EXPECT_EQ(read_steps_at_once(8192, {{"direct", "never"}, {"node_readers", "8"}}), rounds);
}

}  // namespace
}  // namespace tapio::test

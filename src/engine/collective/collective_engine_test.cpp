// The collective engine on the fake communicator (no mpiexec): tables of decompositions
// written through aggregators and read back with the serial engine (an independent path),
// reads served by several aggregators, the write-behind slot race, and a send that fails on
// one virtual rank.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "engine/collective/shared_reads.h"
#include "engine/fake_engines.h"
#include "io/syscalls.h"

namespace tapio::test {
namespace {

constexpr uint64_t N = 4096;  // elements of each variable: 32 KiB
constexpr int P = 4;
constexpr double kFill = 9.9692099683868690e+36;  // NetCDF's default fill for doubles

// A box of a 1-D variable (or, with stride, every stride-th element from start).
struct Piece {
  int var;
  uint64_t start, count, stride = 1;
};
using Decomposition = std::function<std::vector<Piece>(int rank)>;

plan::Selection selection(const Piece& p) {
  if (p.stride == 1) return plan::Selection::box({p.start}, {p.count});
  std::vector<uint64_t> offsets;
  for (uint64_t k = 0; k < p.count; ++k) offsets.push_back(p.start + k * p.stride);
  return plan::Selection::offsets(offsets.data(), offsets.size());
}

IoDef three_variables(uint64_t b = N) {
  IoDef io;
  io.name = "unit";
  io.vars = {variable("A", {N}), variable("B", {b}), variable("C", {N})};
  return io;
}

// Writes `steps` steps of the pieces on P virtual ranks; end_step's outcome per step.
std::vector<std::unique_ptr<Outcomes>> write(comm::FakeWorld& world, const std::string& path,
                                             const ParamMap& params, int ranks_per_node,
                                             const Decomposition& pieces, int steps,
                                             const IoDef& io = three_variables()) {
  std::vector<std::unique_ptr<Outcomes>> out;
  for (int s = 0; s < steps; ++s) out.push_back(std::make_unique<Outcomes>(world.size()));
  const Status run = world.run([&](comm::Comm& c) {
    RankContext ctx;
    ctx.io = io;
    auto e = open_on(c, &ctx, "collective", path, OpenMode::kWrite, params, ranks_per_node);
    ASSERT_TRUE(e.ok()) << e.status().message();
    for (int s = 0; s < steps; ++s) {
      StepStatus ss;
      ASSERT_TRUE((*e)->begin_step(&ss).ok());
      std::vector<std::vector<double>> data;
      for (const Piece& p : pieces(c.rank())) {
        data.emplace_back(p.count);
        for (uint64_t k = 0; k < p.count; ++k) data.back()[k] = value(p.var, s, p.start + k * p.stride);
        ASSERT_TRUE(
            (*e)->put(p.var, plan::shared(selection(p)), TAPIO_FLOAT64, data.back().data()).ok());
      }
      out[s]->set(c.rank(), (*e)->end_step());
    }
    EXPECT_TRUE((*e)->close().ok());
  });
  EXPECT_TRUE(run.ok()) << run.message();
  return out;
}

// The file's variables at every step, read whole by the serial engine (an independent path).
Steps read_back(const std::string& path) { return read_whole("serial", path); }

// What element g of variable v holds at step s: its value where a piece put it, the fill
// value (or zeros without fill) elsewhere.
double expected(const Decomposition& pieces, bool fill, int v, uint64_t s, uint64_t g) {
  for (int r = 0; r < P; ++r)
    for (const Piece& p : pieces(r))
      if (p.var == v && g >= p.start && (g - p.start) % p.stride == 0 &&
          (g - p.start) / p.stride < p.count)
        return value(v, s, g);
  return fill ? kFill : 0.0;
}

// Contiguous quarters of the variables `vars`; with `half`, only the first half of each.
Decomposition quarters(std::vector<int> vars, bool half = false) {
  return [vars, half](int r) {
    std::vector<Piece> out;
    for (int v : vars) out.push_back(Piece{v, r * N / P, half ? N / P / 2 : N / P});
    return out;
  };
}

struct WriteCase {
  const char* name;
  ParamMap params;
  int ranks_per_node;
  Decomposition pieces;
};

// Through aggregators, several rounds each: 4 aggregators, 8 KiB rounds of 4 KiB stripes.
ParamMap rounds(ParamMap extra = {}) {
  ParamMap p = {{"direct", "never"}, {"stripe_size", "4096"}, {"buffer_size", "8192"},
                {"aggregators", "all"}};
  for (const auto& [k, v] : extra) p[k] = v;
  return p;
}

TEST(CollectiveUnit, RoundAssemblyWithHolesAndEmptyRounds) {
  const Decomposition interleaved = [](int r) {  // every 4th element: runs of one element
    return std::vector<Piece>{{0, static_cast<uint64_t>(r), N / P, P}, {2, r * N / P, N / P}};
  };
  const std::vector<WriteCase> cases = {
      {"tiles", rounds(), 0, quarters({0, 1, 2})},
      {"tiles, two virtual nodes", rounds(), 2, quarters({0, 1, 2})},
      {"tiles, messages only", rounds({{"shared_memory", "false"}}), 1, quarters({0, 1, 2})},
      {"holes filled", rounds(), 0, quarters({0, 1, 2}, true)},
      {"holes filled, messages", rounds(), 1, quarters({0, 1, 2}, true)},
      {"holes without fill", rounds({{"fill", "false"}}), 2, quarters({0, 1, 2}, true)},
      {"empty rounds (B not put)", rounds(), 0, quarters({0, 2})},
      {"empty rounds, one aggregator", rounds({{"aggregators", "1"}}), 1, quarters({0, 2})},
      {"interleaved single elements", rounds(), 2, interleaved},
      {"interleaved, one round", rounds({{"buffer_size", "1MiB"}}), 1, interleaved},
  };
  for (const WriteCase& c : cases) {
    TempDir dir;
    const std::string path = dir.file("c.nc");
    comm::FakeWorld world(P);
    const auto outcomes = write(world, path, c.params, c.ranks_per_node, c.pieces, 2);
    for (const auto& o : outcomes) ASSERT_TRUE(o->all(TAPIO_OK)) << c.name << o->describe();
    const auto steps = read_back(path);
    ASSERT_EQ(steps.size(), 2u) << c.name;
    const bool fill = !c.params.count("fill");
    for (uint64_t s = 0; s < 2; ++s)
      for (int v = 0; v < 3; ++v)
        for (uint64_t g = 0; g < N; ++g)
          ASSERT_EQ(steps[s][v][g], expected(c.pieces, fill, v, s, g))
              << c.name << ": step " << s << ", variable " << v << ", element " << g;
  }
}

TEST(CollectiveUnit, OverlapsFailEveryRankNamingBoth) {
  const Decomposition overlapping = [](int r) {
    std::vector<Piece> out = quarters({0, 1, 2})(r);
    if (r == 1) out[0] = Piece{0, N / 4, N / 2};  // A: [N/4, 3N/4) also holds rank 2's quarter
    return out;
  };
  for (int rpn : {0, 1}) {
    TempDir dir;
    comm::FakeWorld world(P);
    const auto outcomes = write(world, dir.file("o.nc"), rounds(), rpn, overlapping, 1);
    EXPECT_TRUE(outcomes[0]->all(TAPIO_ERR_SHAPE)) << outcomes[0]->describe();
    const std::string& m = outcomes[0]->message(0);
    EXPECT_NE(m.find("rank 1 writes"), std::string::npos) << m;
    EXPECT_NE(m.find("rank 2 writes"), std::string::npos) << m;
    EXPECT_TRUE(read_back(dir.file("o.nc")).empty());  // nothing committed
  }
}

// Reads of a 2-D variable written by rows, read by columns (every rank needs a piece of every
// aggregator's domain), through four aggregators; exact values.
TEST(CollectiveUnit, ReadsServedBySeveralAggregators) {
  constexpr uint64_t R = 64, C = 64;
  TempDir dir;
  const std::string path = dir.file("r.nc");
  comm::FakeWorld writer(P);
  ASSERT_TRUE(writer.run([&](comm::Comm& c) {
    RankContext ctx;
    ctx.io.name = "unit";
    ctx.io.vars = {variable("M", {R, C})};
    auto e = open_on(c, &ctx, "serial", path, OpenMode::kWrite, {});
    ASSERT_TRUE(e.ok());
    StepStatus ss;
    ASSERT_TRUE((*e)->begin_step(&ss).ok());
    std::vector<double> rows((R / P) * C);
    for (uint64_t i = 0; i < rows.size(); ++i) rows[i] = value(0, 0, c.rank() * (R / P) * C + i);
    ASSERT_TRUE((*e)->put(0, plan::shared(plan::Selection::box({c.rank() * R / P, 0}, {R / P, C})),
                          TAPIO_FLOAT64, rows.data()).ok());
    ASSERT_TRUE((*e)->end_step().ok());
    ASSERT_TRUE((*e)->close().ok());
  }).ok());
  const std::vector<std::pair<const char*, ParamMap>> cases = {
      {"shared slots", rounds({{"stripe_size", "2048"}, {"buffer_size", "4096"}})},
      {"messages, datatypes", rounds({{"shared_memory", "false"}})},
      {"one round each", rounds({{"buffer_size", "1MiB"}})},
  };
  for (const auto& [name, params] : cases)
    for (int rpn : {0, 1, 2}) {
      comm::FakeWorld world(P, /*seed=*/7);
      Outcomes got(P);
      const Status run = world.run([&, params = params](comm::Comm& c) {
        RankContext ctx;
        ctx.io.name = "unit";
        auto e = open_on(c, &ctx, "collective", path, OpenMode::kRead, params, rpn);
        ASSERT_TRUE(e.ok()) << e.status().message();
        std::vector<double> cols(R * (C / P));
        StepStatus ss;
        ASSERT_TRUE((*e)->begin_step(&ss).ok());
        const auto columns = plan::Selection::box({0, c.rank() * C / P}, {R, C / P});
        ASSERT_TRUE((*e)->get(0, plan::shared(columns), 0, 0,
                              TAPIO_FLOAT64, cols.data()).ok());
        const Status st = (*e)->end_step();
        got.set(c.rank(), st);
        for (uint64_t i = 0; st.ok() && i < R; ++i)
          for (uint64_t j = 0; j < C / P; ++j)
            ASSERT_EQ(cols[i * (C / P) + j], value(0, 0, i * C + c.rank() * C / P + j))
                << name << " rpn " << rpn;
        EXPECT_TRUE((*e)->close().ok());
      });
      EXPECT_TRUE(run.ok()) << name << ": " << run.message();
      EXPECT_TRUE(got.all(TAPIO_OK)) << name << got.describe();
    }
}

// Data writes take 20 ms: the write-behind thread lags the exchange.
ssize_t slow_pwrite(int fd, const void* buf, size_t n, off_t offset) {
  if (n > 1024) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return io::default_syscalls().pwrite(fd, buf, n, offset);
}

// One aggregator, A and C put, B not: the rounds inside B queue no write, so the round after
// them lands in a slot whose last write (two written rounds back, not two rounds back) may
// still be running. Each slot's ticket makes it wait for that write; waiting for "at most one
// write pending" let C's round overwrite A's in the buffer (the bug found in review).
// A round's reads shared by a node's ranks (shared_reads.h): one reader per share, the
// aggregator's share first, the others' in node order after it; too many reads to publish and
// the aggregator reads alone (nobody else has a share).
TEST(CollectiveUnit, SharedReadsGoToTheAggregatorAndTheRanksAfterIt) {
  collective::SharedReads t;
  t.publish({{0, 1 << 20}}, 512 << 10, 4);  // two shares of 512 KiB
  EXPECT_EQ(t.readers, 2u);
  // The aggregator is node rank 2 of 4: it reads the first half, node rank 3 the second.
  EXPECT_EQ(t.share_of(2, 2, 4), (std::vector<plan::Extent>{{0, 512 << 10}}));
  EXPECT_EQ(t.share_of(3, 2, 4), (std::vector<plan::Extent>{{512 << 10, 512 << 10}}));
  EXPECT_TRUE(t.share_of(0, 2, 4).empty());
  EXPECT_TRUE(t.share_of(1, 2, 4).empty());
  std::vector<plan::Extent> many;
  for (uint64_t k = 0; k <= collective::SharedReads::kMax; ++k) many.push_back({k << 20, 4096});
  t.publish(many, 4096, 4);
  EXPECT_EQ(t.readers, 0u);
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(t.share_of(r, 0, 4).empty());
  t.publish({}, 4096, 4);
  EXPECT_EQ(t.readers, 0u);
}

TEST(CollectiveUnit, WriteBehindTicketsKeepSlowSlotsApart) {
  io::ScopedSyscalls restore;
  io::syscalls().pwrite = slow_pwrite;
  for (uint64_t b : {1024, 1536, 2048, 3072, 4096}) {  // B spans 1-4 empty rounds of 8 KiB
    TempDir dir;
    comm::FakeWorld world(P);
    const ParamMap params = {{"direct", "never"}, {"stripe_size", "4096"},
                             {"buffer_size", "8192"}, {"aggregators", "1"},
                             {"shared_memory", "false"}};
    const Decomposition pieces = quarters({0, 2});
    const auto outcomes = write(world, dir.file("t.nc"), params, 0, pieces, 1, three_variables(b));
    ASSERT_TRUE(outcomes[0]->all(TAPIO_OK)) << outcomes[0]->describe();
    const auto steps = read_back(dir.file("t.nc"));
    ASSERT_EQ(steps.size(), 1u);
    for (int v = 0; v < 3; v += 2)
      for (uint64_t g = 0; g < N; ++g)
        ASSERT_EQ(steps[0][v][g], expected(pieces, true, v, 0, g))
            << "B of " << b << " elements, variable " << v << ", element " << g;
  }
}

// A send fails on one virtual rank (not delivered: the MPI send returned an error). Every rank
// gets the error, no rank waits forever (the fake would report the deadlock), and the next
// step writes exact data.
TEST(CollectiveUnit, FailedSendOnOneRankFailsTheStepEverywhere) {
  for (int nth : {0, 1, 3}) {
    for (int rpn : {1, 2}) {
      TempDir dir;
      comm::FakeWorld world(P);
      world.inject(comm::FakeFault{3, "isend", nth});
      const Decomposition pieces = quarters({0, 1, 2});
      const auto outcomes = write(world, dir.file("f.nc"), rounds(), rpn, pieces, 2);
      EXPECT_TRUE(outcomes[0]->all(TAPIO_ERR_MPI)) << "nth " << nth << outcomes[0]->describe();
      const std::string& m = outcomes[0]->message(0);
      EXPECT_EQ(m.rfind("rank 3: ", 0), 0u) << m;  // the sender's own error, on every rank
      EXPECT_NE(m.find("Isend failed"), std::string::npos) << m;
      EXPECT_TRUE(outcomes[1]->all(TAPIO_OK)) << outcomes[1]->describe();
      const auto steps = read_back(dir.file("f.nc"));
      ASSERT_EQ(steps.size(), 1u);
      for (int v = 0; v < 3; ++v)
        for (uint64_t g = 0; g < N; ++g)
          ASSERT_EQ(steps[0][v][g], expected(pieces, true, v, 1, g)) << v << " " << g;
    }
  }
}

}  // namespace
}  // namespace tapio::test

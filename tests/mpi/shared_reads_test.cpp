// Reads shared by a node's ranks (node_read_share, node_readers; engine/collective/
// shared_reads.h): in a round whose window holds two shares or more, ranks of the aggregator's
// node read a share each of the aggregator's reads into its slot. Every element comes back
// right, whatever the layout; with readers enough every rank of a node reads from storage; and
// no byte is read twice: the ranks together read what the aggregator read alone.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace tapio::test {
namespace {

// 3 steps of two variables of 96 Ki doubles (768 KiB each a step): rounds of 1 MiB or less.
const Dims kShape = {96, 1024};
constexpr uint64_t kElements = 96 * 1024;
constexpr uint64_t kSteps = 3;

// Rank r writes the elements g with (g / 100) % size == r: runs of 100 doubles, interleaved.
ElementRuns written_by(int r) {
  return element_runs(kElements, [&](uint64_t g) {
    return static_cast<int>((g / 100) % static_cast<uint64_t>(size())) == r;
  });
}

using Params = std::vector<std::pair<std::string, std::string>>;

void write(const std::string& path) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("w");
  io.set_engine("collective");
  std::vector<Variable> vars = {io.define_variable<double>("a", kShape),
                                io.define_variable<double>("b", kShape)};
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  write_run_steps(out, vars, kSteps, [](int, uint64_t) { return written_by(rank()); });
  out.close();
}

// Each rank reads the runs of the next rank (another rank's pieces, so nothing is read where
// it was written), both variables, one perform_gets per step; every element is checked.
// `only_b`: variable a is not read, so half of each window is a hole.
void read(const std::string& path, const Params& params, bool only_b, const std::string& what) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("r");
  io.set_engine("collective");
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  Engine in = io.open(path, TAPIO_MODE_READ);
  const ElementRuns runs = written_by((rank() + 1) % size());
  std::vector<Variable> vars = {io.inquire_variable("a"), io.inquire_variable("b")};
  for (uint64_t s = 0; s < kSteps; ++s) {
    std::vector<std::vector<double>> got(2, std::vector<double>(runs.elements.size(), -1));
    for (int v = only_b ? 1 : 0; v < 2; ++v) {
      vars[v].set_runs(runs.offsets, runs.lengths);
      vars[v].set_step_selection(s, 1);
      in.get(vars[v], got[v]);
    }
    in.perform_gets();
    for (int v = only_b ? 1 : 0; v < 2; ++v)
      for (size_t k = 0; k < runs.elements.size(); ++k)
        ASSERT_EQ(got[v][k], value(v, s, runs.elements[k]))
            << what << ": variable " << v << ", step " << s << ", element " << runs.elements[k];
  }
  in.close();
}

nlohmann::json counters(const std::string& profile) {
  std::ifstream in(profile);
  return nlohmann::json::parse(in).at("counters");
}

struct Case {
  Params params;
  const char* what;
  // Shares so small, and node_readers so large, that every rank of the node reads one.
  bool every_rank;
};

TEST(SharedReads, EveryRankOfTheNodeReadsAShareAndNoByteTwice) {
  TempDir dir;
  const std::string file = dir.file("x.nc");
  write(file);
  const std::vector<Case> layouts = {
      {{}, "one node, one aggregator", false},
      {{{"node_readers", "2"}, {"node_read_share", "4KiB"}}, "two readers a round", false},
      {{{"aggregators_per_node", "2"}, {"node_readers", "2"}}, "two aggregators on the node",
       false},
      {{{"buffer_size", "128KiB"}, {"node_read_share", "16KiB"}, {"node_readers", "64"}},
       "many small rounds", true},
      {{{"ranks_per_node", "2"}, {"node_read_share", "4KiB"}, {"node_readers", "64"}},
       "nodes of two ranks: replies between nodes too", true},
      {{{"direct", "never"}, {"node_read_share", "4KiB"}, {"node_readers", "64"}},
       "shares of a page", true},
  };
  for (bool only_b : {false, true})
    for (const Case& c : layouts) {
      const std::string what = std::string(c.what) + (only_b ? ", variable b only" : "");
      Params alone = c.params, together = c.params;
      alone.push_back({"node_read_share", "0"});
      alone.push_back({"profile", dir.file("alone.json")});
      together.push_back({"profile", dir.file("together.json")});
      read(file, alone, only_b, what + ", the aggregator alone");
      read(file, together, only_b, what + ", together");
      if (rank() != 0) continue;
      const nlohmann::json a = counters(dir.file("alone.json"));
      const nlohmann::json t = counters(dir.file("together.json"));
      // The same bytes from storage, however many ranks read them.
      EXPECT_EQ(t.at("POSIX_BYTES_READ").at("sum"), a.at("POSIX_BYTES_READ").at("sum")) << what;
      // With small shares and readers enough, every rank of a node of two or more reads, more
      // requests than the aggregators alone.
      if (size() >= 2 && c.every_rank) {
        EXPECT_GT(t.at("POSIX_READS").at("min").get<double>(), 0) << what;
        EXPECT_GT(t.at("POSIX_READS").at("sum").get<double>(),
                  a.at("POSIX_READS").at("sum").get<double>()) << what;
      }
    }
}

}  // namespace
}  // namespace tapio::test

// Decompositions planned once (issue 26): the collective and subfile engines plan a selection
// the first time it is used and reuse the plan for every variable that shares it and every
// later step, writes and reads, until the selection changes. The profile counts the plans made
// and reused; the data read back proves the reused plans put every byte where it belongs.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace tapio::test {
namespace {

const Dims kShape = {8, 60};
constexpr uint64_t kElements = 8 * 60;

// An irregular map (short runs scattered over the array, like E3SM's): element g belongs to
// rank ((g + turn) / (3 + turn) + g / 7) mod size. Another `turn` is another decomposition.
ElementRuns my_runs(int turn) {
  const uint64_t t = static_cast<uint64_t>(turn);
  return element_runs(kElements, [&](uint64_t g) {
    return static_cast<int>(((g + t) / (3 + t) + g / 7) % size()) == rank();
  });
}

nlohmann::json profile_of(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}
double counter(const nlohmann::json& j, const char* name, const char* what = "sum") {
  return j.at("counters").at(name).at(what).get<double>();
}

// Variables a, b, c share decomposition 0 and d has decomposition 1; `turn_of(var, step)`
// may change a variable's decomposition between steps. Each step sets every selection again
// (as a model that calls set_selection before each put does): the same content is the same
// plan.
using TurnOf = std::function<int(int var, uint64_t step)>;
const TurnOf kFixedTurns = [](int var, uint64_t) { return var == 3 ? 1 : 0; };

void write(const std::string& engine, const std::string& path, const std::string& profile,
           uint64_t steps, const TurnOf& turn_of) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("w");
  io.set_engine(engine);
  io.set_parameter("profile", profile);
  std::vector<Variable> vars;
  for (const char* name : {"a", "b", "c", "d"}) vars.push_back(io.define_variable<double>(name, kShape));
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  write_run_steps(out, vars, steps, [&](int v, uint64_t s) { return my_runs(turn_of(v, s)); });
  out.close();
}

// Reads steps [0, steps), one perform_gets per step, each variable with the decomposition
// it was written with; every element is checked.
void read(const std::string& path, const std::string& profile, uint64_t steps,
          const TurnOf& turn_of) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("r");
  io.set_parameter("profile", profile);
  Engine in = io.open(path, TAPIO_MODE_READ);
  std::vector<Variable> vars;
  for (const char* name : {"a", "b", "c", "d"}) vars.push_back(io.inquire_variable(name));
  for (uint64_t s = 0; s < steps; ++s) {
    std::vector<ElementRuns> runs;
    std::vector<std::vector<double>> got(4);
    for (int v = 0; v < 4; ++v) {
      runs.push_back(my_runs(turn_of(v, s)));
      got[v].assign(runs[v].elements.size(), -1);
      vars[v].set_runs(runs[v].offsets, runs[v].lengths);
      vars[v].set_step_selection(s, 1);
      in.get(vars[v], got[v]);
    }
    in.perform_gets();
    for (int v = 0; v < 4; ++v)
      for (size_t i = 0; i < got[v].size(); ++i)
        ASSERT_EQ(got[v][i], value(v, s, runs[v].elements[i]))
            << "variable " << v << ", step " << s << ", element " << runs[v].elements[i];
  }
  in.close();
}

class PlanOnce : public ::testing::TestWithParam<const char*> {
 protected:
  std::string path(const TempDir& dir) const {
    return dir.file(std::string("x.") + (GetParam() == std::string("collective") ? "nc" : "tapio"));
  }
};

// Writes: each rank plans its two decompositions once, in the first step, and reuses them for
// the other variables and every later step; the plan phase is reported step by step. Reads
// plan as many plans for three steps as for one: the later steps reuse them.
TEST_P(PlanOnce, EachDecompositionIsPlannedOnce) {
  TempDir dir;
  const std::string file = path(dir), wprof = dir.file("w.json");
  write(GetParam(), file, wprof, 3, kFixedTurns);
  read(file, dir.file("r1.json"), 1, kFixedTurns);
  read(file, dir.file("r3.json"), 3, kFixedTurns);
  if (rank() != 0) return;
  const auto w = profile_of(wprof), r1 = profile_of(dir.file("r1.json")),
             r3 = profile_of(dir.file("r3.json"));
  const double P = size();
  EXPECT_EQ(counter(w, "plans_made"), 2 * P) << w["counters"].dump();
  EXPECT_EQ(counter(w, "plans_reused"), 10 * P);  // 2 in the first step, 4 in each other
  EXPECT_EQ(w["plan_per_batch"]["median"].size(), 3u);
  // What the file left in its context for a later file of its layout (its last step's routes
  // and rounds, or its blocks' selections): a few words per local piece.
  EXPECT_GT(counter(w, "plan_kept_bytes", "max"), 0) << w["counters"].dump();
  EXPECT_LE(counter(w, "plan_kept_bytes", "max"), 4 * (kElements / size() + 1) * 256 + 8192);
  // A collective reader leaves its last batch's plan too, bounded alike; a subfile reader
  // keeps nothing.
  if (GetParam() == std::string("collective")) {
    EXPECT_GT(counter(r1, "plan_kept_bytes", "max"), 0) << r1["counters"].dump();
    EXPECT_LE(counter(r1, "plan_kept_bytes", "max"), 4 * (kElements / size() + 1) * 256 + 8192);
  } else {
    EXPECT_EQ(counter(r1, "plan_kept_bytes"), 0);
  }
  EXPECT_GT(counter(r1, "plans_made"), 0);
  EXPECT_EQ(counter(r3, "plans_made"), counter(r1, "plans_made")) << r3["counters"].dump();
  EXPECT_GT(counter(r3, "plans_reused"), counter(r1, "plans_reused"));
  EXPECT_EQ(r3["plan_per_batch"]["median"].size(), 3u);
}

// A variable whose selection changes between steps gets a new plan, and its data lands where
// the new selection says; the plans no variable uses any more are dropped, so what is held
// stays a few plans of this rank's pieces.
TEST_P(PlanOnce, AChangedSelectionIsPlannedAgain) {
  TempDir dir;
  const std::string file = path(dir), wprof = dir.file("w.json");
  // Variable a: decomposition 0, then 1 from step 1, then 2 from step 2; the others keep theirs.
  const TurnOf turns = [](int var, uint64_t s) {
    return var == 0 ? static_cast<int>(s) : var == 3 ? 1 : 0;
  };
  write(GetParam(), file, wprof, 3, turns);
  read(file, dir.file("r.json"), 3, turns);
  if (rank() != 0) return;
  const auto w = profile_of(wprof);
  const double P = size();
  // Step 0 plans decompositions 0 and 1; step 1 finds a's new one (1) planned for d; step 2
  // plans decomposition 2.
  EXPECT_EQ(counter(w, "plans_made"), 3 * P) << w["counters"].dump();
  EXPECT_EQ(counter(w, "plans_reused"), 9 * P);
  // Held: at most three decompositions of at most kElements runs each, a few words per run.
  EXPECT_LE(counter(w, "plan_cache_bytes", "max"), 3 * (kElements / size() + 1) * 64 + 4096);
}

// Steady steps, then a change, then steady again: the collective engine moves the previous
// step's routes and message counts by a record while every rank repeats its puts, and plans
// them again the step one rank's selection changes (here only variable a's, from step 3).
TEST_P(PlanOnce, AChangeAfterSteadyStepsIsPlannedAgain) {
  TempDir dir;
  const std::string file = path(dir), wprof = dir.file("w.json");
  const TurnOf turns = [](int var, uint64_t s) {
    return var == 0 ? (s >= 3 ? 2 : 0) : var == 3 ? 1 : 0;
  };
  write(GetParam(), file, wprof, 5, turns);
  read(file, dir.file("r.json"), 5, turns);
}

INSTANTIATE_TEST_SUITE_P(Engines, PlanOnce, ::testing::Values("collective", "subfile"));

}  // namespace
}  // namespace tapio::test

// A steady step's rounds (the collective engine, docs/design.md): when every rank puts what
// it put in the previous step, the aggregators write and fill what they kept from the last
// step assembled in full, and the ranks on an aggregator's node send it an 8-byte word instead
// of their segment lists. The map here leaves holes (elements no rank writes), so a step does
// not tile its variables and the kept gaps are filled; every element of every step is read
// back, the holes as the fill value, under aggregator layouts that use shared slots, messages
// between (virtual) nodes, many rounds per step and no fill.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace tapio::test {
namespace {

const Dims kShape = {6, 50};
constexpr uint64_t kElements = 6 * 50;
constexpr double kDoubleFill = 9.9692099683868690e+36;  // NetCDF's default for doubles

// Element g belongs to rank ((g + turn) / 3 + g / 7) mod (size + 1): the share of a rank
// numbered `size` is a hole. Another `turn` is another decomposition.
int owner(uint64_t g, int turn) {
  return static_cast<int>(((g + static_cast<uint64_t>(turn)) / 3 + g / 7) %
                          static_cast<uint64_t>(size() + 1));
}

ElementRuns my_runs(int turn) {
  return element_runs(kElements, [&](uint64_t g) { return owner(g, turn) == rank(); });
}

using Params = std::vector<std::pair<std::string, std::string>>;

// Variables a and b share decomposition 0 until a takes decomposition 1 at step `change`.
int turn_of(int var, uint64_t step, uint64_t change) { return var == 0 && step >= change ? 1 : 0; }

void write(const std::string& path, const Params& params, uint64_t steps, uint64_t change) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("w");
  io.set_engine("collective");
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  std::vector<Variable> vars = {io.define_variable<double>("a", kShape),
                                io.define_variable<double>("b", kShape)};
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  write_run_steps(out, vars, steps,
                  [&](int v, uint64_t s) { return my_runs(turn_of(v, s, change)); });
  out.close();
}

// Every element of every step, both variables in one perform_gets per step, every rank the
// whole of each (so the reads of steps 1-5 repeat the step before, moved by a record): a
// rank's elements hold their values, holes the fill value (with fill on).
void expect_steps(const std::string& path, const Params& params, uint64_t steps,
                  uint64_t change, bool fill, const std::string& what) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("r");
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  Engine in = io.open(path, TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), steps) << what;
  std::vector<Variable> vars = {io.inquire_variable("a"), io.inquire_variable("b")};
  for (uint64_t s = 0; s < steps; ++s) {
    std::vector<std::vector<double>> got(2, std::vector<double>(kElements, -1));
    for (int v = 0; v < 2; ++v) {
      vars[v].set_selection({0, 0}, kShape);
      vars[v].set_step_selection(s, 1);
      in.get(vars[v], got[v]);
    }
    in.perform_gets();
    for (int v = 0; v < 2; ++v)
      for (uint64_t g = 0; g < kElements; ++g) {
        if (owner(g, turn_of(v, s, change)) < size())
          ASSERT_EQ(got[v][g], value(v, s, g)) << what << ": variable " << v << ", step " << s
                                               << ", element " << g;
        else if (fill)
          ASSERT_EQ(got[v][g], kDoubleFill) << what << ": a hole, variable " << v << ", step "
                                            << s << ", element " << g;
      }
  }
  in.close();
}

double counter(const std::string& profile, const char* name) {
  std::ifstream in(profile);
  return nlohmann::json::parse(in).at("counters").at(name).at("sum").get<double>();
}

const std::vector<Params> kLayouts = {
    {},                                                         // one node: shared slots
    {{"ranks_per_node", "1"}, {"aggregators", "2"}},            // messages between nodes
    {{"aggregators", "all"}, {"buffer_size", "256"}},           // many rounds per step
    {{"ranks_per_node", "2"}, {"buffer_size", "512"}, {"fill", "false"}},  // no fill
};

bool fills(const Params& p) {
  for (const auto& [k, v] : p)
    if (k == "fill") return v != "false";
  return true;
}

std::string describe(const Params& p) {
  std::string s = "layout {";
  for (const auto& [k, v] : p) s += " " + k + "=" + v;
  return s + " }";
}

// Six steps: a changes its decomposition at step 3, so steps 1-2 and 4-5 repeat the step
// before them and steps 0 and 3 are assembled in full.
TEST(SteadyRounds, RepeatedStepsWriteAndFillWhatTheFullStepDid) {
  for (const Params& layout : kLayouts) {
    TempDir dir;
    const std::string file = dir.file("x.nc");
    write(file, layout, 6, 3);
    Params reading = layout;
    reading.erase(std::remove_if(reading.begin(), reading.end(),
                                 [](const auto& p) { return p.first == "fill"; }),
                  reading.end());
    expect_steps(file, reading, 6, 3, fills(layout), describe(layout));
  }
}

// A repeated step's lists are the 8-byte word: on one node, each message of the steps after
// the first carries 8 bytes (the same write of one step against six: the extra messages'
// bytes are 8 each); a repeated read's requests too.
TEST(SteadyRounds, RepeatedStepsSendAWordInsteadOfLists) {
  if (size() < 2) GTEST_SKIP() << "no messages with one rank";
  TempDir dir;
  const Params one = {{"profile", dir.file("one.json")}}, six = {{"profile", dir.file("six.json")}};
  write(dir.file("one.nc"), one, 1, 99);
  write(dir.file("six.nc"), six, 6, 99);
  expect_steps(dir.file("six.nc"), {{"profile", dir.file("six_r.json")}}, 6, 99, true, "six");
  expect_steps(dir.file("one.nc"), {{"profile", dir.file("one_r.json")}}, 1, 99, true, "one");
  if (rank() != 0) return;
  const auto extra = [&](const char* name, const char* one, const char* six) {
    return counter(dir.file(six), name) - counter(dir.file(one), name);
  };
  const double messages = extra("messages_sent", "one.json", "six.json");
  EXPECT_GT(messages, 0);
  EXPECT_EQ(extra("bytes_sent", "one.json", "six.json"), 8 * messages);
  // Reads: each repeated request is the word, answered by an empty "it is there".
  const double asked = extra("messages_sent", "one_r.json", "six_r.json");
  EXPECT_GT(asked, 0);
  EXPECT_EQ(extra("bytes_sent", "one_r.json", "six_r.json"), 8 * asked / 2);
}

}  // namespace
}  // namespace tapio::test

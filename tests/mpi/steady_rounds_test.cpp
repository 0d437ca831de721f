// A steady step's rounds (the collective engine, docs/design.md): when every rank puts what
// it put in the previous step, the aggregators write and fill what they kept from the last
// step assembled in full, and the ranks on an aggregator's node send it an 8-byte word instead
// of their segment lists. The map here leaves holes (elements no rank writes), so a step does
// not tile its variables and the kept gaps are filled; every element of every step is read
// back, the holes as the fill value, under aggregator layouts that use shared slots, messages
// between (virtual) nodes, many rounds per step and no fill.
#include <gtest/gtest.h>

#include <cmath>
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

struct Runs {
  std::vector<uint64_t> offsets, lengths, elements;
};
Runs my_runs(int turn) {
  Runs r;
  for (uint64_t g = 0; g < kElements; ++g) {
    if (owner(g, turn) != rank()) continue;
    if (!r.offsets.empty() && r.offsets.back() + r.lengths.back() == g)
      ++r.lengths.back();
    else
      r.offsets.push_back(g), r.lengths.push_back(1);
    r.elements.push_back(g);
  }
  return r;
}

// Variables a and b share decomposition 0 until a takes decomposition 1 at step `change`.
int turn_of(int var, uint64_t step, uint64_t change) { return var == 0 && step >= change ? 1 : 0; }

using Params = std::vector<std::pair<std::string, std::string>>;

void write(const std::string& path, const Params& params, uint64_t steps, uint64_t change) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("w");
  io.set_engine("collective");
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  std::vector<Variable> vars = {io.define_variable<double>("a", kShape),
                                io.define_variable<double>("b", kShape)};
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  std::vector<std::vector<double>> data(2);
  for (uint64_t s = 0; s < steps; ++s) {
    out.begin_step();
    for (int v = 0; v < 2; ++v) {
      const Runs r = my_runs(turn_of(v, s, change));
      data[v].clear();
      for (uint64_t g : r.elements) data[v].push_back(value(v, s, g));
      vars[v].set_runs(r.offsets, r.lengths);
      out.put(vars[v], data[v]);
    }
    out.end_step();
  }
  out.close();
}

// Every element of every step: a rank's owned elements hold their values, holes the fill
// value (with fill on).
void expect_steps(const std::string& path, uint64_t steps, uint64_t change, bool fill,
                  const std::string& what) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("r");
  Engine in = io.open(path, TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), steps) << what;
  for (int v = 0; v < 2; ++v) {
    Variable var = io.inquire_variable(v == 0 ? "a" : "b");
    for (uint64_t s = 0; s < steps; ++s) {
      std::vector<double> got(kElements, -1);
      var.set_selection({0, 0}, kShape);
      var.set_step_selection(s, 1);
      in.get(var, got);
      in.perform_gets();
      for (uint64_t g = 0; g < kElements; ++g) {
        if (owner(g, turn_of(v, s, change)) < size())
          ASSERT_EQ(got[g], value(v, s, g)) << what << ": variable " << v << ", step " << s
                                            << ", element " << g;
        else if (fill)
          ASSERT_EQ(got[g], kDoubleFill) << what << ": a hole, variable " << v << ", step "
                                         << s << ", element " << g;
      }
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
    expect_steps(file, 6, 3, fills(layout), describe(layout));
  }
}

// A repeated step's lists are the 8-byte word: on one node, each message of the steps after
// the first carries 8 bytes. (The same write of one step against six: the extra messages'
// bytes are 8 each.)
TEST(SteadyRounds, RepeatedStepsSendAWordInsteadOfLists) {
  if (size() < 2) GTEST_SKIP() << "no messages with one rank";
  TempDir dir;
  const Params one = {{"profile", dir.file("one.json")}}, six = {{"profile", dir.file("six.json")}};
  write(dir.file("one.nc"), one, 1, 99);
  write(dir.file("six.nc"), six, 6, 99);
  expect_steps(dir.file("six.nc"), 6, 99, true, "six steps");
  if (rank() != 0) return;
  const double messages = counter(dir.file("six.json"), "messages_sent") -
                          counter(dir.file("one.json"), "messages_sent");
  const double bytes = counter(dir.file("six.json"), "bytes_sent") -
                       counter(dir.file("one.json"), "bytes_sent");
  EXPECT_GT(messages, 0);
  EXPECT_EQ(bytes, 8 * messages);
}

}  // namespace
}  // namespace tapio::test

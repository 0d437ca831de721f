// Decompositions (tapio_decomp_*): one map made once, given to many variables, steps and files
// in every engine, written and read back through it and through plain offsets; and what a
// decomposition refuses (a shape it was not made for, a joined variable, a freed handle).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "test_util.h"

namespace tapio::test {
namespace {

const Dims kShape = {6, 35};

// A random permutation of the elements dealt cyclically over the ranks: scattered, unsorted.
std::vector<uint64_t> my_shuffled_offsets() {
  std::vector<uint64_t> all(kShape[0] * kShape[1]);
  std::iota(all.begin(), all.end(), 0);
  std::mt19937_64 rng(11);
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<uint64_t> mine;
  for (size_t i = static_cast<size_t>(rank()); i < all.size(); i += static_cast<size_t>(size()))
    mine.push_back(all[i]);
  return mine;
}

class Decompositions : public ::testing::TestWithParam<std::string> {
 protected:
  std::string file(const std::string& name) const {
    return dir_.file(GetParam() == "subfile" ? name : name + ".nc");
  }
  TempDir dir_;
};

// Three variables of one shape take one decomposition in two files of two steps each; the
// handle is freed before the second file's last step (the variables keep their selection).
// Read back through the decomposition and through the same offsets given plainly.
TEST_P(Decompositions, OneMapForManyVariablesStepsAndFiles) {
  const std::vector<uint64_t> offsets = my_shuffled_offsets();
  Context ctx(MPI_COMM_WORLD);
  auto d = std::make_unique<Decomposition>(Decomposition::offsets(ctx.get(), kShape, offsets));
  EXPECT_EQ(d->size(), offsets.size());
  for (int f = 0; f < 2; ++f) {
    IO io = ctx.declare_io("decomp" + std::to_string(f));
    io.set_engine(GetParam());
    std::vector<Variable> vars;
    for (int v = 0; v < 3; ++v)
      vars.push_back(io.define_variable<double>("v" + std::to_string(v), kShape, {"y", "x"}));
    Engine out = io.open(file("f" + std::to_string(f)), TAPIO_MODE_WRITE);
    for (uint64_t s = 0; s < 2; ++s) {
      if (f == 1 && s == 1) d.reset();  // freed: the selections stay
      out.begin_step();
      std::vector<std::vector<double>> data(vars.size());
      for (size_t v = 0; v < vars.size(); ++v) {
        for (uint64_t g : offsets) data[v].push_back(value(static_cast<int>(v + 3 * f), s, g));
        if (d) vars[v].set_decomp(*d);
        out.put(vars[v], data[v]);
      }
      out.end_step();
    }
    out.close();
  }
  Decomposition again = Decomposition::offsets(ctx.get(), kShape, offsets);
  for (int f = 0; f < 2; ++f) {
    IO io = ctx.declare_io("read" + std::to_string(f));
    Engine in = io.open(file("f" + std::to_string(f)), TAPIO_MODE_READ);
    for (int v = 0; v < 3; ++v) {
      Variable var = io.inquire_variable("v" + std::to_string(v));
      std::vector<double> through_decomp(2 * offsets.size()), plain(2 * offsets.size());
      var.set_decomp(again);
      var.set_step_selection(0, 2);
      in.get(var, through_decomp);
      in.perform_gets();
      var.set_offsets(offsets);
      in.get(var, plain);
      in.perform_gets();
      for (uint64_t s = 0; s < 2; ++s)
        for (size_t i = 0; i < offsets.size(); ++i) {
          const double want = value(v + 3 * f, s, offsets[i]);
          ASSERT_EQ(through_decomp[s * offsets.size() + i], want) << "file " << f << " var " << v;
          ASSERT_EQ(plain[s * offsets.size() + i], want) << "file " << f << " var " << v;
        }
    }
    in.close();
  }
}

// Variables of three types share one decomposition: a reader checks the map against their
// shape once, yet each block's length against its own type.
TEST_P(Decompositions, VariablesOfThreeTypesShareOne) {
  const std::vector<uint64_t> offsets = my_shuffled_offsets();
  Context ctx(MPI_COMM_WORLD);
  const Decomposition d = Decomposition::offsets(ctx.get(), kShape, offsets);
  const std::string path = file("types");
  {
    IO io = ctx.declare_io("types");
    io.set_engine(GetParam());
    Variable a = io.define_variable<double>("a", kShape, {"y", "x"});
    Variable b = io.define_variable<float>("b", kShape, {"y", "x"});
    Variable c = io.define_variable<int32_t>("c", kShape, {"y", "x"});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    for (uint64_t s = 0; s < 2; ++s) {
      std::vector<double> da;
      std::vector<float> db;
      std::vector<int32_t> dc;
      for (uint64_t g : offsets) {
        da.push_back(static_cast<double>(g) + 0.5 + static_cast<double>(s));
        db.push_back(static_cast<float>(g) + 0.25f);
        dc.push_back(static_cast<int32_t>(g * 10 + s));
      }
      out.begin_step();
      for (Variable* v : {&a, &b, &c}) v->set_decomp(d);
      out.put(a, da);
      out.put(b, db);
      out.put(c, dc);
      out.end_step();
    }
    out.close();
  }
  IO io = ctx.declare_io("types-read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  Variable a = io.inquire_variable("a"), b = io.inquire_variable("b"),
           c = io.inquire_variable("c");
  for (Variable* v : {&a, &b, &c}) {
    v->set_decomp(d);
    v->set_step_selection(1, 1);
  }
  std::vector<double> ga(offsets.size());
  std::vector<float> gb(offsets.size());
  std::vector<int32_t> gc(offsets.size());
  in.get(a, ga);
  in.get(b, gb);
  in.get(c, gc);
  in.perform_gets();
  for (size_t i = 0; i < offsets.size(); ++i) {
    ASSERT_EQ(ga[i], static_cast<double>(offsets[i]) + 1.5) << i;
    ASSERT_EQ(gb[i], static_cast<float>(offsets[i]) + 0.25f) << i;
    ASSERT_EQ(gc[i], static_cast<int32_t>(offsets[i] * 10 + 1)) << i;
  }
  in.close();
}

// Runs make the same selection as the offsets they stand for.
TEST_P(Decompositions, RunsWriteWhatTheirOffsetsRead) {
  const uint64_t n = kShape[0] * kShape[1];
  const ElementRuns mine = element_runs(n, [](uint64_t g) {
    return (g / 3) % static_cast<uint64_t>(size()) == static_cast<uint64_t>(rank());
  });
  Context ctx(MPI_COMM_WORLD);
  Decomposition d = Decomposition::runs(ctx.get(), kShape, mine.offsets, mine.lengths);
  EXPECT_EQ(d.size(), mine.elements.size());
  const std::string path = file("runs");
  {
    IO io = ctx.declare_io("runs");
    io.set_engine(GetParam());
    Variable x = io.define_variable<double>("x", kShape, {"y", "x"});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    out.begin_step();
    std::vector<double> data;
    for (uint64_t g : mine.elements) data.push_back(value(0, 0, g));
    x.set_decomp(d);
    out.put(x, data);
    out.end_step();
    out.close();
  }
  IO io = ctx.declare_io("runs_read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  Variable x = io.inquire_variable("x");
  x.set_offsets(mine.elements);
  x.set_step_selection(0, 1);
  std::vector<double> got(mine.elements.size());
  in.get(x, got);
  in.perform_gets();
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], value(0, 0, mine.elements[i]));
  in.close();
}

// What a decomposition refuses, each with the call's error and nothing used in its place: the
// variable's next put fails its step on every rank.
TEST_P(Decompositions, RefusalsNameTheVariableAndLeaveNoSelection) {
  Context ctx(MPI_COMM_WORLD);
  const uint64_t outside = kShape[0] * kShape[1];
  tapio_decomp* bad = reinterpret_cast<tapio_decomp*>(&ctx);  // not a handle: reset to null
  Outcome o = outcome(tapio_decomp_from_offsets(ctx.get(), 2, kShape.data(), 1, &outside, &bad));
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE) << o.message;
  EXPECT_TRUE(contains(o.message, "rank " + std::to_string(rank()))) << o.message;
  EXPECT_EQ(bad, nullptr);

  Decomposition d = Decomposition::offsets(ctx.get(), kShape, my_shuffled_offsets());
  IO io = ctx.declare_io("refusals");
  io.set_engine(GetParam());
  Variable x = io.define_variable<double>("x", kShape, {"y", "x"});
  Variable wide = io.define_variable<double>("wide", {kShape[0], kShape[1] + 1}, {"y", "xw"});
  o = attempt([&] { wide.set_decomp(d); });
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE) << o.message;
  EXPECT_TRUE(contains(o.message, "variable 'wide' has shape [6, 36], the decomposition [6, 35]"))
      << o.message;
  EXPECT_TRUE(contains(o.message, "rank " + std::to_string(rank()))) << o.message;
  EXPECT_EQ(attempt([&] { wide.selection_size(); }).code, TAPIO_ERR_SHAPE);

  {  // a decomposition of another context
    Context other(MPI_COMM_WORLD);
    Decomposition foreign = Decomposition::offsets(other.get(), kShape, {});
    o = outcome(tapio_var_set_decomp(x.get(), foreign.get()));
    EXPECT_EQ(o.code, TAPIO_ERR_ARG) << o.message;
    EXPECT_TRUE(contains(o.message, "made in another context")) << o.message;
  }
  tapio_decomp* freed = nullptr;
  {
    Decomposition gone = Decomposition::offsets(ctx.get(), kShape, {});
    freed = gone.get();
  }
  x.set_decomp(d);  // a valid selection, which the refusal below must not leave in place
  o = outcome(tapio_var_set_decomp(x.get(), freed));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG) << o.message;
  EXPECT_TRUE(contains(o.message, "it was freed")) << o.message;
  EXPECT_EQ(outcome(tapio_decomp_free(freed)).code, TAPIO_ERR_ARG);
  EXPECT_EQ(outcome(tapio_var_set_decomp(x.get(), nullptr)).code, TAPIO_ERR_ARG);

  // x has no selection now: its put fails the step everywhere, nothing is committed.
  Engine out = io.open(file("refused"), TAPIO_MODE_WRITE);
  out.begin_step();
  std::vector<double> data(1);
  (void)attempt([&] { out.put(x, data); });
  o = attempt([&] { out.end_step(); });
  EXPECT_EQ(o.code, TAPIO_ERR_ARG) << o.message;
  EXPECT_EQ(out.steps(), 0u);
  out.close();
}

TEST(DecompositionsJoined, AJoinedVariableTakesNone) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("joined");
  tapio_var* v = nullptr;
  const uint64_t shape[2] = {0, 3};
  ASSERT_EQ(tapio_define_variable(io.get(), "rows", TAPIO_FLOAT64, 2, shape, nullptr,
                                  TAPIO_VAR_JOINED, &v),
            TAPIO_OK)
      << tapio_last_error();
  Decomposition d = Decomposition::offsets(ctx.get(), {0, 3}, {});
  const Outcome o = outcome(tapio_var_set_decomp(v, d.get()));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG) << o.message;
  EXPECT_TRUE(contains(o.message, "joined")) << o.message;
}

INSTANTIATE_TEST_SUITE_P(Engines, Decompositions,
                         ::testing::Values("serial", "mpiio", "collective", "subfile"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tapio::test

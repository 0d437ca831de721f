// Puts and gets of another numeric type than the variable's, on every engine: they convert as
// netCDF does (read back and compared with the values C's conversion gives), a value out of
// range fails its put and so the step on every rank with nothing committed, or fails the get
// on every rank; text does not convert to numbers.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "test_util.h"

namespace tapio::test {
namespace {

constexpr uint64_t kPer = 4;  // elements per rank

// A file of `engine` with three record variables of 4 elements per rank: double `d`, double
// `i` and int16 `s`; each rank selects its own block of all three.
struct File {
  std::string engine, path;
  Context ctx{MPI_COMM_WORLD};
  IO io;
  Variable d, i, s;

  File(const std::string& engine, const TempDir& dir, const std::string& name)
      : engine(engine),
        path(dir.file(engine == "subfile" ? name : name + ".nc")),
        io(ctx.declare_io(name)) {
    io.set_engine(engine);
    const Dims shape = {kPer * static_cast<uint64_t>(size())};
    d = io.define_variable<double>("d", shape, {"n"});
    i = io.define_variable<double>("i", shape, {"n"});
    s = io.define_variable<int16_t>("s", shape, {"n"});
  }
  void select_mine() {
    for (Variable* v : {&d, &i, &s}) v->set_selection(block_start(kPer), {kPer});
  }
  // "file 'PATH', variable 'NAME', rank R": how a local error about a variable begins.
  std::string where(const std::string& var, int r) const {
    return fmt::format("file '{}', variable '{}', rank {}", path, var, r);
  }
};

// A File's file open for reading, in a context of its own.
struct Reader {
  Context ctx{MPI_COMM_WORLD};
  IO io;
  Engine in;
  explicit Reader(const File& f) : io(ctx.declare_io("check")) {
    io.set_engine(f.engine);
    in = io.open(f.path, TAPIO_MODE_READ);
  }
  // Variable `name`, this rank's block of it selected, over steps [first, first + count).
  Variable mine(const std::string& name, uint64_t first, uint64_t count) {
    Variable v = io.inquire_variable(name);
    v.set_selection(block_start(kPer), {kPer});
    v.set_step_selection(first, count);
    return v;
  }
};

// This rank's values at `step`: fractions, negatives, and (for int16) values near its limits.
std::vector<float> floats(uint64_t step) {
  std::vector<float> v;
  for (uint64_t k = 0; k < kPer; ++k) v.push_back(0.1f * (rank() * kPer + k) - step * 3.7f);
  return v;
}
std::vector<int32_t> ints(uint64_t step) {
  std::vector<int32_t> v;
  for (uint64_t k = 0; k < kPer; ++k)
    v.push_back(static_cast<int32_t>(-2000000000 + 1000 * (rank() * kPer + k) + step));
  return v;
}
std::vector<double> near_int16_limits(uint64_t step) {
  const double pick[kPer] = {32767.9, -32768.9, -2.7, 2.7 + step};
  return std::vector<double>(pick, pick + kPer);
}

class Convert : public ::testing::TestWithParam<std::string> {};

// float32 and int32 to float64 exactly; float64 to int16 truncated toward zero. The program
// reuses its arrays right after each put: a converted put was copied when it was made.
TEST_P(Convert, PutsConvertToTheVariablesType) {
  TempDir dir;
  File f(GetParam(), dir, "puts");
  {
    Engine out = f.io.open(f.path, TAPIO_MODE_WRITE);
    for (uint64_t step = 0; step < 2; ++step) {
      out.begin_step();
      f.select_mine();
      std::vector<float> fl = floats(step);
      std::vector<int32_t> in = ints(step);
      std::vector<double> narrow = near_int16_limits(step);
      out.put(f.d, fl);
      out.put(f.i, in);
      out.put(f.s, narrow);
      std::fill(fl.begin(), fl.end(), -1.0f);
      std::fill(in.begin(), in.end(), -1);
      std::fill(narrow.begin(), narrow.end(), 1e9);  // out of range, had it been read now
      out.end_step();
    }
    out.close();
  }
  Reader r(f);
  ASSERT_EQ(r.in.steps(), 2u);
  for (uint64_t step = 0; step < 2; ++step) {
    Variable d = r.mine("d", step, 1), i = r.mine("i", step, 1), s = r.mine("s", step, 1);
    std::vector<double> got_d(kPer), got_i(kPer);
    std::vector<int16_t> got_s(kPer);
    r.in.get(d, got_d);
    r.in.get(i, got_i);
    r.in.get(s, got_s);
    r.in.perform_gets();
    const std::vector<float> fl = floats(step);
    const std::vector<int32_t> ints_put = ints(step);
    for (uint64_t k = 0; k < kPer; ++k) {
      EXPECT_EQ(got_d[k], static_cast<double>(fl[k])) << "step " << step << " k " << k;
      EXPECT_EQ(got_i[k], static_cast<double>(ints_put[k])) << "step " << step << " k " << k;
    }
    EXPECT_EQ(got_s, (std::vector<int16_t>{32767, -32768, -2, static_cast<int16_t>(2 + step)}));
  }
  r.in.close();
}

// A float64 variable read into float32, int32 and int16 buffers, one step and two at once.
TEST_P(Convert, GetsConvertIntoTheBuffersType) {
  TempDir dir;
  File f(GetParam(), dir, "gets");
  const std::vector<double> values = {1.25, -7.75, 1e6 + 0.5, -32768.5};
  {
    Engine out = f.io.open(f.path, TAPIO_MODE_WRITE);
    for (int step = 0; step < 2; ++step) {
      out.begin_step();
      f.select_mine();
      std::vector<double> mine = values;
      mine[0] += step;
      out.put(f.d, mine);
      out.end_step();
    }
    out.close();
  }
  Reader r(f);
  Variable d = r.mine("d", 0, 2);
  std::vector<float> as_float(2 * kPer);
  std::vector<int32_t> as_int(2 * kPer);
  r.in.get(d, as_float);
  r.in.get(d, as_int);
  r.in.perform_gets();
  for (int step = 0; step < 2; ++step) {
    EXPECT_EQ(as_float[step * kPer], 1.25f + step);
    EXPECT_EQ(as_float[step * kPer + 2], 1000000.5f);
    EXPECT_EQ(as_int[step * kPer], 1 + step);
    EXPECT_EQ(as_int[step * kPer + 1], -7);
    EXPECT_EQ(as_int[step * kPer + 2], 1000000);
    EXPECT_EQ(as_int[step * kPer + 3], -32768);
  }
  // int16: element 3 alone (element 2, 1e6, is out of its range).
  std::vector<int16_t> narrow(2);
  d.set_selection({block_start(kPer)[0] + 3}, {1});
  d.set_step_selection(1, 1);
  r.in.get(d, narrow);
  r.in.perform_gets();
  EXPECT_EQ(narrow[0], -32768);
  r.in.close();
}

// One rank puts a value int16 cannot hold: its put fails, naming the file, variable, rank,
// element and value; the step fails on every rank and is not committed; the next step and the
// earlier one are whole.
TEST_P(Convert, AValueOutOfRangeFailsTheStepOnEveryRank) {
  TempDir dir;
  File f(GetParam(), dir, "range");
  const int bad = size() - 1;
  const std::vector<double> good = {1.5, -2.5, 30000, -30000};
  {
    Engine out = f.io.open(f.path, TAPIO_MODE_WRITE);
    out.begin_step();
    f.select_mine();
    out.put(f.s, good);
    out.end_step();

    out.begin_step();
    std::vector<double> mine = good;
    if (rank() == bad) mine[2] = 40000.0;
    const Outcome put = attempt([&] { out.put(f.s, mine); });
    if (rank() == bad) {
      EXPECT_EQ(put.code, TAPIO_ERR_RANGE);
      EXPECT_TRUE(contains(put.message, f.where("s", bad) +
                                            ": element 2 (float64 40000) is out of the range "
                                            "of int16"))
          << put.message;
    } else {
      EXPECT_EQ(put.code, TAPIO_OK) << put.message;
    }
    const Outcome step = attempt([&] { out.end_step(); });
    expect_same_everywhere(step.code);
    EXPECT_EQ(step.code, TAPIO_ERR_RANGE) << step.message;
    EXPECT_TRUE(contains(step.message, fmt::format("step 1 is not committed: a put failed on "
                                                   "rank {}", bad)))
        << step.message;
    EXPECT_EQ(out.steps(), 1u);

    out.begin_step();  // the failed step's index is written again, whole
    out.put(f.s, good);
    out.end_step();
    out.close();
  }
  Reader r(f);
  ASSERT_EQ(r.in.steps(), 2u);
  Variable s = r.mine("s", 0, 2);
  std::vector<int16_t> got(2 * kPer);
  r.in.get(s, got);
  r.in.perform_gets();
  EXPECT_EQ(got, (std::vector<int16_t>{1, -2, 30000, -30000, 1, -2, 30000, -30000}));
  r.in.close();
}

// A stored value the buffer's type cannot hold fails the get on every rank, naming the
// variable and the rank that met it; the file stays readable.
TEST_P(Convert, AValueOutOfRangeFailsTheGetOnEveryRank) {
  TempDir dir;
  File f(GetParam(), dir, "get_range");
  const int bad = size() - 1;
  {
    Engine out = f.io.open(f.path, TAPIO_MODE_WRITE);
    out.begin_step();
    f.select_mine();
    std::vector<double> mine = {1, 2, 3, rank() == bad ? 1e10 : 4.0};
    out.put(f.d, mine);
    out.end_step();
    out.close();
  }
  Reader r(f);
  Variable d = r.mine("d", 0, 1);
  std::vector<int32_t> narrow(kPer);
  r.in.get(d, narrow);
  const Outcome o = attempt([&] { r.in.perform_gets(); });
  expect_same_everywhere(o.code);
  EXPECT_EQ(o.code, TAPIO_ERR_RANGE) << o.message;
  EXPECT_TRUE(contains(o.message, fmt::format("rank {}: {}: element 3 (float64 10000000000) is "
                                              "out of the range of int32", bad, f.where("d", bad))))
      << o.message;
  std::vector<double> wide(kPer);
  r.in.get(d, wide);
  r.in.perform_gets();
  EXPECT_EQ(wide[3], rank() == bad ? 1e10 : 4.0);
  r.in.close();
}

TEST_P(Convert, TextDoesNotConvertToNumbers) {
  TempDir dir;
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("text");
  io.set_engine(GetParam());
  Variable c = io.define_variable<char>("c", {kPer * static_cast<uint64_t>(size())}, {"n"});
  const std::string path = dir.file(GetParam() == "subfile" ? "text" : "text.nc");
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  out.begin_step();
  c.set_selection(block_start(kPer), {kPer});
  const std::vector<int8_t> bytes(kPer, 65);
  const Outcome o = attempt([&] { out.put(c, bytes); });
  EXPECT_EQ(o.code, TAPIO_ERR_TYPE);
  EXPECT_TRUE(contains(o.message, "the variable is char but the buffer is int8: text and "
                                  "numbers do not convert"))
      << o.message;
  const Outcome step = attempt([&] { out.end_step(); });
  EXPECT_EQ(step.code, TAPIO_ERR_TYPE) << step.message;
  out.close();
}

INSTANTIATE_TEST_SUITE_P(Engines, Convert,
                         ::testing::Values("serial", "mpiio", "collective", "subfile"));

}  // namespace
}  // namespace tapio::test

// The conformance suite's misuse matrix: on every engine, each misuse a program can make gives
// a clear error on every rank that made it (the code, and a message naming the file, variable,
// step, ranks and dimension where they apply), with no crash and no hang (ctest's timeout),
// and a step that went wrong is not committed.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <utility>

#include "test_util.h"

namespace tapio::test {
namespace {

constexpr uint64_t kCols = 6;

// A file open for writing with `engine`: double temp[2P][6] (lat, lon), a record variable;
// rank r owns rows [2r, 2r + 2), whose values differ from every other rank's.
struct Open {
  std::string path;
  tapio_context* ctx = nullptr;
  tapio_io* io = nullptr;
  tapio_var* temp = nullptr;
  tapio_engine* engine = nullptr;
  std::vector<double> values;  // every element of temp, value(0, 0, g)

  Open(const std::string& engine_name, const TempDir& dir)
      : path(dir.file(engine_name == "subfile" ? "misuse" : "misuse.nc")) {
    const uint64_t shape[2] = {2 * static_cast<uint64_t>(size()), kCols};
    const char* dims[2] = {"lat", "lon"};
    for (uint64_t g = 0; g < shape[0] * kCols; ++g) values.push_back(value(0, 0, g));
    EXPECT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_OK);
    EXPECT_EQ(tapio_declare_io(ctx, "misuse", &io), TAPIO_OK);
    EXPECT_EQ(tapio_io_set_engine(io, engine_name.c_str()), TAPIO_OK);
    EXPECT_EQ(tapio_define_variable(io, "temp", TAPIO_FLOAT64, 2, shape, dims, 0, &temp), TAPIO_OK);
    EXPECT_EQ(tapio_open(io, path.c_str(), TAPIO_MODE_WRITE, &engine), TAPIO_OK)
        << tapio_last_error();
  }
  ~Open() {
    if (ctx) tapio_finalize(ctx);
  }
  // Selects rows [first, first + count) and puts their values.
  int put_rows(uint64_t first, uint64_t count) {
    const uint64_t start[2] = {first, 0}, counts[2] = {count, kCols};
    const int rc = tapio_var_set_selection(temp, start, counts);
    return rc != TAPIO_OK ? rc : tapio_put(engine, temp, TAPIO_FLOAT64, &values[first * kCols]);
  }
  uint64_t steps() {
    uint64_t n = 0;
    EXPECT_EQ(tapio_steps(engine, &n), TAPIO_OK);
    return n;
  }
  // "file 'PATH', variable 'temp'": how every message about temp begins.
  std::string where() const { return fmt::format("file '{}', variable 'temp'", path); }
};

// The steps a new reader finds in the file.
uint64_t steps_on_disk(const std::string& path) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("check");
  Engine in = io.open(path, TAPIO_MODE_READ);
  const uint64_t steps = in.steps();
  in.close();
  return steps;
}

class Misuse : public ::testing::TestWithParam<std::string> {};

TEST_P(Misuse, OverlapFailsTheStepOnEveryRank) {
  TempDir dir;
  Open f(GetParam(), dir);
  ASSERT_EQ(tapio_begin_step(f.engine, nullptr), TAPIO_OK);
  // Rank 0 also writes the first row of rank 1; alone, it writes its second row twice.
  const uint64_t mine = 2 * static_cast<uint64_t>(rank());
  ASSERT_EQ(f.put_rows(mine, rank() == 0 && size() > 1 ? 3 : 2), TAPIO_OK);
  if (size() == 1) ASSERT_EQ(f.put_rows(1, 1), TAPIO_OK);
  const Outcome o = outcome(tapio_end_step(f.engine));
  expect_same_everywhere(o.code);
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE) << o.message;
  // The serial engine's form on every engine: the elements, not the bytes of the file.
  const std::string overlap =
      size() > 1 ? "blocks overlap: rank 0 writes elements [0, 18) and rank 1 writes [12, 24)"
                 : "blocks overlap: rank 0 writes elements [0, 12) and rank 0 writes [6, 12)";
  EXPECT_TRUE(contains(o.message, f.where() + ", step 0: " + overlap)) << o.message;
  EXPECT_EQ(f.steps(), 0u);
  EXPECT_EQ(tapio_close(f.engine), TAPIO_OK) << tapio_last_error();
  EXPECT_EQ(steps_on_disk(f.path), 0u);
}

// A file of the same layout as the one its context closed before repeats that file's plan
// (collective) or skips its first step's overlap check (subfile) only when every rank puts
// what it put then: an overlap in its first step is still caught on every rank, and the file
// after it is planned and checked afresh, and written whole.
TEST_P(Misuse, OverlapInTheNextFilesFirstStepIsCaught) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks to overlap";
  TempDir dir;
  Context ctx(MPI_COMM_WORLD);
  const uint64_t rows = 2 * static_cast<uint64_t>(size());
  std::vector<double> values(rows * kCols);
  for (uint64_t g = 0; g < values.size(); ++g) values[g] = value(0, 0, g);
  const uint64_t mine = 2 * static_cast<uint64_t>(rank());
  const auto path = [&](int f) {
    return dir.file("next" + std::to_string(f) + (GetParam() == "subfile" ? "" : ".nc"));
  };
  // File f, one step, this rank's two rows from row `first`: the step's outcome.
  const auto write = [&](int f, uint64_t first) {
    IO io = ctx.declare_io("next" + std::to_string(f));
    io.set_engine(GetParam());
    Variable temp = io.define_variable<double>("temp", {rows, kCols}, {"lat", "lon"});
    Engine out = io.open(path(f), TAPIO_MODE_WRITE);
    const std::vector<double> d(values.begin() + first * kCols,
                                values.begin() + (first + 2) * kCols);
    temp.set_selection({first, 0}, {2, kCols});
    out.begin_step();
    out.put(temp, d);
    std::string failed;
    try {
      out.end_step();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), TAPIO_ERR_SHAPE);
      failed = e.what();
    }
    out.close();
    return failed;
  };
  EXPECT_EQ(write(0, mine), "");
  // Rank 1 moves onto rank 0's second row.
  const std::string msg = write(1, rank() == 1 ? 1 : mine);
  EXPECT_TRUE(contains(msg, fmt::format("file '{}', variable 'temp', step 0: blocks overlap",
                                        path(1))))
      << msg;
  EXPECT_EQ(write(2, mine), "");
  IO io = ctx.declare_io("check_next");
  Engine in = io.open(path(2), TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), 1u);
  Variable temp = io.inquire_variable("temp");
  temp.set_step_selection(0, 1);
  std::vector<double> got(values.size());
  in.get(temp, got);
  in.perform_gets();
  in.close();
  EXPECT_EQ(got, values);
}

// Engines skip checks that steady steps provably pass (the collective engine's coverage
// bitmap, the subfile engine's overlap check): steps that tile the variable the same way are
// written whole, and a step that then overlaps is still caught — here with as many elements
// as the variable has (rank 1 moves onto rank 0's second row, leaving a row out; alone, rank
// 0 writes its first row twice), so that only the change of shape can tell.
TEST_P(Misuse, OverlapAfterSteadyStepsIsStillCaught) {
  TempDir dir;
  Open f(GetParam(), dir);
  const uint64_t mine = 2 * static_cast<uint64_t>(rank());
  for (int s = 0; s < 3; ++s) {
    ASSERT_EQ(tapio_begin_step(f.engine, nullptr), TAPIO_OK);
    ASSERT_EQ(f.put_rows(mine, 2), TAPIO_OK);
    ASSERT_EQ(tapio_end_step(f.engine), TAPIO_OK) << tapio_last_error();
  }
  ASSERT_EQ(tapio_begin_step(f.engine, nullptr), TAPIO_OK);
  if (size() == 1) {
    ASSERT_EQ(f.put_rows(0, 1), TAPIO_OK);
    ASSERT_EQ(f.put_rows(0, 1), TAPIO_OK);
  } else {
    ASSERT_EQ(f.put_rows(rank() == 1 ? 1 : mine, 2), TAPIO_OK);
  }
  const Outcome o = outcome(tapio_end_step(f.engine));
  expect_same_everywhere(o.code);
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE) << o.message;
  EXPECT_TRUE(contains(o.message, f.where() + ", step 3: blocks overlap")) << o.message;
  EXPECT_EQ(tapio_close(f.engine), TAPIO_OK) << tapio_last_error();
  // The steady steps are whole on disk.
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("check_steady");
  Engine in = io.open(f.path, TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), 3u);
  Variable temp = io.inquire_variable("temp");
  temp.set_step_selection(2, 1);
  std::vector<double> got(f.values.size());
  in.get(temp, got);
  in.perform_gets();
  in.close();
  EXPECT_EQ(got, f.values);
}

TEST_P(Misuse, SelectionOutsideTheShapeNamesFileRankAndDimension) {
  TempDir dir;
  Open f(GetParam(), dir);
  ASSERT_EQ(tapio_begin_step(f.engine, nullptr), TAPIO_OK);
  const uint64_t start[2] = {2 * static_cast<uint64_t>(rank()), 4}, count[2] = {2, 3};
  const Outcome o = outcome(tapio_var_set_selection(f.temp, start, count));
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE);
  EXPECT_TRUE(contains(o.message, fmt::format("{}, rank {}: ", f.where(), rank()))) << o.message;
  EXPECT_TRUE(contains(o.message, "start 4 + count 3 exceeds the length 6 of dimension 'lon'"))
      << o.message;
  ASSERT_EQ(f.put_rows(start[0], 2), TAPIO_OK);  // the rejected selection was not kept
  EXPECT_EQ(tapio_end_step(f.engine), TAPIO_OK) << tapio_last_error();
  EXPECT_EQ(tapio_close(f.engine), TAPIO_OK);
}

TEST_P(Misuse, WrongMemtypeFailsThePutAndTheStep) {
  TempDir dir;
  Open f(GetParam(), dir);
  ASSERT_EQ(tapio_begin_step(f.engine, nullptr), TAPIO_OK);
  ASSERT_EQ(f.put_rows(2 * static_cast<uint64_t>(rank()), 2), TAPIO_OK);
  std::vector<char> wrong(2 * kCols);  // numeric types convert; text does not
  Outcome o = outcome(tapio_put(f.engine, f.temp, TAPIO_CHAR, wrong.data()));
  EXPECT_EQ(o.code, TAPIO_ERR_TYPE);
  EXPECT_TRUE(contains(o.message, fmt::format("{}, rank {}: ", f.where(), rank()))) << o.message;
  EXPECT_TRUE(contains(o.message, "is float64 but the buffer is char")) << o.message;
  o = outcome(tapio_end_step(f.engine));
  expect_same_everywhere(o.code);
  EXPECT_EQ(o.code, TAPIO_ERR_TYPE) << o.message;
  EXPECT_TRUE(contains(o.message, "step 0 is not committed: a put failed on rank 0")) << o.message;
  EXPECT_EQ(f.steps(), 0u);
  EXPECT_EQ(tapio_close(f.engine), TAPIO_OK) << tapio_last_error();
}

TEST_P(Misuse, PutOutsideAStep) {
  TempDir dir;
  Open f(GetParam(), dir);
  const Outcome o = outcome(f.put_rows(2 * static_cast<uint64_t>(rank()), 2));
  EXPECT_EQ(o.code, TAPIO_ERR_STATE);
  EXPECT_TRUE(contains(o.message, fmt::format("{}, rank {}: ", f.where(), rank()))) << o.message;
  EXPECT_TRUE(contains(o.message, "outside a step")) << o.message;
  // It does not spoil the next step.
  ASSERT_EQ(tapio_begin_step(f.engine, nullptr), TAPIO_OK);
  ASSERT_EQ(f.put_rows(2 * static_cast<uint64_t>(rank()), 2), TAPIO_OK);
  EXPECT_EQ(tapio_end_step(f.engine), TAPIO_OK) << tapio_last_error();
  EXPECT_EQ(tapio_close(f.engine), TAPIO_OK);
  EXPECT_EQ(steps_on_disk(f.path), 1u);
}

TEST_P(Misuse, DoubleClose) {
  TempDir dir;
  Open f(GetParam(), dir);
  ASSERT_EQ(tapio_close(f.engine), TAPIO_OK);
  const char* stale = "not a valid engine handle: it was closed or its context finalized";
  Outcome o = outcome(tapio_close(f.engine));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_EQ(o.message, std::string("tapio_close: ") + stale);
  o = outcome(tapio_begin_step(f.engine, nullptr));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_EQ(o.message, std::string("tapio_begin_step: ") + stale);
  o = outcome(tapio_put(f.engine, f.temp, TAPIO_FLOAT64, f.values.data()));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_EQ(o.message, std::string("tapio_put: ") + stale);
  // A new engine does not make the old handle valid again.
  tapio_engine* again = nullptr;
  ASSERT_EQ(tapio_open(f.io, f.path.c_str(), TAPIO_MODE_WRITE, &again), TAPIO_OK);
  EXPECT_EQ(tapio_close(f.engine), TAPIO_ERR_ARG);
  EXPECT_EQ(tapio_close(again), TAPIO_OK);
}

TEST_P(Misuse, UseAfterFinalize) {
  TempDir dir;
  Open f(GetParam(), dir);
  tapio_context* ctx = std::exchange(f.ctx, nullptr);
  ASSERT_EQ(tapio_finalize(ctx), TAPIO_OK);  // closes the engine
  Outcome o = outcome(tapio_finalize(ctx));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_EQ(o.message, "tapio_finalize: not a valid context: it was finalized");
  o = outcome(tapio_close(f.engine));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_TRUE(contains(o.message, "not a valid engine handle")) << o.message;
  const char* name = nullptr;
  o = outcome(tapio_var_name(f.temp, &name));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_EQ(o.message, "tapio_var_name: not a valid variable handle: its context was finalized");
  tapio_io* io = nullptr;
  o = outcome(tapio_inquire_variable(f.io, "temp", &f.temp));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_EQ(o.message, "tapio_inquire_variable: not a valid IO handle: its context was finalized");
  EXPECT_EQ(tapio_declare_io(ctx, "misuse", &io), TAPIO_ERR_ARG);
  EXPECT_EQ(io, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Engines, Misuse,
                         ::testing::Values("serial", "mpiio", "collective", "subfile"));

}  // namespace
}  // namespace tapio::test

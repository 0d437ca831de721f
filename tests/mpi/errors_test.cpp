// Bad input: every case returns a clear error (naming file, variable, rank where they apply),
// collective calls return it on every rank, and nothing already written is lost.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace tapio::test {
namespace {

struct Fixture {
  tapio_context* ctx = nullptr;
  tapio_io* io = nullptr;
  tapio_var* var = nullptr;  // double x[4 * P], record
  Fixture() {
    EXPECT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_OK);
    EXPECT_EQ(tapio_declare_io(ctx, "errors", &io), TAPIO_OK);
    const uint64_t shape[1] = {4 * static_cast<uint64_t>(size())};
    EXPECT_EQ(tapio_define_variable(io, "x", TAPIO_FLOAT64, 1, shape, nullptr, 0, &var), TAPIO_OK);
  }
  ~Fixture() { tapio_finalize(ctx); }
  tapio_engine* create(const std::string& path) {
    tapio_engine* e = nullptr;
    EXPECT_EQ(tapio_open(io, path.c_str(), TAPIO_MODE_WRITE, &e), TAPIO_OK) << tapio_last_error();
    return e;
  }
  // Puts this rank's 4 elements of x, shifted by `shift` elements.
  int put_mine(tapio_engine* e, const std::vector<double>& data, uint64_t shift = 0) {
    const uint64_t start = 4 * static_cast<uint64_t>(rank()) + shift, count = 4;
    int rc = tapio_var_set_selection(var, &start, &count);
    return rc != TAPIO_OK ? rc : tapio_put(e, var, TAPIO_FLOAT64, data.data());
  }
};

// The file at `path` holds one step, in which every rank's block of x is 1, 2, 3, 4.
void expect_one_step_of_blocks(const std::string& path) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("check");
  Engine in = io.open(path, TAPIO_MODE_READ);
  EXPECT_EQ(in.steps(), 1u);
  Variable v = io.inquire_variable("x");
  std::vector<double> got(v.selection_size());
  in.begin_step();
  in.get(v, got);
  in.end_step();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], 1.0 + i % 4);
  in.close();
}

TEST(Errors, SelectionOutsideShapeNamesVariable) {
  Fixture f;
  const uint64_t start = 4 * static_cast<uint64_t>(size()) - 2, count = 4;
  const Outcome o = outcome(tapio_var_set_selection(f.var, &start, &count));
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE);
  EXPECT_TRUE(contains(o.message, "variable 'x'")) << o.message;
  EXPECT_TRUE(contains(o.message, "exceeds")) << o.message;
}

TEST(Errors, TypeMismatchAndPutOutsideStep) {
  TempDir dir;
  Fixture f;
  tapio_engine* e;
  ASSERT_EQ(tapio_open(f.io, dir.file("t.nc").c_str(), TAPIO_MODE_WRITE, &e), TAPIO_OK);
  std::vector<char> wrong(4);  // text: numeric types convert (convert_test), text does not
  Outcome o = outcome(tapio_put(e, f.var, TAPIO_CHAR, wrong.data()));
  EXPECT_EQ(o.code, TAPIO_ERR_STATE);  // outside a step is checked first
  ASSERT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
  o = outcome(tapio_put(e, f.var, TAPIO_CHAR, wrong.data()));
  EXPECT_EQ(o.code, TAPIO_ERR_TYPE);
  EXPECT_TRUE(contains(o.message, "float64") && contains(o.message, "char")) << o.message;
  EXPECT_TRUE(contains(o.message, "t.nc")) << o.message;
  std::vector<double> out(4);
  o = outcome(tapio_get(e, f.var, TAPIO_FLOAT64, out.data()));
  EXPECT_EQ(o.code, TAPIO_ERR_STATE);
  EXPECT_EQ(tapio_end_step(e), TAPIO_ERR_TYPE);  // the rejected put fails its step
  EXPECT_EQ(tapio_close(e), TAPIO_OK);
}

TEST(Errors, OverlapFailsOnEveryRankAndKeepsEarlierSteps) {
  TempDir dir;
  const std::string path = dir.file("overlap.nc");
  {
    Fixture f;
    tapio_engine* e = f.create(path);
    std::vector<double> data = {1, 2, 3, 4};
    ASSERT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
    ASSERT_EQ(f.put_mine(e, data), TAPIO_OK);
    ASSERT_EQ(tapio_end_step(e), TAPIO_OK);
    // Step 1: every rank writes its block and also the block of its right neighbour (or, on
    // one rank, the same block twice).
    ASSERT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
    ASSERT_EQ(f.put_mine(e, data), TAPIO_OK);
    ASSERT_EQ(f.put_mine(e, data, size() > 1 && rank() + 1 < size() ? 4 : 0), TAPIO_OK);
    const Outcome o = outcome(tapio_end_step(e));
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_SHAPE);
    EXPECT_TRUE(contains(o.message, "overlap")) << o.message;
    EXPECT_TRUE(contains(o.message, "variable 'x'")) << o.message;
    EXPECT_TRUE(contains(o.message, "overlap.nc")) << o.message;
    EXPECT_EQ(tapio_close(e), TAPIO_OK);
  }
  expect_one_step_of_blocks(path);  // step 0 survives, step 1 was never committed
}

TEST(Errors, FailedPutOnOneRankFailsTheStepEverywhere) {
  TempDir dir;
  const std::string path = dir.file("failed_put.nc");
  const int last = size() - 1;
  Fixture f;
  tapio_engine* e = f.create(path);
  std::vector<double> data = {1, 2, 3, 4};
  ASSERT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
  if (rank() == last) {  // a null buffer for 4 elements: this put fails, the others do not
    const uint64_t start = 4 * static_cast<uint64_t>(rank()), count = 4;
    ASSERT_EQ(tapio_var_set_selection(f.var, &start, &count), TAPIO_OK);
    EXPECT_EQ(tapio_put(e, f.var, TAPIO_FLOAT64, nullptr), TAPIO_ERR_ARG);
  } else {
    ASSERT_EQ(f.put_mine(e, data), TAPIO_OK);
  }
  const Outcome o = outcome(tapio_end_step(e));
  expect_same_everywhere(o.code);
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_TRUE(contains(o.message, fmt::format("step 0 is not committed: a put failed on rank {}: "
                                              "file '{}', variable 'x'", last, path)))
      << o.message;
  uint64_t steps = 99;
  ASSERT_EQ(tapio_steps(e, &steps), TAPIO_OK);
  EXPECT_EQ(steps, 0u);
  // The failure belongs to that step only: the next one reuses index 0 and commits.
  ASSERT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
  ASSERT_EQ(f.put_mine(e, data), TAPIO_OK);
  ASSERT_EQ(tapio_end_step(e), TAPIO_OK) << tapio_last_error();
  ASSERT_EQ(tapio_close(e), TAPIO_OK);
  expect_one_step_of_blocks(path);
}

// As with netCDF's nc_create, no engine makes the directories a path needs.
TEST(Errors, MissingParentDirectoryFailsOnEveryEngine) {
  TempDir dir;
  const std::string parent = dir.file("missing");
  for (const char* engine : {"serial", "mpiio", "collective", "subfile"}) {
    Fixture f;
    ASSERT_EQ(tapio_io_set_engine(f.io, engine), TAPIO_OK);
    const std::string path = parent + "/out.nc";
    tapio_engine* e = nullptr;
    const Outcome o = outcome(tapio_open(f.io, path.c_str(), TAPIO_MODE_WRITE, &e));
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_NOT_FOUND) << engine << ": " << o.message;
    EXPECT_TRUE(contains(o.message, "'" + path + "'")) << engine << ": " << o.message;
    EXPECT_FALSE(std::filesystem::exists(parent)) << engine;
  }
}

TEST(Errors, UnknownEngineAndParameterSuggest) {
  Fixture f;
  Outcome o = outcome(tapio_io_set_engine(f.io, "seriall"));
  EXPECT_EQ(o.code, TAPIO_ERR_CONFIG);
  EXPECT_TRUE(contains(o.message, "did you mean 'serial'")) << o.message;
  o = outcome(tapio_io_set_parameter(f.io, "bufer_size", "4MiB"));
  EXPECT_EQ(o.code, TAPIO_ERR_CONFIG);
  EXPECT_TRUE(contains(o.message, "buffer_size")) << o.message;
  o = outcome(tapio_io_set_parameter(f.io, "fsync", "sometimes"));
  EXPECT_EQ(o.code, TAPIO_ERR_CONFIG);
  EXPECT_TRUE(contains(o.message, "fsync")) << o.message;
}

TEST(Errors, NotADatasetFailsOnEveryRank) {
  TempDir dir;
  Fixture f;
  ASSERT_EQ(tapio_io_set_engine(f.io, "subfile"), TAPIO_OK);
  tapio_engine* e = nullptr;
  const Outcome o = outcome(tapio_open(f.io, dir.path().c_str(), TAPIO_MODE_READ, &e));
  expect_same_everywhere(o.code);
  EXPECT_EQ(o.code, TAPIO_ERR_NOT_FOUND);
  EXPECT_TRUE(contains(o.message, "tapio.idx")) << o.message;
}

TEST(Errors, BadConfigFileNamesFileAndLine) {
  TempDir dir;
  const std::string cfg = dir.file("bad.toml");
  if (rank() == 0) std::ofstream(cfg) << "[[rule]]\nengine = \"serial\"\nbufer_size = \"4MiB\"\n";
  MPI_Barrier(MPI_COMM_WORLD);
  tapio_context* ctx = nullptr;
  const Outcome o = outcome(tapio_init(MPI_COMM_WORLD, cfg.c_str(), &ctx));
  expect_same_everywhere(o.code);
  EXPECT_EQ(o.code, TAPIO_ERR_CONFIG);
  EXPECT_TRUE(contains(o.message, "bad.toml")) << o.message;
  EXPECT_TRUE(contains(o.message, "line 3")) << o.message;
  EXPECT_TRUE(contains(o.message, "buffer_size")) << o.message;
}

TEST(Errors, ConfigRulesOverrideTheProgram) {
  TempDir dir;
  const std::string cfg = dir.file("rules.toml");
  const std::string path = dir.file("cfg.nc");
  const std::string profile = dir.file("profile.json");
  if (rank() == 0)
    std::ofstream(cfg) << "[[rule]]\nio = \"err*\"\nprofile = \"" << profile << "\"\n"
                       << "[[rule]]\npath = \"*.nc\"\nengine = \"serial\"\n";
  MPI_Barrier(MPI_COMM_WORLD);
  tapio_context* ctx = nullptr;
  ASSERT_EQ(tapio_init(MPI_COMM_WORLD, cfg.c_str(), &ctx), TAPIO_OK);
  tapio_io* io;
  ASSERT_EQ(tapio_declare_io(ctx, "errors", &io), TAPIO_OK);
  ASSERT_EQ(tapio_io_set_engine(io, "subfile"), TAPIO_OK);  // the config says serial
  tapio_engine* e;
  ASSERT_EQ(tapio_open(io, path.c_str(), TAPIO_MODE_WRITE, &e), TAPIO_OK) << tapio_last_error();
  const char* name;
  ASSERT_EQ(tapio_engine_name(e, &name), TAPIO_OK);
  EXPECT_STREQ(name, "serial");
  ASSERT_EQ(tapio_close(e), TAPIO_OK);
  EXPECT_EQ(access(profile.c_str(), R_OK), 0) << "the profile rule did not apply";
  tapio_finalize(ctx);
}

TEST(Errors, MissingNotNetcdfAndTruncatedFiles) {
  TempDir dir;
  const std::string text = dir.file("text.nc"), good = dir.file("good.nc"),
                    cut = dir.file("cut.nc");
  {
    Fixture f;
    tapio_engine* e;
    ASSERT_EQ(tapio_open(f.io, good.c_str(), TAPIO_MODE_WRITE, &e), TAPIO_OK);
    std::vector<double> data = {1, 2, 3, 4};
    for (int s = 0; s < 3; ++s) {
      ASSERT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
      ASSERT_EQ(f.put_mine(e, data), TAPIO_OK);
      ASSERT_EQ(tapio_end_step(e), TAPIO_OK);
    }
    ASSERT_EQ(tapio_close(e), TAPIO_OK);
  }
  if (rank() == 0) {
    std::ofstream(text) << "this is not a NetCDF file\n";
    std::ifstream in(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 8);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  struct Case {
    std::string path;
    int code;
    const char* words;
  } cases[] = {
      {dir.file("missing.nc"), TAPIO_ERR_NOT_FOUND, "missing.nc"},
      {text, TAPIO_ERR_FORMAT, "text.nc"},
      {cut, TAPIO_ERR_FORMAT, "truncated"},
  };
  for (const Case& c : cases) {
    Fixture f;
    tapio_engine* e = nullptr;
    const Outcome o = outcome(tapio_open(f.io, c.path.c_str(), TAPIO_MODE_READ, &e));
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, c.code) << c.path << ": " << o.message;
    EXPECT_TRUE(contains(o.message, c.words)) << o.message;
  }
  // Asking for a step the file does not have.
  Fixture f;
  tapio_engine* e;
  ASSERT_EQ(tapio_open(f.io, good.c_str(), TAPIO_MODE_READ, &e), TAPIO_OK);
  tapio_var* x;
  ASSERT_EQ(tapio_inquire_variable(f.io, "x", &x), TAPIO_OK);
  ASSERT_EQ(tapio_var_set_step_selection(x, 2, 2), TAPIO_OK);
  std::vector<double> out(8 * size());
  const Outcome o = outcome(tapio_get(e, x, TAPIO_FLOAT64, out.data()));
  EXPECT_EQ(o.code, TAPIO_ERR_NOT_FOUND);
  EXPECT_TRUE(contains(o.message, "3 steps")) << o.message;
  EXPECT_EQ(tapio_close(e), TAPIO_OK);
}

}  // namespace
}  // namespace tapio::test

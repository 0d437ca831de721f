// Rank-inconsistent definitions (issue 14, item 3b): tapio_open fails on every rank with
// TAPIO_ERR_ARG naming the first definition that differs, as rank 0 has it and as the lowest
// differing rank has it; consistent definitions open as before, on every engine. Declared
// dimensions (issue 25) keep their order in a NetCDF file and a subfile dataset, through read
// and append, declared through the C and the C++ API.
#include <gtest/gtest.h>

#include "test_util.h"

namespace tapio::test {
namespace {

const char* const kEngines[] = {"serial", "mpiio", "collective", "subfile"};

// What a rank defines: temp[4][x] with a units attribute, a title, and optionally a second
// variable and a parameter.
struct Defs {
  uint64_t x = 8;
  const char* units = "K";
  const char* title = "test";
  bool salt = false;
  const char* buffer_size = nullptr;
  bool declare = false;  // a dimension no variable uses
};

// Opens a file for writing with `mine` on the last rank and the defaults elsewhere: returns the
// outcome of tapio_open on this rank.
Outcome open_with(const char* engine, const Defs& mine) {
  const Defs d = rank() == size() - 1 ? mine : Defs{};
  TempDir dir;
  tapio_context* ctx;
  EXPECT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_OK);
  tapio_io* io;
  EXPECT_EQ(tapio_declare_io(ctx, "defs", &io), TAPIO_OK);
  EXPECT_EQ(tapio_io_set_engine(io, engine), TAPIO_OK);
  if (d.buffer_size) {
    EXPECT_EQ(tapio_io_set_parameter(io, "buffer_size", d.buffer_size), TAPIO_OK);
  }
  if (d.declare) {
    EXPECT_EQ(tapio_define_dimension(io, "unused", 5), TAPIO_OK);
  }
  const uint64_t shape[2] = {4, d.x};
  const char* dims[2] = {"y", "x"};
  tapio_var* v;
  EXPECT_EQ(tapio_define_variable(io, "temp", TAPIO_FLOAT64, 2, shape, dims, 0, &v), TAPIO_OK);
  EXPECT_EQ(tapio_define_string_attribute(io, "temp", "units", d.units), TAPIO_OK);
  EXPECT_EQ(tapio_define_string_attribute(io, nullptr, "title", d.title), TAPIO_OK);
  if (d.salt) {
    EXPECT_EQ(tapio_define_variable(io, "salt", TAPIO_FLOAT32, 0, nullptr, nullptr, 0, &v),
              TAPIO_OK);
  }
  tapio_engine* e = nullptr;
  const Outcome o = outcome(tapio_open(io, dir.file("defs.nc").c_str(), TAPIO_MODE_WRITE, &e));
  if (o.code == TAPIO_OK) {
    EXPECT_EQ(tapio_close(e), TAPIO_OK);
  }
  EXPECT_EQ(tapio_finalize(ctx), TAPIO_OK);
  return o;
}

TEST(Definitions, ConsistentDefinitionsOpen) {
  for (const char* engine : kEngines) {
    const Outcome o = open_with(engine, Defs{});
    EXPECT_EQ(o.code, TAPIO_OK) << engine << ": " << o.message;
    expect_same_everywhere(o.code);
  }
}

struct Case {
  const char* name;
  Defs last;            // the last rank's definitions
  const char* at_root;  // rank 0's side of the message
  const char* at_last;  // the last rank's
};

TEST(Definitions, DifferingDefinitionsFailEverywhereNamingTheFirst) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  Defs shape, salt, units, title, param, declare;
  shape.x = 9;
  salt.salt = true;
  units.units = "C";
  title.title = "tset";
  param.buffer_size = "1MiB";
  declare.declare = true;
  const std::vector<Case> cases = {
      {"declared dimension", declare, "0 dimensions declared", "1 dimensions declared"},
      {"shape", shape, "variable 'temp' (float64 [4, 8] (y, x)",
       "variable 'temp' (float64 [4, 9] (y, x)"},
      {"extra variable", salt, "1 variables", "2 variables"},
      {"attribute value", units, "attribute 'units' of variable 'temp' (char of 1 bytes: 'K')",
       "attribute 'units' of variable 'temp' (char of 1 bytes: 'C')"},
      {"global attribute", title, "attribute 'title' of the file (char of 4 bytes: 'test')",
       "attribute 'title' of the file (char of 4 bytes: 'tset')"},
      {"parameter", param, "0 parameters set", "1 parameters set"},
  };
  for (const char* engine : kEngines)
    for (const Case& c : cases) {
      const Outcome o = open_with(engine, c.last);
      EXPECT_EQ(o.code, TAPIO_ERR_ARG) << engine << ", " << c.name << ": " << o.message;
      expect_same_everywhere(o.code);
      const std::string last = "rank " + std::to_string(size() - 1) + " has ";
      EXPECT_TRUE(contains(o.message, std::string("rank 0 has ") + c.at_root))
          << engine << ", " << c.name << ": " << o.message;
      EXPECT_TRUE(contains(o.message, last + c.at_last))
          << engine << ", " << c.name << ": " << o.message;
    }
}

// The IO's declared dimensions as "name=length" (0: unlimited).
std::vector<std::string> declared(tapio_io* io) {
  size_t n = 0;
  EXPECT_EQ(tapio_io_dimension_count(io, &n), TAPIO_OK);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    uint64_t length = 0;
    EXPECT_EQ(tapio_io_dimension(io, i, &name, &length), TAPIO_OK);
    out.push_back(std::string(name) + "=" + std::to_string(length));
  }
  return out;
}

// One step of temp(t, y, x) from rank 0 (the others put nothing), from an IO of its own.
int write_step(tapio_context* ctx, const std::string& io_name, const std::string& path,
               tapio_mode mode, bool declare_more) {
  tapio_io* io;
  EXPECT_EQ(tapio_declare_io(ctx, io_name.c_str(), &io), TAPIO_OK);
  EXPECT_EQ(tapio_io_set_engine(io, "collective"), TAPIO_OK);
  if (mode == TAPIO_MODE_WRITE) {  // in an order no variable uses them in, one unused
    EXPECT_EQ(tapio_define_dimension(io, "x", 8), TAPIO_OK);
    EXPECT_EQ(tapio_define_dimension(io, "unused", 3), TAPIO_OK);
    EXPECT_EQ(tapio_define_dimension(io, "y", 4), TAPIO_OK);
    EXPECT_EQ(tapio_define_dimension(io, "t", 0), TAPIO_OK);
    EXPECT_EQ(tapio_define_dimension(io, "x", 8), TAPIO_OK);  // again: no change
    EXPECT_EQ(tapio_define_dimension(io, "x", 9), TAPIO_ERR_ARG);
    EXPECT_EQ(tapio_define_dimension(io, "t2", 0), TAPIO_ERR_ARG);  // a second unlimited
  }
  if (declare_more) {
    EXPECT_EQ(tapio_define_dimension(io, "z", 2), TAPIO_OK);
  }
  const uint64_t shape[2] = {4, 8};
  const char* dims[2] = {"y", "x"};
  tapio_var* v;
  EXPECT_EQ(tapio_define_variable(io, "temp", TAPIO_FLOAT64, 2, shape, dims, 0, &v), TAPIO_OK);
  tapio_engine* e = nullptr;
  const int st = tapio_open(io, path.c_str(), mode, &e);
  if (st != TAPIO_OK) return st;
  EXPECT_EQ(declared(io), (std::vector<std::string>{"x=8", "unused=3", "y=4", "t=0"}));
  std::vector<double> data(32, 1.5);
  const uint64_t start[2] = {0, 0}, count[2] = {rank() == 0 ? 4u : 0u, 8};
  EXPECT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
  EXPECT_EQ(tapio_put_sel(e, v, start, count, TAPIO_FLOAT64, data.data()), TAPIO_OK);
  EXPECT_EQ(tapio_end_step(e), TAPIO_OK);
  return tapio_close(e);
}

TEST(Definitions, DeclaredDimensionsKeepTheirOrderThroughAppend) {
  TempDir dir;
  const std::string path = dir.file("dims.nc");
  tapio_context* ctx;
  ASSERT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_OK);
  EXPECT_EQ(write_step(ctx, "create", path, TAPIO_MODE_WRITE, false), TAPIO_OK);
  EXPECT_EQ(write_step(ctx, "append", path, TAPIO_MODE_APPEND, false), TAPIO_OK);
  const Outcome more = outcome(write_step(ctx, "more", path, TAPIO_MODE_APPEND, true));
  EXPECT_EQ(more.code, TAPIO_ERR_UNSUPPORTED) << more.message;
  EXPECT_TRUE(contains(more.message, "dimension 'z' is declared with length 2")) << more.message;
  expect_same_everywhere(more.code);
  tapio_io* io;
  tapio_engine* e;
  ASSERT_EQ(tapio_declare_io(ctx, "read", &io), TAPIO_OK);
  ASSERT_EQ(tapio_open(io, path.c_str(), TAPIO_MODE_READ, &e), TAPIO_OK);
  uint64_t steps = 0;
  EXPECT_EQ(tapio_steps(e, &steps), TAPIO_OK);
  EXPECT_EQ(steps, 2u);
  EXPECT_EQ(declared(io), (std::vector<std::string>{"x=8", "unused=3", "y=4", "t=0"}));
  EXPECT_EQ(tapio_close(e), TAPIO_OK);
  EXPECT_EQ(tapio_finalize(ctx), TAPIO_OK);
}

// The C++ API's declared dimensions, written by `engine` and appended to: the same list read
// back, in declaration order, the unused one included.
TEST(Definitions, CxxDeclaredDimensionsSurviveReadAndAppend) {
  const std::vector<Dimension> declared = {{"x", 8}, {"unused", 3}, {"y", 4}, {"t", 0}};
  for (const char* engine : {"collective", "subfile"}) {
    TempDir dir;
    const std::string path = dir.file("cxx_dims");
    Context ctx(MPI_COMM_WORLD);
    for (const tapio_mode mode : {TAPIO_MODE_WRITE, TAPIO_MODE_APPEND}) {
      IO io = ctx.declare_io(mode == TAPIO_MODE_WRITE ? "create" : "append");
      io.set_engine(engine);
      for (const Dimension& d : declared) io.define_dimension(d.name, d.length);
      Variable v = io.define_variable<double>("temp", {4, 8}, {"y", "x"});
      Engine e = io.open(path, mode);
      EXPECT_EQ(io.dimensions(), declared) << engine;
      e.begin_step();
      v.set_selection({0, 0}, {rank() == 0 ? 4u : 0u, 8});
      const std::vector<double> values(32, 2.5);  // a put's buffer lives until end_step
      e.put(v, values);
      e.end_step();
      e.close();
    }
    IO io = ctx.declare_io("read");
    io.set_engine(engine);
    Engine e = io.open(path, TAPIO_MODE_READ);
    EXPECT_EQ(e.steps(), 2u) << engine;
    EXPECT_EQ(io.dimensions(), declared) << engine;
    e.close();
  }
}

// Appending may not change a declared dimension, in a subfile dataset as in a NetCDF file.
TEST(Definitions, SubfileAppendRefusesAnotherDimensionLength) {
  TempDir dir;
  const std::string path = dir.file("dims_append");
  Context ctx(MPI_COMM_WORLD);
  for (const uint64_t length : {8u, 9u}) {
    IO io = ctx.declare_io(length == 8 ? "create" : "append");
    io.set_engine("subfile");
    io.define_dimension("x", length);
    const Outcome o = attempt([&] {
      Engine e = io.open(path, length == 8 ? TAPIO_MODE_WRITE : TAPIO_MODE_APPEND);
      e.close();
    });
    if (length == 8) {
      EXPECT_EQ(o.code, TAPIO_OK) << o.message;
    } else {
      EXPECT_EQ(o.code, TAPIO_ERR_UNSUPPORTED) << o.message;
      EXPECT_TRUE(contains(o.message, "dimension 'x' is declared with length 9")) << o.message;
      expect_same_everywhere(o.code);
    }
  }
}

}  // namespace
}  // namespace tapio::test

// Rank-inconsistent definitions (issue 14, item 3b): tapio_open fails on every rank with
// TAPIO_ERR_ARG naming the first definition that differs, as rank 0 has it and as the lowest
// differing rank has it; consistent definitions open as before, on every engine.
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
  Defs shape, salt, units, title, param;
  shape.x = 9;
  salt.salt = true;
  units.units = "C";
  title.title = "tset";
  param.buffer_size = "1MiB";
  const std::vector<Case> cases = {
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

}  // namespace
}  // namespace tapio::test

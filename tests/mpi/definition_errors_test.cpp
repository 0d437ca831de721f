// Errors instead of overflow, aborts and crashes in definitions (issue 29, item 5): attribute
// counts whose size overflows, MPI_COMM_NULL at init, and variables defined after tapio_open
// where the file cannot take them (a NetCDF header is laid out at open; a reader's variables
// are the file's). The subfile engine takes them and writes them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_util.h"

namespace tapio::test {
namespace {

const char* const kEngines[] = {"serial", "mpiio", "collective", "subfile"};

std::string file_for(const TempDir& dir, const std::string& engine) {
  return dir.file(engine == "subfile" ? "out" : "out.nc");
}

TEST(DefinitionErrors, InitWithCommNullIsRefused) {
  tapio_context* ctx = nullptr;
  const Outcome o = outcome(tapio_init(MPI_COMM_NULL, nullptr, &ctx));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_TRUE(contains(o.message, "MPI_COMM_NULL")) << o.message;
}

TEST(DefinitionErrors, AttributeSizesThatOverflowAreRefusedAndNotStored) {
  tapio_context* ctx;
  ASSERT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_OK);
  tapio_io* io;
  ASSERT_EQ(tapio_declare_io(ctx, "attrs", &io), TAPIO_OK);
  tapio_var* v;
  ASSERT_EQ(tapio_define_variable(io, "t", TAPIO_FLOAT64, 0, nullptr, nullptr, 0, &v), TAPIO_OK);
  const int16_t data[2] = {1, 2};
  struct Case {
    const char* var;
    tapio_type type;
    size_t count;
    const char* says;
  };
  const Case cases[] = {
      {nullptr, TAPIO_INT16, (size_t{1} << 63) + 1, "9223372036854775809 elements of int16"},
      {"t", TAPIO_INT32, size_t{1} << 62, "4611686018427387904 elements of int32"},
      {nullptr, TAPIO_CHAR, SIZE_MAX, "18446744073709551615 elements of char"},
      {"t", TAPIO_INT8, SIZE_MAX / 2 + 1, "9223372036854775808 elements of int8"},
  };
  for (const Case& c : cases) {
    const Outcome o = outcome(tapio_define_attribute(io, c.var, "big", c.type, c.count, data));
    EXPECT_EQ(o.code, TAPIO_ERR_ARG) << c.says << ": " << o.message;
    EXPECT_TRUE(contains(o.message, std::string("attribute 'big'") +
                                        (c.var ? " of variable 't'" : "") + ": " + c.says))
        << o.message;
    EXPECT_EQ(tapio_inquire_attribute(io, c.var, "big", nullptr, nullptr), TAPIO_ERR_NOT_FOUND);
  }
  EXPECT_EQ(tapio_define_attribute(io, "t", "small", TAPIO_INT16, 2, data), TAPIO_OK);
  size_t count = 0;
  EXPECT_EQ(tapio_inquire_attribute(io, "t", "small", nullptr, &count), TAPIO_OK);
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(tapio_finalize(ctx), TAPIO_OK);
}

// Opens `engine`'s file with variable "a" defined, defines "b" after open, writes one step of
// what was accepted and closes: the outcome of defining "b".
Outcome define_after_open(const std::string& engine, const std::string& path) {
  tapio_context* ctx;
  EXPECT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_OK);
  tapio_io* io;
  EXPECT_EQ(tapio_declare_io(ctx, "late", &io), TAPIO_OK);
  EXPECT_EQ(tapio_io_set_engine(io, engine.c_str()), TAPIO_OK);
  const uint64_t shape[1] = {static_cast<uint64_t>(size())};
  const uint64_t start[1] = {static_cast<uint64_t>(rank())}, one[1] = {1};
  tapio_var *a, *b = nullptr;
  EXPECT_EQ(tapio_define_variable(io, "a", TAPIO_FLOAT64, 1, shape, nullptr, 0, &a), TAPIO_OK);
  tapio_engine* e;
  EXPECT_EQ(tapio_open(io, path.c_str(), TAPIO_MODE_WRITE, &e), TAPIO_OK) << tapio_last_error();
  const Outcome o =
      outcome(tapio_define_variable(io, "b", TAPIO_FLOAT64, 1, shape, nullptr, 0, &b));
  EXPECT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
  const double va = 10 + rank(), vb = 20 + rank();
  EXPECT_EQ(tapio_put_sel(e, a, start, one, TAPIO_FLOAT64, &va), TAPIO_OK);
  if (o.code == TAPIO_OK) {
    EXPECT_EQ(tapio_put_sel(e, b, start, one, TAPIO_FLOAT64, &vb), TAPIO_OK);
  }
  EXPECT_EQ(tapio_end_step(e), TAPIO_OK) << tapio_last_error();
  EXPECT_EQ(tapio_close(e), TAPIO_OK) << tapio_last_error();
  EXPECT_EQ(tapio_finalize(ctx), TAPIO_OK);
  return o;
}

// Reads the file back: its variables in order, with every rank's element of each; and a
// variable defined while it is open for reading is refused.
void expect_file(const std::string& engine, const std::string& path,
                 const std::vector<std::string>& names) {
  tapio_context* ctx;
  ASSERT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_OK);
  tapio_io* io;
  ASSERT_EQ(tapio_declare_io(ctx, "check", &io), TAPIO_OK);
  ASSERT_EQ(tapio_io_set_engine(io, engine.c_str()), TAPIO_OK);
  tapio_engine* e;
  ASSERT_EQ(tapio_open(io, path.c_str(), TAPIO_MODE_READ, &e), TAPIO_OK) << tapio_last_error();
  size_t n = 0;
  EXPECT_EQ(tapio_io_variable_count(io, &n), TAPIO_OK);
  EXPECT_EQ(n, names.size()) << engine;
  tapio_var* late;
  const Outcome o = outcome(tapio_define_variable(io, "c", TAPIO_INT8, 0, nullptr, nullptr, 0,
                                                  &late));
  EXPECT_EQ(o.code, TAPIO_ERR_STATE) << engine << ": " << o.message;
  EXPECT_TRUE(contains(o.message, "in read mode with the " + engine + " engine")) << o.message;
  ASSERT_EQ(tapio_begin_step(e, nullptr), TAPIO_OK);
  std::vector<std::vector<double>> got(names.size(), std::vector<double>(size(), -1));
  for (size_t i = 0; i < names.size(); ++i) {
    tapio_var* v;
    ASSERT_EQ(tapio_inquire_variable(io, names[i].c_str(), &v), TAPIO_OK) << names[i];
    EXPECT_EQ(tapio_get(e, v, TAPIO_FLOAT64, got[i].data()), TAPIO_OK);
  }
  EXPECT_EQ(tapio_end_step(e), TAPIO_OK) << tapio_last_error();
  EXPECT_EQ(tapio_close(e), TAPIO_OK);
  EXPECT_EQ(tapio_finalize(ctx), TAPIO_OK);
  for (size_t i = 0; i < names.size(); ++i)
    for (int r = 0; r < size(); ++r)
      EXPECT_EQ(got[i][r], (names[i] == "a" ? 10 : 20) + r) << engine << ", " << names[i];
}

TEST(DefinitionErrors, VariablesDefinedAfterOpenAreRefusedWhereTheFileCannotTakeThem) {
  for (const std::string engine : kEngines) {
    TempDir dir;
    const std::string path = file_for(dir, engine);
    const Outcome o = define_after_open(engine, path);
    if (engine == "subfile") {
      EXPECT_EQ(o.code, TAPIO_OK) << o.message;
      expect_file(engine, path, {"a", "b"});
      continue;
    }
    EXPECT_EQ(o.code, TAPIO_ERR_STATE) << engine << ": " << o.message;
    EXPECT_TRUE(contains(o.message, "variable 'b': file '" + path + "' is open from IO 'late' in "
                                    "write mode with the " + engine + " engine"))
        << o.message;
    EXPECT_TRUE(contains(o.message, "(rank " + std::to_string(rank()) + ")")) << o.message;
    expect_file(engine, path, {"a"});
  }
}

}  // namespace
}  // namespace tapio::test

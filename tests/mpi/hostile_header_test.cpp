// Issue 29 items 6 and 7. A NetCDF file whose header makes one variable's data overlap
// another's (netCDF-C refuses such a file) is refused at open by every NetCDF engine, reading
// or appending, on every rank, naming the file and the variable, and is left as it was. Names
// NetCDF rejects are refused at definition whatever the engine, so that every dataset
// converts; names it accepts write and read back with every engine.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "format/netcdf/header.h"
#include "test_util.h"

namespace tapio::test {
namespace {

const char* const kNetcdfEngines[] = {"serial", "mpiio", "collective"};

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Collective: a file with fixed a(x = 10), b(y = 1000) and record t(time, x), one step.
void write_sample(const std::string& path) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("sample");
  io.set_engine("serial");
  Variable a = io.define_variable<double>("a", {10}, {"x"}, TAPIO_VAR_FIXED);
  Variable b = io.define_variable<double>("b", {1000}, {"y"}, TAPIO_VAR_FIXED);
  Variable t = io.define_variable<double>("t", {10}, {"x"});
  const std::vector<double> ones(10, 1.0), twos(1000, 2.0);  // kept until end_step
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  out.begin_step();
  if (rank() == 0) {
    out.put(a, ones);
    out.put(b, twos);
    out.put(t, ones);
  }
  out.end_step();
  out.close();
}

// Rank 0 rewrites the header of `path` after `edit` changed its model (same encoded size).
template <typename Edit>
void rewrite_header(const std::string& path, Edit edit) {
  if (rank() == 0) {
    std::string bytes = bytes_of(path);
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    Result<netcdf::Header> h = netcdf::decode(data, bytes.size(), bytes.size(), nullptr);
    ASSERT_TRUE(h.ok()) << h.status().message();
    edit(*h);
    const std::vector<uint8_t> encoded = netcdf::encode(*h);
    bytes.replace(0, encoded.size(), reinterpret_cast<const char*>(encoded.data()),
                  encoded.size());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void expect_refused(const std::string& path, const std::string& words) {
  const std::string before = bytes_of(path);
  for (const char* engine : kNetcdfEngines) {
    for (tapio_mode mode : {TAPIO_MODE_READ, TAPIO_MODE_APPEND}) {
      Context ctx(MPI_COMM_WORLD);
      IO io = ctx.declare_io("hostile");
      io.set_engine(engine);
      if (mode == TAPIO_MODE_APPEND) io.define_variable<double>("t", {10}, {"x"});
      const Outcome o = attempt([&] { io.open(path, mode); });
      expect_same_everywhere(o.code);
      EXPECT_EQ(o.code, TAPIO_ERR_FORMAT) << engine << ": " << o.message;
      EXPECT_TRUE(contains(o.message, path)) << o.message;
      EXPECT_TRUE(contains(o.message, words)) << engine << ": " << o.message;
    }
  }
  EXPECT_EQ(bytes_of(path), before) << "a refused open changed the file";
}

TEST(HostileHeader, OverlappingBeginIsRefusedByEveryEngine) {
  TempDir dir;
  const std::string path = dir.file("overlap.nc");
  write_sample(path);
  rewrite_header(path, [](netcdf::Header& h) { h.vars[1].begin = h.vars[0].begin + 8; });
  expect_refused(path, "variable 'b' begins at byte");
}

TEST(HostileHeader, EnlargedDimensionIsRefusedByEveryEngine) {
  TempDir dir;
  const std::string path = dir.file("enlarged.nc");
  write_sample(path);
  rewrite_header(path, [](netcdf::Header& h) { h.dims[size_t(h.find_dim("x"))].length = 8016; });
  expect_refused(path, "inside the data of variable 'a'");
}

TEST(Names, NetcdfRejectsAreRefusedAtDefinitionWhateverTheEngine) {
  for (const char* engine : {"serial", "mpiio", "collective", "subfile"}) {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("names");
    io.set_engine(engine);
    struct Case {
      std::string name, dim, words;
    } cases[] = {
        {"\xFF\xFE", "n", "variable name '\\xff\\xfe' is not well-formed UTF-8"},
        {"v", "time", "dimension name 'time' is reserved"},
        {"e\xCC\x81", "n", "normalization form C"},
        {std::string(257, 'v'), "n", "257 bytes long"},
        {"v", "a/b", "dimension name 'a/b' contains '/'"},
    };
    for (const Case& c : cases) {
      const Outcome o = attempt([&] { io.define_variable<double>(c.name, {4}, {c.dim}); });
      expect_same_everywhere(o.code);
      EXPECT_EQ(o.code, TAPIO_ERR_ARG) << engine;
      EXPECT_TRUE(contains(o.message, c.words)) << engine << ": " << o.message;
    }
    const Outcome o = attempt([&] { io.define_attribute("a\x01", std::string("x")); });
    EXPECT_EQ(o.code, TAPIO_ERR_ARG) << engine;
    EXPECT_TRUE(io.variable_names().empty()) << engine;
  }
}

// What involves more than one variable is found at open, as the NetCDF engines find it, so
// that a subfile dataset never holds definitions `tapio convert` cannot write.
TEST(Names, DefinitionsThatDoNotConvertFailAtOpenWithEveryEngine) {
  for (const char* engine : {"serial", "mpiio", "collective", "subfile"}) {
    TempDir dir;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("clash");
    io.set_engine(engine);
    io.define_variable<double>("a", {4}, {"x"});
    io.define_variable<double>("b", {5}, {"x"});
    const Outcome o = attempt([&] { io.open(dir.file("clash"), TAPIO_MODE_WRITE); });
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_SHAPE) << engine << ": " << o.message;
    EXPECT_TRUE(contains(o.message, "dimension 'x' has length 5 in variable 'b' but 4"))
        << engine << ": " << o.message;
  }
  for (const char* engine : {"collective", "subfile"}) {  // the engines that take joined arrays
    TempDir dir;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("count");
    io.set_engine(engine);
    io.define_variable<double>("p", {0}, {"particle"}, TAPIO_VAR_JOINED);
    io.define_variable<int64_t>("particle_count", {}, {});
    const Outcome o = attempt([&] { io.open(dir.file("count"), TAPIO_MODE_WRITE); });
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_ARG) << engine << ": " << o.message;
    EXPECT_TRUE(contains(o.message, "particle_count")) << engine << ": " << o.message;
  }
}

TEST(Names, NetcdfNamesWriteAndReadBackWithEveryEngine) {
  const std::string name = "\xC3\xA9t\xC3\xA9 1", dim = "0\xE2\x82\xAC";  // "été 1", "0€"
  for (const char* engine : {"serial", "mpiio", "collective", "subfile"}) {
    TempDir dir;
    const std::string path = dir.file(std::string(engine) == "subfile" ? "d" : "f.nc");
    {
      Context ctx(MPI_COMM_WORLD);
      IO io = ctx.declare_io("names");
      io.set_engine(engine);
      Variable v = io.define_variable<double>(name, {4}, {dim});
      const std::vector<double> values = {1, 2, 3, 4};  // kept until end_step
      Engine out = io.open(path, TAPIO_MODE_WRITE);
      out.begin_step();
      if (rank() == 0) out.put(v, values);
      out.end_step();
      out.close();
    }
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("check");
    Engine in = io.open(path, TAPIO_MODE_READ);
    Variable v = io.inquire_variable(name);
    std::vector<double> got(4);
    in.begin_step();
    in.get(v, got);
    in.end_step();
    EXPECT_EQ(got, (std::vector<double>{1, 2, 3, 4})) << engine;
    in.close();
  }
}

}  // namespace
}  // namespace tapio::test

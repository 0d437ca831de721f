// Write with one decomposition, read back with another, compare every value: every element
// type, 0-d to 4-d, record and fixed variables, step ranges, attributes, fill.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace tapio::test {
namespace {

template <typename T>
T cast_value(int v, uint64_t s, uint64_t g) {
  // Small types wrap; what matters is that writer and reader agree exactly.
  return static_cast<T>(static_cast<int64_t>(value(v, s, g) * 4) & 0x7f);
}
template <> double cast_value<double>(int v, uint64_t s, uint64_t g) { return value(v, s, g); }
template <> float cast_value<float>(int v, uint64_t s, uint64_t g) {
  return static_cast<float>(g) + v / 4.0f + static_cast<float>(s);
}

template <typename T>
class TypedRoundTrip : public ::testing::Test {};
using AllTypes = ::testing::Types<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t,
                                  int64_t, uint64_t, float, double, char>;
TYPED_TEST_SUITE(TypedRoundTrip, AllTypes);

// Rows split over ranks for writing, columns split for reading, two steps.
TYPED_TEST(TypedRoundTrip, RowsWrittenColumnsRead) {
  using T = TypeParam;
  TempDir dir;
  const std::string path = dir.file("typed.nc");
  const Dims shape = {static_cast<uint64_t>(3 * size() + 1), 5};
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("typed");
    Variable var = io.define_variable<T>("x", shape, {"row", "col"});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    uint64_t r0, nr;
    split(shape[0], size(), rank(), &r0, &nr);
    for (uint64_t s = 0; s < 2; ++s) {
      out.begin_step();
      std::vector<T> data;
      for (uint64_t g : box_indices(shape, {r0, 0}, {nr, shape[1]}))
        data.push_back(cast_value<T>(0, s, g));
      var.set_selection({r0, 0}, {nr, shape[1]});
      out.put(var, data);
      out.end_step();
    }
    out.close();
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("typed_read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), 2u);
  Variable var = io.inquire_variable("x");
  EXPECT_EQ(var.type(), type_of<T>());
  EXPECT_EQ(var.shape(), shape);
  uint64_t c0, ncol;
  split(shape[1], size(), rank(), &c0, &ncol);
  var.set_selection({0, c0}, {shape[0], ncol});
  var.set_step_selection(0, 2);
  std::vector<T> got(2 * shape[0] * ncol);
  in.get(var, got);
  in.perform_gets();
  const auto idx = box_indices(shape, {0, c0}, {shape[0], ncol});
  for (uint64_t s = 0; s < 2; ++s)
    for (size_t i = 0; i < idx.size(); ++i)
      ASSERT_EQ(got[s * idx.size() + i], cast_value<T>(0, s, idx[i])) << "step " << s << " i " << i;
  in.close();
}

// 0-d to 4-d, record and fixed: write split along the first dimension (some ranks may own
// nothing), read the whole variable on every rank.
TEST(RoundTrip, ZeroToFourDimensions) {
  TempDir dir;
  const std::string path = dir.file("dims.nc");
  const Dims full = {7, 5, 4, 3};
  const int nsteps = 3;
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("dims");
    std::vector<Variable> vars;
    for (int nd = 0; nd <= 4; ++nd)
      for (int fixed = 0; fixed <= 1; ++fixed)
        vars.push_back(io.define_variable<double>(
            "v" + std::to_string(nd) + (fixed ? "_fixed" : ""), Dims(full.begin(), full.begin() + nd),
            {}, fixed ? TAPIO_VAR_FIXED : 0));
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    std::vector<std::vector<double>> keep(vars.size());  // puts are deferred: keep buffers alive
    for (int s = 0; s < nsteps; ++s) {
      out.begin_step();
      for (size_t i = 0; i < vars.size(); ++i) {
        const Dims shape = vars[i].shape();
        const bool fixed = !vars[i].is_record();
        if (fixed && s > 0) continue;
        Dims start(shape.size(), 0), count = shape;
        if (shape.empty()) {
          if (rank() != 0) continue;
        } else {
          split(shape[0], size(), rank(), &start[0], &count[0]);
        }
        keep[i].clear();
        for (uint64_t g : box_indices(shape, start, count))
          keep[i].push_back(value(static_cast<int>(i), fixed ? 0 : s, g));
        vars[i].set_selection(start, count);
        out.put(vars[i], keep[i]);
      }
      out.end_step();
    }
    out.close();
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("dims_read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  EXPECT_EQ(in.steps(), static_cast<uint64_t>(nsteps));
  const auto names = io.variable_names();
  ASSERT_EQ(names.size(), 10u);
  int s = 0;
  while (in.begin_step() == TAPIO_STEP_OK) {
    std::vector<std::vector<double>> got(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      Variable v = io.inquire_variable(names[i]);
      got[i].resize(v.selection_size());
      in.get(v, got[i]);
    }
    in.end_step();
    for (size_t i = 0; i < names.size(); ++i) {
      Variable v = io.inquire_variable(names[i]);
      const Dims shape = v.shape();
      const auto idx = box_indices(shape, Dims(shape.size(), 0), shape);
      const uint64_t vs = v.is_record() ? s : 0;
      for (size_t k = 0; k < idx.size(); ++k)
        ASSERT_EQ(got[i][k], value(static_cast<int>(i), vs, idx[k])) << names[i] << " step " << s;
    }
    ++s;
  }
  EXPECT_EQ(s, nsteps);
  in.close();
}

TEST(RoundTrip, AttributesGlobalAndPerVariable) {
  TempDir dir;
  const std::string path = dir.file("attrs.nc");
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("attrs");
    Variable v = io.define_variable<float>("t", {4});
    io.define_attribute("title", std::string("attribute test"));
    io.define_attribute<int32_t>("levels", {1, 2, 3});
    io.define_attribute<double>("scale", {0.5}, "t");
    io.define_attribute("units", std::string("K"), "t");
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    out.begin_step();
    std::vector<float> data = {1, 2, 3, 4};
    if (rank() == 0) out.put(v, data);
    out.end_step();
    out.close();
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("attrs_read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  EXPECT_EQ(io.read_string_attribute("title"), "attribute test");
  EXPECT_EQ(io.read_attribute<int32_t>("levels"), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(io.read_attribute<double>("scale", "t"), (std::vector<double>{0.5}));
  EXPECT_EQ(io.read_string_attribute("units", "t"), "K");
  EXPECT_THROW(io.read_attribute<float>("scale", "t"), Error);
  in.close();
}

// Elements no rank wrote read back as the NetCDF fill value (fill = true, the default).
TEST(RoundTrip, MissingBlocksReadAsFill) {
  TempDir dir;
  const std::string path = dir.file("fill.nc");
  const uint64_t n = 4 * static_cast<uint64_t>(size());
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("fill");
    Variable v = io.define_variable<double>("x", {n});
    io.define_variable<int32_t>("never", {3});  // no rank puts it
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    out.begin_step();
    std::vector<double> data = {1, 2};  // the first 2 of each rank's 4 elements
    v.set_selection({4 * static_cast<uint64_t>(rank())}, {2});
    out.put(v, data);
    out.end_step();
    out.close();
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("fill_read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  in.begin_step();
  Variable v = io.inquire_variable("x");
  Variable never = io.inquire_variable("never");
  std::vector<double> got(n);
  std::vector<int32_t> got_never(3);
  in.get(v, got);
  in.get(never, got_never);
  in.end_step();
  const double fill = 9.9692099683868690e+36;
  for (uint64_t i = 0; i < n; ++i) EXPECT_EQ(got[i], i % 4 == 0 ? 1 : i % 4 == 1 ? 2 : fill) << i;
  for (int32_t x : got_never) EXPECT_EQ(x, -2147483647);
  in.close();
}

// perform_puts in the middle of a step writes what is queued; later puts in the same step must
// not overwrite it with fill values. With fill = false, a step whose last variable nobody put
// still leaves a file that is as long as its header says.
TEST(RoundTrip, PerformPutsMidStepAndNoFill) {
  for (const char* fill : {"true", "false"}) {
    TempDir dir;
    const std::string path = dir.file("batches.nc");
    const uint64_t n = static_cast<uint64_t>(size());
    {
      Context ctx(MPI_COMM_WORLD);
      IO io = ctx.declare_io("batches");
      io.set_parameter("fill", fill);
      Variable a = io.define_variable<double>("a", {n});
      Variable b = io.define_variable<double>("b", {n});
      io.define_variable<double>("last", {n});  // no rank puts it
      Engine out = io.open(path, TAPIO_MODE_WRITE);
      std::vector<double> va = {1.0 + rank()}, vb = {100.0 + rank()};
      for (int s = 0; s < 2; ++s) {
        out.begin_step();
        a.set_selection({static_cast<uint64_t>(rank())}, {1});
        out.put(a, va);
        out.perform_puts();
        b.set_selection({static_cast<uint64_t>(rank())}, {1});
        out.put(b, vb);
        out.end_step();  // `last` is never put
      }
      out.close();
    }
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("batches_read");
    Engine in = io.open(path, TAPIO_MODE_READ);
    ASSERT_EQ(in.steps(), 2u) << "fill=" << fill;
    Variable a = io.inquire_variable("a");
    Variable b = io.inquire_variable("b");
    a.set_step_selection(0, 2);
    b.set_step_selection(0, 2);
    std::vector<double> ga(2 * n), gb(2 * n);
    in.get(a, ga);
    in.get(b, gb);
    in.perform_gets();
    for (uint64_t i = 0; i < 2 * n; ++i) {
      EXPECT_EQ(ga[i], 1.0 + i % n) << "fill=" << fill;
      EXPECT_EQ(gb[i], 100.0 + i % n) << "fill=" << fill;
    }
    in.close();
  }
}

}  // namespace
}  // namespace tapio::test

// Append: more steps to an existing file, from the same or a different number of ranks, with
// attributes added in the header's free space.
#include <gtest/gtest.h>

#include "test_util.h"

namespace tapio::test {
namespace {

void write_steps(MPI_Comm comm, const std::string& path, tapio_mode mode, uint64_t first,
                 uint64_t count) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  Context ctx(comm);
  IO io = ctx.declare_io("append");
  const Dims shape = {5, 8};
  Variable v = io.define_variable<double>("t", shape, {"y", "x"});
  if (mode == TAPIO_MODE_APPEND) io.define_attribute("history", std::string("appended"));
  Engine out = io.open(path, mode);
  EXPECT_EQ(out.current_step(), first);
  uint64_t r0, nr;
  split(shape[0], p, r, &r0, &nr);
  for (uint64_t s = first; s < first + count; ++s) {
    out.begin_step();
    std::vector<double> data;
    for (uint64_t g : box_indices(shape, {r0, 0}, {nr, shape[1]})) data.push_back(value(0, s, g));
    v.set_selection({r0, 0}, {nr, shape[1]});
    out.put(v, data);
    out.end_step();
  }
  EXPECT_EQ(out.steps(), first + count);
  out.close();
}

TEST(Append, StepsFromAnotherRankCount) {
  TempDir dir;
  const std::string path = dir.file("append.nc");
  write_steps(MPI_COMM_WORLD, path, TAPIO_MODE_WRITE, 0, 2);
  // Append from rank 0 alone (a different rank count whenever the test runs on more than 1).
  MPI_Comm solo;
  MPI_Comm_split(MPI_COMM_WORLD, rank() == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  if (rank() == 0) {
    write_steps(solo, path, TAPIO_MODE_APPEND, 2, 1);
    MPI_Comm_free(&solo);
  }
  // And again from everyone.
  write_steps(MPI_COMM_WORLD, path, TAPIO_MODE_APPEND, 3, 2);

  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("append_read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), 5u);
  EXPECT_EQ(io.read_string_attribute("history"), "appended");
  Variable v = io.inquire_variable("t");
  v.set_step_selection(0, 5);
  std::vector<double> got(5 * 40);
  in.get(v, got);
  in.perform_gets();
  for (uint64_t s = 0; s < 5; ++s)
    for (uint64_t g = 0; g < 40; ++g) ASSERT_EQ(got[s * 40 + g], value(0, s, g)) << s << " " << g;
  in.close();
}

TEST(Append, RejectsNewVariableAndChangedShape) {
  TempDir dir;
  const std::string path = dir.file("append_bad.nc");
  write_steps(MPI_COMM_WORLD, path, TAPIO_MODE_WRITE, 0, 1);
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("append_new");
    io.define_variable<double>("brand_new", {3});
    try {
      io.open(path, TAPIO_MODE_APPEND);
      ADD_FAILURE() << "append with a new variable succeeded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), TAPIO_ERR_UNSUPPORTED);
      EXPECT_NE(std::string(e.what()).find("brand_new"), std::string::npos) << e.what();
    }
  }
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("append_shape");
    io.define_variable<double>("t", {5, 9}, {"y", "x"});
    try {
      io.open(path, TAPIO_MODE_APPEND);
      ADD_FAILURE() << "append with a changed shape succeeded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), TAPIO_ERR_SHAPE);
    }
  }
  // The file is unchanged: one step, readable.
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("append_check");
  Engine in = io.open(path, TAPIO_MODE_READ);
  EXPECT_EQ(in.steps(), 1u);
  in.close();
}

}  // namespace
}  // namespace tapio::test

// Irregular decompositions: offset lists and runs, including real E3SM maps re-split over the
// test's ranks; read back with a different decomposition than the one written.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "e3sm_check.h"
#include "test_util.h"

namespace tapio::test {
namespace {

// A random permutation of 0..n-1 dealt cyclically over the ranks: each rank's offsets are
// scattered and unsorted, the hardest case for coalescing.
std::vector<uint64_t> my_shuffled_offsets(uint64_t n) {
  std::vector<uint64_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::mt19937_64 rng(7);
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<uint64_t> mine;
  for (uint64_t i = rank(); i < n; i += size()) mine.push_back(all[i]);
  return mine;
}

TEST(Irregular, ShuffledOffsetsWrittenBlocksRead) {
  TempDir dir;
  const std::string path = dir.file("offsets.nc");
  const Dims shape = {6, 35};
  const uint64_t n = shape[0] * shape[1];
  const auto offsets = my_shuffled_offsets(n);
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("offsets");
    Variable v = io.define_variable<int64_t>("x", shape);
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    for (uint64_t s = 0; s < 2; ++s) {
      out.begin_step();
      std::vector<int64_t> data;
      for (uint64_t g : offsets) data.push_back(static_cast<int64_t>(g * 10 + s));
      v.set_offsets(offsets);
      out.put(v, data);
      out.end_step();
    }
    out.close();
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("offsets_read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  Variable v = io.inquire_variable("x");
  // Read back with the same shuffled offsets, and as whole rows.
  v.set_offsets(offsets);
  v.set_step_selection(0, 2);
  std::vector<int64_t> got(2 * offsets.size());
  in.get(v, got);
  in.perform_gets();
  for (uint64_t s = 0; s < 2; ++s)
    for (size_t i = 0; i < offsets.size(); ++i)
      ASSERT_EQ(got[s * offsets.size() + i], static_cast<int64_t>(offsets[i] * 10 + s));
  uint64_t r0, nr;
  split(shape[0], size(), rank(), &r0, &nr);
  v.set_selection({r0, 0}, {nr, shape[1]});
  v.set_step_selection(1, 1);
  std::vector<int64_t> rows(nr * shape[1]);
  in.get(v, rows);
  in.perform_gets();
  for (uint64_t i = 0; i < rows.size(); ++i)
    ASSERT_EQ(rows[i], static_cast<int64_t>((r0 * shape[1] + i) * 10 + 1));
  in.close();
}

TEST(Irregular, RunsWithMultiplePutsPerRank) {
  TempDir dir;
  const std::string path = dir.file("runs.nc");
  const uint64_t n = 10 * static_cast<uint64_t>(size());
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("runs");
    Variable v = io.define_variable<float>("y", {n}, {"cells"});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    out.begin_step();
    // Two puts per rank: runs (r*10, 3) and (r*10+3, 7) given in reverse order.
    const uint64_t base = 10 * static_cast<uint64_t>(rank());
    std::vector<float> a = {0, 1, 2, 3, 4, 5, 6}, b = {7, 8, 9};
    for (auto& x : a) x += base + 3;
    for (auto& x : b) x = base + (x - 7);
    v.set_runs({base + 3}, {7});
    out.put(v, a);
    v.set_runs({base}, {3});
    out.put(v, b);
    out.end_step();
    out.close();
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("runs_read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  Variable v = io.inquire_variable("y");
  v.set_step_selection(0, 1);
  std::vector<float> all(n);
  in.get(v, all);
  in.perform_gets();
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(all[i], static_cast<float>(i));
  in.close();
}

// Every E3SM map in ../shared/data/e3sm-io, its 16 processes re-split over this run's ranks.
class E3smMaps : public ::testing::TestWithParam<const char*> {};

TEST_P(E3smMaps, ReplayRoundTrip) {
  TempDir dir;
  const std::string map = std::string(TAPIO_SHARED_DIR) + "/data/e3sm-io/" + GetParam();
  const std::string path = dir.file("e3sm.nc");
  Context ctx(MPI_COMM_WORLD);
  const auto decomps = e3sm::read_maps(ctx, map, MPI_COMM_WORLD);
  ASSERT_FALSE(decomps.empty());
  IO io = ctx.declare_io("e3sm");
  std::vector<Variable> vars;
  std::vector<std::vector<double>> data(decomps.size());
  for (size_t k = 0; k < decomps.size(); ++k) {
    std::vector<std::string> names;
    for (size_t d = 0; d < decomps[k].dims.size(); ++d)
      names.push_back(decomps[k].name + "_" + std::to_string(d));
    vars.push_back(io.define_variable<double>(decomps[k].name, decomps[k].dims, names));
    for (size_t i = 0; i < decomps[k].offsets.size(); ++i)
      for (uint64_t e = 0; e < decomps[k].lengths[i]; ++e)
        data[k].push_back(value(static_cast<int>(k), 0, decomps[k].offsets[i] + e));
  }
  {
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    out.begin_step();
    for (size_t k = 0; k < decomps.size(); ++k) {
      vars[k].set_runs(decomps[k].offsets, decomps[k].lengths);
      out.put(vars[k], data[k]);
    }
    out.end_step();
    out.close();
  }
  // The F and G maps cover every element; the I maps leave holes (land): fill values.
  IO rio = ctx.declare_io("e3sm_read");
  Engine in = rio.open(path, TAPIO_MODE_READ);
  expect_whole_e3sm_step(rio, in, decomps, 0, GetParam());
  in.close();
}

INSTANTIATE_TEST_SUITE_P(Maps, E3smMaps,
                         ::testing::Values("map_f_case_16p.nc", "map_g_case_16p.nc",
                                           "map_i_case_16p.nc"));

}  // namespace
}  // namespace tapio::test

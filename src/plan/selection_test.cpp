#include "plan/selection.h"

#include <gtest/gtest.h>

#include <random>

namespace tapio::plan {
namespace {

// Reference: enumerate every element of the box in C order and merge consecutive ones.
std::vector<plan::Run> brute_force_runs(const Selection& s, const std::vector<uint64_t>& shape) {
  std::vector<plan::Run> out;
  const size_t nd = shape.size();
  std::vector<uint64_t> idx(nd, 0);
  if (s.elements() == 0) return out;
  while (true) {
    uint64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off = off * shape[d] + s.start[d] + idx[d];
    if (!out.empty() && out.back().offset + out.back().length == off) {
      ++out.back().length;
    } else {
      out.push_back(plan::Run{off, 1});
    }
    size_t d = nd;
    while (d > 0) {
      --d;
      if (++idx[d] < s.count[d]) break;
      idx[d] = 0;
      if (d == 0) return out;
    }
    if (nd == 0) return out;
  }
}

TEST(Selection, ZeroDimensional) {
  Selection s = Selection::box({}, {});
  EXPECT_EQ(s.elements(), 1u);
  ASSERT_TRUE(validate(s, {}, {}).ok());
  EXPECT_EQ(to_runs(s, {}), (std::vector<plan::Run>{{0, 1}}));
}

TEST(Selection, BoxRowsAndMergedTrailingDims) {
  // 4 x 6 array, rows 1..2, columns 2..4: two runs of 3.
  Selection s = Selection::box({1, 2}, {2, 3});
  EXPECT_EQ(to_runs(s, {4, 6}), (std::vector<plan::Run>{{8, 3}, {14, 3}}));
  EXPECT_EQ(run_count(s, {4, 6}), 2u);
  // Whole rows merge into one run.
  Selection rows = Selection::box({1, 0}, {2, 6});
  EXPECT_EQ(to_runs(rows, {4, 6}), (std::vector<plan::Run>{{6, 12}}));
  EXPECT_EQ(run_count(rows, {4, 6}), 1u);
}

TEST(Selection, MatchesBruteForceOnRandomBoxes) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t nd = rng() % 5;
    std::vector<uint64_t> shape(nd), start(nd), count(nd);
    for (size_t d = 0; d < nd; ++d) {
      shape[d] = 1 + rng() % 5;
      start[d] = rng() % shape[d];
      count[d] = rng() % (shape[d] - start[d] + 1);
    }
    Selection s = Selection::box(start, count);
    ASSERT_TRUE(validate(s, shape, std::vector<std::string>(nd, "d")).ok());
    const auto expected = brute_force_runs(s, shape);
    EXPECT_EQ(to_runs(s, shape), expected) << describe(s);
    uint64_t mem = 0;
    for_each_run(s, shape, [&](const plan::Run& r, uint64_t m) {
      EXPECT_EQ(m, mem);
      mem += r.length;
    });
    EXPECT_EQ(mem, s.elements());
  }
}

TEST(Selection, OffsetsMergeConsecutive) {
  const uint64_t offsets[] = {5, 6, 7, 2, 3, 9};
  Selection s = Selection::offsets(offsets, 6);
  EXPECT_EQ(s.runs, (std::vector<plan::Run>{{5, 3}, {2, 2}, {9, 1}}));
  EXPECT_EQ(s.elements(), 6u);
  // Memory order follows the list, not the file order.
  std::vector<uint64_t> mem;
  for_each_run(s, {10}, [&](const plan::Run&, uint64_t m) { mem.push_back(m); });
  EXPECT_EQ(mem, (std::vector<uint64_t>{0, 3, 5}));
}

// Touching neighbours merge and empty runs vanish, in list order (a run after an empty one
// still merges with the run before it); nothing is sorted.
TEST(Selection, FromRunsMergesTouchingNeighboursInPlace) {
  Selection s =
      Selection::from_runs({{0, 2}, {2, 3}, {7, 0}, {5, 1}, {9, 1}, {10, 1}, {4, 0}, {1, 1}});
  EXPECT_EQ(s.runs, (std::vector<plan::Run>{{0, 6}, {9, 2}, {1, 1}}));
  EXPECT_EQ(s.elements(), 9u);
  EXPECT_TRUE(Selection::from_runs({{3, 0}}).runs.empty());
}

// A selection holds its runs, not the room of what it was made from: 10^5 offsets or 10^4
// unmerged runs that make a few runs keep a few runs' memory (a handle keeps its selection,
// shared with the plan cache, as long as the program keeps the map).
TEST(Selection, HoldsItsRunsNotTheRoomOfItsInput) {
  std::vector<uint64_t> offsets(100000);
  for (size_t i = 0; i < offsets.size(); ++i) offsets[i] = i < 50000 ? i : i + 7;
  const Selection s = Selection::offsets(offsets.data(), offsets.size());
  EXPECT_EQ(s.runs, (std::vector<plan::Run>{{0, 50000}, {50007, 50000}}));
  EXPECT_LE(s.runs.capacity(), 2u);
  std::vector<plan::Run> unmerged;
  for (uint64_t i = 0; i < 10000; ++i) unmerged.push_back({i * 3, 3});
  const Selection r = Selection::from_runs(std::move(unmerged));
  EXPECT_EQ(r.runs, (std::vector<plan::Run>{{0, 30000}}));
  EXPECT_LE(r.runs.capacity(), 1u);
}

// same_runs answers as building the selection again and comparing would: merged the same way,
// empty runs skipped, and any difference (a run, a length, one run more or less) seen.
TEST(Selection, SameRunsAsBuildingAgain) {
  const std::vector<uint64_t> off = {0, 2, 7, 5, 9, 10, 4, 1}, len = {2, 3, 0, 1, 1, 1, 0, 1};
  const auto built = [](const std::vector<uint64_t>& o, const std::vector<uint64_t>& l) {
    std::vector<plan::Run> runs;
    for (size_t i = 0; i < o.size(); ++i) runs.push_back(plan::Run{o[i], l[i]});
    return Selection::from_runs(runs);
  };
  const Selection s = built(off, len);
  EXPECT_TRUE(s.same_runs(off.data(), len.data(), off.size()));
  for (size_t i = 0; i < off.size(); ++i)
    for (const int delta : {-1, 1}) {
      std::vector<uint64_t> o = off, l = len;
      if (l[i] == 0 && delta < 0) continue;
      l[i] += delta;
      EXPECT_EQ(s.same_runs(o.data(), l.data(), o.size()), built(o, l) == s) << i << " " << delta;
      l = len;
      o[i] += delta;
      EXPECT_EQ(s.same_runs(o.data(), l.data(), o.size()), built(o, l) == s) << i << " " << delta;
    }
  EXPECT_FALSE(s.same_runs(off.data(), len.data(), off.size() - 1));  // {1, 1} missing
  EXPECT_TRUE(Selection::from_runs({}).same_runs(nullptr, nullptr, 0));
  EXPECT_FALSE(s.same_runs(nullptr, nullptr, 0));
  const uint64_t offsets[] = {5, 6, 7, 2, 3, 9};
  const Selection o = Selection::offsets(offsets, 6);
  EXPECT_TRUE(o.same_runs(offsets, nullptr, 6));
  EXPECT_FALSE(o.same_runs(offsets, nullptr, 5));
  EXPECT_FALSE(Selection::box({0}, {3}).same_runs(offsets, nullptr, 3));
}

TEST(Selection, ValidateRejectsOutOfBounds) {
  const std::vector<std::string> lat_lon = {"lat", "lon"}, x = {"x"};
  Status st = validate(Selection::box({3, 0}, {2, 6}), {4, 6}, lat_lon);
  EXPECT_EQ(st.code(), TAPIO_ERR_SHAPE);
  EXPECT_EQ(st.message(), "selection start 3 + count 2 exceeds the length 4 of dimension 'lat'");
  st = validate(Selection::box({0, 4}, {1, 3}), {4, 6}, lat_lon);
  EXPECT_EQ(st.message(), "selection start 4 + count 3 exceeds the length 6 of dimension 'lon'");
  EXPECT_EQ(validate(Selection::box({0}, {1}), {4, 6}, lat_lon).code(), TAPIO_ERR_SHAPE);
  EXPECT_EQ(validate(Selection::from_runs({{20, 5}}), {4, 6}, lat_lon).code(), TAPIO_ERR_SHAPE);
  EXPECT_TRUE(validate(Selection::from_runs({{20, 4}}), {4, 6}, lat_lon).ok());
  // No overflow on huge values.
  EXPECT_EQ(validate(Selection::box({UINT64_MAX}, {2}), {4}, x).code(), TAPIO_ERR_SHAPE);
  EXPECT_EQ(validate(Selection::from_runs({{1, UINT64_MAX}}), {4}, x).code(), TAPIO_ERR_SHAPE);
}

}  // namespace
}  // namespace tapio::plan

#include "plan/intersect.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace tapio::plan {
namespace {

// global element -> memory position, by brute force.
std::map<uint64_t, uint64_t> positions(const Selection& s, const std::vector<uint64_t>& shape) {
  std::map<uint64_t, uint64_t> out;
  for_each_run(s, shape, [&](const plan::Run& r, uint64_t mem) {
    for (uint64_t k = 0; k < r.length; ++k) out[r.offset + k] = mem + k;
  });
  return out;
}

Selection random_selection(std::mt19937_64& rng, const std::vector<uint64_t>& shape) {
  uint64_t total = 1;
  for (auto n : shape) total *= n;
  if (rng() % 2) {
    std::vector<uint64_t> start(shape.size()), count(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      start[d] = rng() % shape[d];
      count[d] = 1 + rng() % (shape[d] - start[d]);
    }
    return Selection::box(start, count);
  }
  std::vector<uint64_t> offsets;
  for (uint64_t g = 0; g < total; ++g)
    if (rng() % 3 == 0) offsets.push_back(g);
  std::shuffle(offsets.begin(), offsets.end(), rng);
  return Selection::offsets(offsets.data(), offsets.size());
}

TEST(Intersect, MatchesBruteForce) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 1500; ++trial) {
    const size_t nd = rng() % 4;
    std::vector<uint64_t> shape(nd);
    for (auto& n : shape) n = 1 + rng() % 6;
    const Selection a = random_selection(rng, shape), b = random_selection(rng, shape);
    const auto pa = positions(a, shape), pb = positions(b, shape);
    std::map<uint64_t, uint64_t> want;  // a_mem -> b_mem for shared elements
    for (const auto& [g, m] : pa)
      if (pb.count(g)) want[m] = pb.at(g);
    std::map<uint64_t, uint64_t> got;
    for (const Overlap& o : intersect(a, b, shape))
      for (uint64_t k = 0; k < o.length; ++k) {
        ASSERT_FALSE(got.count(o.a_mem + k)) << "element twice";
        got[o.a_mem + k] = o.b_mem + k;
      }
    ASSERT_EQ(got, want) << describe(a) << " / " << describe(b);
  }
}

TEST(Intersect, FirstDimBounds) {
  uint64_t lo, hi;
  first_dim_bounds(Selection::box({2, 1}, {3, 2}), {10, 4}, &lo, &hi);
  EXPECT_EQ(lo, 2u);
  EXPECT_EQ(hi, 5u);
  first_dim_bounds(Selection::from_runs({{5, 2}, {13, 4}}), {10, 4}, &lo, &hi);
  EXPECT_EQ(lo, 1u);  // element 5 is row 1
  EXPECT_EQ(hi, 5u);  // element 16 is row 4
  first_dim_bounds(Selection::box({}, {}), {}, &lo, &hi);
  EXPECT_EQ(lo, 0u);
  EXPECT_EQ(hi, 1u);
}

TEST(IntervalIndex, MatchesLinearScan) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 200; ++trial) {
    IntervalIndex index;
    std::vector<std::pair<uint64_t, uint64_t>> all;
    const int n = rng() % 200;
    for (int i = 0; i < n; ++i) {
      const uint64_t lo = rng() % 1000, hi = lo + 1 + rng() % 100;
      index.add(lo, hi, static_cast<uint32_t>(i));
      all.emplace_back(lo, hi);
    }
    index.build();
    for (int q = 0; q < 20; ++q) {
      const uint64_t lo = rng() % 1100, hi = lo + 1 + rng() % 200;
      std::vector<uint32_t> got, want;
      index.query(lo, hi, [&](uint32_t id) { got.push_back(id); });
      for (int i = 0; i < n; ++i)
        if (all[i].first < hi && all[i].second > lo) want.push_back(static_cast<uint32_t>(i));
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, want);
    }
  }
}

}  // namespace
}  // namespace tapio::plan

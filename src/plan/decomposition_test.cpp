#include "plan/decomposition.h"

#include <gtest/gtest.h>

#include <random>

namespace tapio::plan {
namespace {

bool same(const std::vector<MemSegment>& a, const std::vector<MemSegment>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i].seg == b[i].seg) || a[i].mem != b[i].mem) return false;
  return true;
}

// Puts appended run by run (the engines' way before plans were kept).
void append_runs(std::vector<MemSegment>* segs, const Selection& sel,
                 const std::vector<uint64_t>& shape, size_t esize, uint64_t base, uint64_t* mem) {
  for_each_run(sel, shape, [&](const Run& r, uint64_t) {
    append_piece(segs, base + r.offset * esize, r.length * esize, *mem);
    *mem += r.length * esize;
  });
}

// Runs of one length at small random gaps: neighbours merge into segments of various strides.
Selection strided_runs(std::mt19937_64& rng, uint64_t elements) {
  std::vector<Run> runs;
  for (uint64_t off = rng() % 8; off < elements; off += 1 + rng() % 3)
    if (rng() % 3) runs.push_back(Run{off, 1});
  if (runs.empty()) runs.push_back(Run{0, 1});
  return Selection::from_runs(runs);
}

Selection random_runs(std::mt19937_64& rng, uint64_t elements) {
  std::vector<Run> runs;
  for (int i = 0, n = 1 + rng() % 40; i < n; ++i) {
    const uint64_t len = 1 + rng() % 3;
    const uint64_t off = rng() % 4 == 0 ? rng() % (elements - len) : (i * 7) % (elements - len);
    runs.push_back(Run{off, len});
  }
  return Selection::from_runs(runs);
}

// Several puts after one another (pieces of one may continue the last segment of the one
// before): placing their plans gives exactly the segments visiting their runs gives.
TEST(Decomposition, PlacedPlansEqualVisitingTheRuns) {
  std::mt19937_64 rng(11);
  const std::vector<uint64_t> shape{12, 10};
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<MemSegment> visited, placed;
    uint64_t mem_visited = 0, mem_placed = 0;
    for (int put = 0; put < 4; ++put) {
      const int kind = rng() % 3;
      const Selection sel = kind == 0   ? random_runs(rng, 120)
                            : kind == 1 ? strided_runs(rng, 120)
                                        : Selection::box({rng() % 6, rng() % 5},
                                                         {1 + rng() % 6, 1 + rng() % 5});
      const uint64_t base = (rng() % 3) * 8 * (rng() % 2 ? 120 : 1 + rng() % 4);
      append_runs(&visited, sel, shape, 8, base, &mem_visited);
      const Decomposition d = decompose(sel, shape, 8);
      append_decomposition(&placed, d, base, mem_placed);
      mem_placed += d.bytes;
    }
    ASSERT_EQ(mem_placed, mem_visited);
    ASSERT_TRUE(same(placed, visited)) << "trial " << trial;
  }
}

TEST(Decomposition, RangeOrderAndRuns) {
  const std::vector<uint64_t> shape{100};
  const Decomposition sorted = decompose(Selection::from_runs({{10, 2}, {20, 2}, {30, 2}}), shape, 4);
  EXPECT_TRUE(sorted.in_order);
  EXPECT_TRUE(sorted.runs.empty());
  EXPECT_EQ(sorted.segments.size(), 1u);
  EXPECT_EQ(sorted.range, (Extent{40, 88}));
  EXPECT_EQ(sorted.bytes, 24u);
  const Decomposition box = decompose(Selection::box({2}, {5}), shape, 8);
  EXPECT_EQ(box.range, (Extent{16, 40}));
  EXPECT_TRUE(decompose(Selection::box({0}, {0}), shape, 8).range.length == 0);
}

// A rank's plan holds its own pieces only: at 10^4 virtual ranks of an interleaved map (each
// rank 64 runs, the global array growing with the ranks) every rank's plan is as large as at
// 100 ranks, however many ranks and elements there are.
TEST(Decomposition, HoldsLocalPiecesNotRanks) {
  const auto plan_of = [](uint64_t ranks, uint64_t rank) {
    const std::vector<uint64_t> shape{ranks * 64 * 3};
    std::vector<plan::Run> runs;
    for (uint64_t k = 0; k < 64; ++k) runs.push_back(plan::Run{(k * ranks + rank) * 3, 1 + k % 2});
    return decompose(Selection::from_runs(runs), shape, 8);
  };
  const uint64_t small = plan_of(100, 7).memory();
  EXPECT_LE(small, 64 * (sizeof(MemSegment) + 16));
  for (uint64_t rank : {0, 4999, 9999}) EXPECT_EQ(plan_of(10000, rank).memory(), small) << rank;
}

}  // namespace
}  // namespace tapio::plan

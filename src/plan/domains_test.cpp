#include "plan/domains.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <cstdlib>
#include <limits>
#include <random>
#include <set>

namespace tapio::plan {
namespace {

// ---- coalesce ----

TEST(Coalesce, MergesTouchingAndOverlapping) {
  std::vector<Extent> in = {{20, 5}, {0, 10}, {10, 2}, {5, 1}, {30, 0}, {24, 4}, {40, 1}};
  std::vector<Extent> want = {{0, 12}, {20, 8}, {40, 1}};
  EXPECT_EQ(coalesce(in), want);
  EXPECT_TRUE(coalesce({}).empty());
  EXPECT_TRUE(coalesce({{7, 0}}).empty());
}

TEST(Coalesce, RandomMatchesBitmap) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<Extent> in(rng() % 20);
    std::vector<bool> bits(256, false);
    for (auto& e : in) {
      e.offset = rng() % 200;
      e.length = rng() % 40;
      for (uint64_t b = e.offset; b < e.end(); ++b) bits[b] = true;
    }
    auto out = coalesce(in);
    std::vector<bool> got(256, false);
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_GT(out[i].length, 0u);
      if (i > 0) {
        ASSERT_LT(out[i - 1].end(), out[i].offset);  // disjoint, not touching
      }
      for (uint64_t b = out[i].offset; b < out[i].end(); ++b) got[b] = true;
    }
    ASSERT_EQ(got, bits);
  }
}

// ---- file_domains ----

// Checks exact cover, alignment, balance (stripe counts within one) and empty-domain placement.
void check_domains(uint64_t lo, uint64_t hi, int a, uint64_t s) {
  SCOPED_TRACE(testing::Message() << "lo=" << lo << " hi=" << hi << " A=" << a << " S=" << s);
  auto d = file_domains(lo, hi, a, s);
  ASSERT_EQ(d.size(), static_cast<size_t>(a));
  uint64_t pos = lo;
  uint64_t min_stripes = UINT64_MAX, max_stripes = 0;
  bool seen_empty = false;
  for (const auto& e : d) {
    if (e.length == 0) {
      seen_empty = true;
      EXPECT_EQ(e.offset, hi);
      min_stripes = 0;
      continue;
    }
    ASSERT_FALSE(seen_empty) << "non-empty domain after an empty one";
    ASSERT_EQ(e.offset, pos);
    if (e.offset != lo) {
      ASSERT_EQ(e.offset % s, 0u);
    }
    if (e.end() != hi) {
      ASSERT_EQ(e.end() % s, 0u);
    }
    uint64_t stripes = e.end() / s + (e.end() % s != 0 ? 1 : 0) - e.offset / s;
    min_stripes = std::min(min_stripes, stripes);
    max_stripes = std::max(max_stripes, stripes);
    pos = e.end();
  }
  EXPECT_EQ(pos, hi);
  if (hi > lo) {
    EXPECT_LE(max_stripes - min_stripes, 1u);
  }
}

TEST(FileDomains, Table) {
  // 10 stripes of 4, 3 aggregators: 4, 3, 3 stripes.
  EXPECT_EQ(file_domains(0, 40, 3, 4), (std::vector<Extent>{{0, 16}, {16, 12}, {28, 12}}));
  // Unaligned ends: stripes [0,4) .. [8,12) touched by [2, 11): 3 stripes, 2 aggregators.
  EXPECT_EQ(file_domains(2, 11, 2, 4), (std::vector<Extent>{{2, 6}, {8, 3}}));
  // Fewer stripes than aggregators: trailing domains empty at hi.
  EXPECT_EQ(file_domains(0, 5, 4, 4), (std::vector<Extent>{{0, 4}, {4, 1}, {5, 0}, {5, 0}}));
  // Empty range.
  EXPECT_EQ(file_domains(8, 8, 2, 4), (std::vector<Extent>{{8, 0}, {8, 0}}));
  EXPECT_TRUE(file_domains(0, 10, 0, 4).empty());
  // Stripe size 0 behaves as 1.
  EXPECT_EQ(file_domains(0, 3, 2, 0), (std::vector<Extent>{{0, 2}, {2, 1}}));
  // Near the top of the address space: no overflow.
  const uint64_t top = UINT64_MAX;
  auto d = file_domains(top - 10, top, 2, 1ull << 20);
  EXPECT_EQ(d, (std::vector<Extent>{{top - 10, 10}, {top, 0}}));
  check_domains(top - (5ull << 20) - 3, top, 3, 1ull << 20);
}

TEST(FileDomains, RandomProperties) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 2000; ++trial) {
    uint64_t s = 1 + rng() % 64;
    uint64_t lo = rng() % 5000;
    uint64_t hi = lo + rng() % 5000;
    int a = 1 + static_cast<int>(rng() % 100);
    check_domains(lo, hi, a, s);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
  }
}

TEST(FileDomains, LargeAggregatorCountIsLinear) {
  check_domains(123, (1ull << 40) + 7, 100000, 1ull << 20);
}

// ---- place_aggregators ----

std::vector<int> block_nodes(int ranks, int nodes) {
  std::vector<int> v(ranks);
  for (int r = 0; r < ranks; ++r) v[r] = r / ((ranks + nodes - 1) / nodes);
  return v;
}
std::vector<int> cyclic_nodes(int ranks, int nodes) {
  std::vector<int> v(ranks);
  for (int r = 0; r < ranks; ++r) v[r] = r % nodes;
  return v;
}

TEST(PlaceAggregators, BlockAndCyclicTables) {
  auto block = block_nodes(8, 4);  // 0 0 1 1 2 2 3 3
  auto cyclic = cyclic_nodes(8, 4);  // 0 1 2 3 0 1 2 3
  for (Placement p : {Placement::kRankOrder, Placement::kSpread}) {
    EXPECT_EQ(place_aggregators(block, 4, 4, p), (std::vector<int>{0, 2, 4, 6}));
    EXPECT_EQ(place_aggregators(block, 4, 8, p), (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
    EXPECT_EQ(place_aggregators(block, 4, 6, p), (std::vector<int>{0, 2, 4, 6, 1, 3}));
    EXPECT_EQ(place_aggregators(cyclic, 4, 4, p), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(place_aggregators(cyclic, 4, 8, p), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(place_aggregators(block, 4, 2, p), (std::vector<int>{0, 2}));
    // Clamping.
    EXPECT_EQ(place_aggregators(block, 4, 0, p), (std::vector<int>{0}));
    EXPECT_EQ(place_aggregators(block, 4, 100, p).size(), 8u);
  }
}

TEST(PlaceAggregators, PoliciesDifferWhenNodesAreNotInRankOrder) {
  // Ranks 0,1 on node 1; ranks 2,3 on node 0; rank 4 on node 2.
  std::vector<int> nodes = {1, 1, 0, 0, 2};
  EXPECT_EQ(place_aggregators(nodes, 3, 5, Placement::kRankOrder),
            (std::vector<int>{0, 2, 4, 1, 3}));
  EXPECT_EQ(place_aggregators(nodes, 3, 5, Placement::kSpread),
            (std::vector<int>{2, 0, 4, 3, 1}));
  // Uneven nodes: node 0 has 3 ranks, node 1 has 1, node 2 (empty), node 3 has 2.
  std::vector<int> uneven = {0, 0, 0, 1, 3, 3};
  EXPECT_EQ(place_aggregators(uneven, 4, 6, Placement::kSpread),
            (std::vector<int>{0, 3, 4, 1, 5, 2}));
  EXPECT_EQ(place_aggregators(uneven, 4, 6, Placement::kRankOrder),
            (std::vector<int>{0, 3, 4, 1, 5, 2}));
  EXPECT_EQ(place_aggregators(uneven, 4, 3, Placement::kSpread), (std::vector<int>{0, 3, 4}));
}

TEST(PlaceAggregators, InvalidInputGivesEmpty) {
  EXPECT_TRUE(place_aggregators({}, 1, 1, Placement::kSpread).empty());
  EXPECT_TRUE(place_aggregators({0, 2}, 2, 1, Placement::kSpread).empty());
  EXPECT_TRUE(place_aggregators({0, -1}, 2, 1, Placement::kRankOrder).empty());
}

// Distinct, valid, one per node while count <= non-empty nodes, and for kSpread consecutive
// aggregators on different nodes while count <= non-empty nodes.
void check_placement(const std::vector<int>& node_of_rank, int nodes, int count, Placement p) {
  auto agg = place_aggregators(node_of_rank, nodes, count, p);
  size_t want = std::min(node_of_rank.size(), static_cast<size_t>(std::max(count, 1)));
  ASSERT_EQ(agg.size(), want);
  std::set<int> nonempty(node_of_rank.begin(), node_of_rank.end());
  std::vector<char> used(node_of_rank.size(), 0);
  std::vector<int> per_node(nodes, 0);
  for (size_t i = 0; i < agg.size(); ++i) {
    int r = agg[i];
    ASSERT_GE(r, 0);
    ASSERT_LT(r, static_cast<int>(node_of_rank.size()));
    ASSERT_FALSE(used[r]) << "rank " << r << " twice";
    used[r] = 1;
    ++per_node[node_of_rank[r]];
    if (p == Placement::kSpread && i > 0 && want <= nonempty.size()) {
      ASSERT_NE(node_of_rank[agg[i - 1]], node_of_rank[r]);
    }
  }
  if (want <= nonempty.size()) {
    for (int c : per_node) ASSERT_LE(c, 1);
  }
}

TEST(PlaceAggregators, RandomProperties) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 500; ++trial) {
    int nodes = 1 + static_cast<int>(rng() % 20);
    int ranks = 1 + static_cast<int>(rng() % 100);
    std::vector<int> n(ranks);
    for (auto& x : n) x = static_cast<int>(rng() % nodes);
    int count = static_cast<int>(rng() % (ranks + 3)) - 1;
    for (Placement p : {Placement::kRankOrder, Placement::kSpread}) {
      check_placement(n, nodes, count, p);
      if (HasFatalFailure()) return;
    }
  }
}

// This thread's CPU seconds: time another process takes on a loaded machine is not counted
// (wall-clock ratios failed at a load average of 20, where the longer run is preempted more).
double thread_cpu_secs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// CPU seconds to place (and check) every policy and a spread of counts for `ranks` over
// `nodes`.
double placement_secs(int ranks, int nodes) {
  const auto block = block_nodes(ranks, nodes);
  const auto cyclic = cyclic_nodes(ranks, nodes);
  const double t0 = thread_cpu_secs();
  for (Placement p : {Placement::kRankOrder, Placement::kSpread}) {
    for (int count : {1, nodes, 3 * nodes + 5, ranks}) {
      check_placement(block, nodes, count, p);
      check_placement(cyclic, nodes, count, p);
    }
  }
  return thread_cpu_secs() - t0;
}

TEST(PlaceAggregators, HundredThousandRanksScaleLinearly) {
  const int ranks = 100000, nodes = 2084;
  auto block = block_nodes(ranks, nodes);  // 48 per node, last node short
  ASSERT_LT(block.back(), nodes);
  auto cyclic = cyclic_nodes(ranks, nodes);
  // Each time is the fastest of three runs: the one least stretched by other work on the
  // machine (one run of each failed beside a build).
  double big = placement_secs(ranks, nodes);
  for (int run = 1; run < 3 && !HasFatalFailure(); ++run)
    big = std::min(big, placement_secs(ranks, nodes));
  if (HasFatalFailure()) return;
  // One per node, by rank: the first rank of each node.
  auto agg = place_aggregators(block, nodes, nodes, Placement::kRankOrder);
  int per = (ranks + nodes - 1) / nodes;
  int nonempty = (ranks + per - 1) / per;
  for (int i = 0; i < nonempty; ++i) ASSERT_EQ(agg[i], i * per);
  auto spread = place_aggregators(cyclic, nodes, nodes + 1, Placement::kSpread);
  for (int i = 0; i <= nodes; ++i) ASSERT_EQ(spread[i], i);
  // Ten times the ranks may cost 30 times the time, not the 100 of a quadratic placement. A
  // ratio of two runs in one test, so a loaded machine or a sanitizer slows both alike (a fixed
  // bound of one second failed under ThreadSanitizer beside two builds); 20 ms absorb timer noise.
  double small = placement_secs(ranks / 10, nodes / 10);
  for (int run = 1; run < 3; ++run) small = std::min(small, placement_secs(ranks / 10, nodes / 10));
  EXPECT_LT(big, 30 * small + 0.02) << "10x ranks: " << big << " s vs " << small << " s";
}

// ---- aggregator_count ----

TEST(AggregatorCount, AutoAllAndNumbers) {
  EXPECT_EQ(aggregator_count(100, 4, "auto", 1), 4);
  EXPECT_EQ(aggregator_count(100, 4, "auto", 3), 12);
  EXPECT_EQ(aggregator_count(6, 4, "auto", 2), 6);  // clamped to the ranks
  EXPECT_EQ(aggregator_count(8, 2, "all", 1), 8);
  EXPECT_EQ(aggregator_count(1, 1, "all", 1), 1);
  EXPECT_EQ(aggregator_count(100, 4, "3", 2), 3);  // aggregators_per_node is for auto only
  EXPECT_EQ(aggregator_count(8, 2, "1000", 1), 8);
  // What the registry would reject counts as auto.
  EXPECT_EQ(aggregator_count(100, 4, "", 1), 4);
  EXPECT_EQ(aggregator_count(100, 4, "0/4", 1), 4);
}

TEST(AggregatorCount, RatioRoundsToNearest) {
  EXPECT_EQ(aggregator_count(100, 4, "1/4", 1), 25);
  EXPECT_EQ(aggregator_count(100, 4, "1/4", 3), 25);  // nodes and per_node play no part
  EXPECT_EQ(aggregator_count(6, 1, "1/4", 1), 2);      // 1.5: halves go up
  EXPECT_EQ(aggregator_count(10, 1, "1/4", 1), 3);     // 2.5
  EXPECT_EQ(aggregator_count(9, 1, "1/4", 1), 2);      // 2.25
  EXPECT_EQ(aggregator_count(2, 1, "1/4", 1), 1);      // 0.5
  EXPECT_EQ(aggregator_count(1, 1, "1/4", 1), 1);      // 0.25, but at least one
  EXPECT_EQ(aggregator_count(100, 1, "3/8", 1), 38);   // 37.5
  EXPECT_EQ(aggregator_count(7, 1, "1/1", 1), 7);
  EXPECT_EQ(aggregator_count(100000, 1563, "1/64", 1), 1563);  // 1562.5
  // No overflow: ranks × m is computed in 128 bits.
  const int most = std::numeric_limits<int>::max();
  EXPECT_EQ(aggregator_count(most, 1, "9223372036854775806/9223372036854775807", 1), most);
  EXPECT_EQ(aggregator_count(most, 1, "1/9223372036854775807", 1), 1);
  EXPECT_EQ(aggregator_count(most, 1, "1/2", 1), most / 2 + 1);
}

// For every rank count and 1/k: within half an aggregator of ranks / k, and in [1, ranks].
TEST(AggregatorCount, RatioPropertiesOverRankCounts) {
  for (int k = 1; k <= 64; ++k) {
    const std::string ratio = "1/" + std::to_string(k);
    int previous = 1;
    for (int ranks = 1; ranks <= 2000; ++ranks) {
      const int n = aggregator_count(ranks, 1, ratio, 1);
      ASSERT_GE(n, 1);
      ASSERT_LE(n, ranks);
      ASSERT_GE(n, previous) << "not monotone in the ranks";
      if (n > 1 || 2 * ranks >= k) {
        ASSERT_LE(std::abs(2 * int64_t{n} * k - 2 * int64_t{ranks}), k) << ratio << " " << ranks;
      }
      previous = n;
    }
  }
}

// ---- owner_of ----

int linear_owner(uint64_t byte, const std::vector<Extent>& d) {
  for (size_t i = 0; i < d.size(); ++i)
    if (d[i].offset <= byte && byte < d[i].end()) return static_cast<int>(i);
  return -1;
}

TEST(OwnerOf, Table) {
  auto d = file_domains(0, 5, 4, 4);  // {0,4} {4,1} {5,0} {5,0}
  EXPECT_EQ(owner_of(0, d), 0);
  EXPECT_EQ(owner_of(3, d), 0);
  EXPECT_EQ(owner_of(4, d), 1);
  EXPECT_EQ(owner_of(5, d), -1);
  EXPECT_EQ(owner_of(0, {}), -1);
  EXPECT_EQ(owner_of(2, {{5, 3}}), -1);
}

TEST(OwnerOf, RandomAgreesWithLinearScan) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<Extent> d;
    if (trial % 2 == 0) {
      uint64_t lo = rng() % 1000, hi = lo + rng() % 2000;
      d = file_domains(lo, hi, 1 + static_cast<int>(rng() % 50), 1 + rng() % 32);
    } else {
      std::vector<Extent> in(rng() % 30);
      for (auto& e : in) e = {rng() % 2000, rng() % 50};
      d = coalesce(in);
    }
    for (int q = 0; q < 50; ++q) {
      uint64_t b = rng() % 3200;
      ASSERT_EQ(owner_of(b, d), linear_owner(b, d)) << "byte " << b;
    }
  }
}

}  // namespace
}  // namespace tapio::plan

#include "plan/exchange.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "plan/segments.h"

namespace tapio::plan {
namespace {

TEST(Exchange, WindowsTileEachDomain) {
  const Layout l = make_layout(100, 10000, 3, 512, 1000);
  ASSERT_EQ(l.domains.size(), 3u);
  for (int a = 0; a < 3; ++a) {
    uint64_t covered = 0;
    for (uint32_t r = 0; r < l.rounds; ++r) {
      const Extent w = l.window(a, r);
      if (w.length == 0) continue;
      EXPECT_EQ(w.offset, l.domains[a].offset + covered);
      EXPECT_LE(w.length, l.round_bytes);
      covered += w.length;
    }
    EXPECT_EQ(covered, l.domains[a].length);
  }
}

TEST(Exchange, RoundsAreCapped) {
  const Layout l = make_layout(0, 1ull << 38, 1, 1 << 20, 4096, 1000);
  EXPECT_LE(l.rounds, 1000u);
  EXPECT_GE(l.round_bytes * l.rounds, 1ull << 38);
}

// min_rounds: a domain below min_rounds x buffer_size gets about min_rounds rounds of whole
// stripes, never under one stripe, the messages floor, nor over buffer_size; a large domain
// keeps buffer_size.
TEST(Exchange, SmallDomainsGetSmallerRounds) {
  const uint64_t MiB = 1 << 20;
  const SmallerRounds sixteen{16, 0};
  EXPECT_EQ(round_size(13 * MiB, MiB, 16 * MiB, sixteen), MiB);         // LICOM's: 13 rounds
  EXPECT_EQ(round_size(40 * MiB, MiB, 16 * MiB, sixteen), 3 * MiB);     // whole stripes
  EXPECT_EQ(round_size(1ull << 30, MiB, 16 * MiB, sixteen), 16 * MiB);  // large: buffer_size
  EXPECT_EQ(round_size(100, MiB, 16 * MiB, sixteen), MiB);              // one stripe at least
  EXPECT_EQ(round_size(13 * MiB, MiB, 16 * MiB, {1, 0}), 16 * MiB);     // 1: buffer_size
  EXPECT_EQ(round_size(13 * MiB, 4 * MiB, 2 * MiB, sixteen), 2 * MiB);  // buffer under a stripe
  EXPECT_EQ(round_size(13 * MiB, MiB, 16 * MiB, {16, 5 * MiB}), 5 * MiB);   // messages floor
  EXPECT_EQ(round_size(13 * MiB, MiB, 16 * MiB, {16, 40 * MiB}), 16 * MiB);  // floor over most
  const Layout l = make_layout(0, 13 * MiB, 1, MiB, 16 * MiB, 16000, sixteen);
  EXPECT_EQ(l.round_bytes, MiB);
  EXPECT_EQ(l.rounds, 13u);
}

// The messages floor: kRoundMessageBytes from each rank outside the smallest node; none on one.
TEST(Exchange, MessagesFloorCountsOtherNodesRanks) {
  EXPECT_EQ(messages_floor({0, 0, 0, 0}, 1), 0u);
  EXPECT_EQ(messages_floor({0, 0, 0, 1, 1}, 2), 3 * kRoundMessageBytes);  // smallest node: 2
  std::vector<int> node_of(768);
  for (size_t r = 0; r < node_of.size(); ++r) node_of[r] = static_cast<int>(r / 12);
  EXPECT_EQ(messages_floor(node_of, 64), 756 * kRoundMessageBytes);  // 47 MiB: buffer_size
}

// Virtual sizes (issue 14, 64-bit limits): whatever the range and buffer_size, a round holds
// at most kMaxRoundBytes (every count inside it fits MPI's int) and the rounds still cover
// the largest domain; a 2^50-byte range (a variable of 2^47 doubles) and a buffer_size of
// 4 GiB both give 1 GiB rounds.
TEST(Exchange, RoundsFitMpiCounts) {
  struct Case {
    uint64_t hi, buffer;
    int aggs;
  };
  for (const Case& c : {Case{1ull << 50, 16 << 20, 1}, Case{1ull << 50, 16 << 20, 7},
                        Case{(1ull << 34) + 5, 4ull << 30, 1}, Case{3ull << 31, 1ull << 40, 2}}) {
    const Layout l = make_layout(0, c.hi, c.aggs, 1 << 20, c.buffer);
    EXPECT_LE(l.round_bytes, kMaxRoundBytes) << c.hi;
    EXPECT_LT(l.round_bytes, uint64_t{INT32_MAX}) << c.hi;
    uint64_t largest = 0;
    for (const Extent& d : l.domains) largest = std::max(largest, d.length);
    EXPECT_GE(l.round_bytes * l.rounds, largest) << c.hi;
    const Extent last = l.window(0, l.rounds - 1);
    EXPECT_LE(last.length, kMaxRoundBytes) << c.hi;
  }
}

// Random pieces from many virtual ranks: every byte is routed exactly once, inside the window
// of its aggregator and round, and memory offsets follow the file offsets.
TEST(Exchange, RoutesEveryByteOnceInsideItsWindow) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    const int ranks = 1 + rng() % 64;
    std::vector<std::vector<Piece>> pieces(ranks);
    uint64_t off = rng() % 1000;
    const uint64_t lo = off;
    // Interleave small pieces over the ranks like HPIO; no byte belongs to two ranks.
    for (int i = 0; i < 400; ++i) {
      const int r = rng() % ranks;
      const uint64_t len = 1 + rng() % 300;
      pieces[r].push_back(Piece{off, len, 0});
      off += len + rng() % 50;
    }
    const uint64_t hi = off;
    for (auto& list : pieces) {
      uint64_t mem = 0;
      for (auto& p : list) {
        p.mem = mem;
        mem += p.length;
      }
    }
    const Layout l = make_layout(lo, hi, 1 + rng() % 9, 1 + rng() % 700, 1 + rng() % 4000);
    std::map<uint64_t, int> seen;  // byte -> count (sparse, small test)
    for (int r = 0; r < ranks; ++r) {
      uint64_t total = 0, routed_total = 0;
      for (const auto& p : pieces[r]) total += p.length;
      const auto routed = route(pieces[r], l);
      for (size_t i = 0; i < routed.size(); ++i) {
        const Routed& x = routed[i];
        const Extent w = l.window(x.agg, x.round);
        ASSERT_GE(x.piece.file_offset, w.offset);
        ASSERT_LE(x.piece.file_offset + x.piece.length, w.end());
        if (i > 0) {
          const Routed& y = routed[i - 1];
          ASSERT_TRUE(y.round < x.round || (y.round == x.round && y.agg <= x.agg));
        }
        for (uint64_t b = 0; b < x.piece.length; b += 37) ++seen[x.piece.file_offset + b];
        routed_total += x.piece.length;
      }
      ASSERT_EQ(routed_total, total);
    }
    for (const auto& [byte, count] : seen) ASSERT_EQ(count, 1) << byte;
  }
}

TEST(CollectionOrder, RankKeepsDomainOrder) {
  const std::vector<int> aggs = {3, 5, 7, 9};
  for (int node : {0, 1, 6})
    EXPECT_EQ(collection_order(aggs, node, CollectOrder::kRank), aggs);
  EXPECT_TRUE(collection_order({}, 2, CollectOrder::kRank).empty());
}

TEST(CollectionOrder, TopologyStartsAtTheNodesAggregator) {
  const std::vector<int> aggs = {3, 5, 7, 9};
  EXPECT_EQ(collection_order(aggs, 0, CollectOrder::kTopology), aggs);
  EXPECT_EQ(collection_order(aggs, 1, CollectOrder::kTopology), (std::vector<int>{5, 7, 9, 3}));
  EXPECT_EQ(collection_order(aggs, 3, CollectOrder::kTopology), (std::vector<int>{9, 3, 5, 7}));
  EXPECT_EQ(collection_order(aggs, 5, CollectOrder::kTopology), (std::vector<int>{5, 7, 9, 3}));
  EXPECT_EQ(collection_order({4}, 7, CollectOrder::kTopology), (std::vector<int>{4}));
  EXPECT_TRUE(collection_order({}, 2, CollectOrder::kTopology).empty());
}

// Interleaved data (HPIO-like: every rank has pieces in every window) routed for `ranks` ranks
// on `nodes` nodes (block or cyclic): for each round, the ranks that send to each aggregator at
// position k of their collection order. With kTopology and at least as many aggregators as
// nodes, no aggregator hears from two nodes at the same position: the aggregators drain
// different nodes at once. With kRank every node sends to the same aggregator at once.
TEST(CollectionOrder, TopologyKeepsNodesOnDifferentAggregators) {
  for (const bool cyclic : {false, true}) {
    for (const char* setting : {"auto", "1/4", "all"}) {
      const int ranks = 64, nodes = 8, regions = 64;
      const int aggs = aggregator_count(ranks, nodes, setting, 2);
      ASSERT_GE(aggs, nodes);
      const uint64_t slot = 32, bytes = uint64_t{ranks} * regions * slot;
      const Layout l = make_layout(0, bytes, aggs, 2048, 2048);  // a window: a region of each
      for (const CollectOrder order : {CollectOrder::kTopology, CollectOrder::kRank}) {
        SCOPED_TRACE(testing::Message() << setting << (cyclic ? " cyclic" : " block")
                                        << (order == CollectOrder::kRank ? " rank" : ""));
        // talking[round][k][agg] = the nodes whose ranks send to agg at position k.
        std::vector<std::vector<std::map<int, std::set<int>>>> talking(l.rounds);
        for (int rank = 0; rank < ranks; ++rank) {
          const int node = cyclic ? rank % nodes : rank / (ranks / nodes);
          std::vector<MemSegment> mine;
          for (int i = 0; i < regions; ++i)
            append_piece(&mine, static_cast<uint64_t>(i * ranks + rank) * slot, 8, i * 8u);
          const std::vector<RoutedSegment> routed = route_segments(mine, l);
          for (uint32_t r = 0; r < l.rounds; ++r) {
            std::vector<int> list;  // domain order, as the engine collects it
            for (const RoutedSegment& x : routed)
              if (x.round == r && (list.empty() || list.back() != x.agg)) list.push_back(x.agg);
            ASSERT_EQ(list.size(), static_cast<size_t>(aggs)) << "not every window, round " << r;
            const std::vector<int> sends = collection_order(list, node, order);
            ASSERT_TRUE(std::is_permutation(sends.begin(), sends.end(), list.begin()));
            talking[r].resize(sends.size());
            for (size_t k = 0; k < sends.size(); ++k) talking[r][k][sends[k]].insert(node);
          }
        }
        for (uint32_t r = 0; r < l.rounds; ++r) {
          for (size_t k = 0; k < talking[r].size(); ++k) {
            if (order == CollectOrder::kTopology) {
              ASSERT_EQ(talking[r][k].size(), static_cast<size_t>(nodes)) << r << " " << k;
              for (const auto& [agg, from] : talking[r][k]) ASSERT_EQ(from.size(), 1u) << agg;
            } else {
              ASSERT_EQ(talking[r][k].size(), 1u);
              EXPECT_EQ(talking[r][k].begin()->first, static_cast<int>(k));
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tapio::plan

#include "plan/exchange.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

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
  const Layout l = make_layout(0, 1ull << 40, 1, 1 << 20, 4096, 1000);
  EXPECT_LE(l.rounds, 1000u);
  EXPECT_GE(l.round_bytes * l.rounds, 1ull << 40);
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

}  // namespace
}  // namespace tapio::plan

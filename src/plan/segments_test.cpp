#include "plan/segments.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace tapio::plan {
namespace {

std::vector<Routed> as_routed(const std::vector<Piece>& pieces) {
  std::vector<Routed> out;
  for (const Piece& p : pieces) out.push_back(Routed{0, 0, p});
  return out;
}

TEST(Segments, InterleavedRegionsAreOneSegment) {
  std::vector<Piece> pieces;
  for (uint64_t i = 0; i < 1000; ++i) pieces.push_back(Piece{64 + i * 32, 8, i * 8});
  const auto segs = segments_of(as_routed(pieces), 0, pieces.size());
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0], (Segment{64, 8, 32, 1000}));
  EXPECT_EQ(segs[0].last_end(), 64 + 999 * 32 + 8u);
}

// Random sorted piece lists (with duplicates and irregular gaps): expanding the segments gives
// back exactly the pieces, in order.
TEST(Segments, ExpandToTheSamePieces) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<Piece> pieces;
    uint64_t off = rng() % 100;
    const int n = 1 + rng() % 60;
    for (int i = 0; i < n; ++i) {
      const uint64_t len = 1 + rng() % 3;
      pieces.push_back(Piece{off, len, 0});
      const int kind = rng() % 4;
      off += kind == 0 ? 0 : kind == 1 ? len : len + rng() % 3;
    }
    const auto routed = as_routed(pieces);
    const size_t begin = rng() % pieces.size();
    const auto segs = segments_of(routed, begin, pieces.size());
    std::vector<Extent> back;
    for (const Segment& s : segs)
      for_each_piece(s, [&](uint64_t o, uint64_t l) { back.push_back(Extent{o, l}); });
    ASSERT_EQ(back.size(), pieces.size() - begin);
    for (size_t i = begin; i < pieces.size(); ++i)
      EXPECT_EQ(back[i - begin], (Extent{pieces[i].file_offset, pieces[i].length}));
  }
}

// ByteMap against a std::set of bytes: overlap reports and runs of set and clear bytes.
TEST(Segments, ByteMapMatchesASetOfBytes) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const uint64_t base = rng() % 1000, length = 1 + rng() % 700;
    ByteMap map;
    map.reset(base, length);
    std::set<uint64_t> bytes;
    for (int k = 0; k < 20; ++k) {
      const uint64_t off = base + rng() % length;
      const uint64_t n = 1 + rng() % std::min<uint64_t>(base + length - off, 150);
      bool expect_fresh = true;
      for (uint64_t b = off; b < off + n; ++b) expect_fresh &= bytes.insert(b).second;
      EXPECT_EQ(map.mark(off, n), expect_fresh);
    }
    const uint64_t from = base + rng() % length;
    const uint64_t to = from + rng() % (base + length - from + 1);
    for (bool set : {true, false}) {
      std::vector<Extent> runs, expect;
      map.for_each_run(set, from, to, [&](uint64_t o, uint64_t l) { runs.push_back({o, l}); });
      for (uint64_t b = from; b < to; ++b) {
        if ((bytes.count(b) != 0) != set) continue;
        if (!expect.empty() && expect.back().end() == b)
          ++expect.back().length;
        else
          expect.push_back(Extent{b, 1});
      }
      EXPECT_EQ(runs, expect);
    }
  }
}

TEST(Segments, SieveMergesSmallHolesOnly) {
  const std::vector<Extent> in = {{0, 10}, {15, 5}, {100, 10}, {110, 1}};
  EXPECT_EQ(sieve(in, 5), (std::vector<Extent>{{0, 20}, {100, 11}}));
  EXPECT_EQ(sieve(in, 0), (std::vector<Extent>{{0, 10}, {15, 5}, {100, 11}}));
  EXPECT_EQ(sieve(in, 1000), (std::vector<Extent>{{0, 111}}));
}

}  // namespace
}  // namespace tapio::plan

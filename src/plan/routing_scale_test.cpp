// Routing at the scale the planner is meant for: 100,000 virtual ranks, and ranks with hundreds
// of thousands of pieces. For LICOM-like blocks, HPIO-like interleaved regions and a shuffled
// irregular map: domains tile the file range aligned to stripe_size, windows tile their domains
// and none exceeds buffer_size, every routed piece lies in its (aggregator, round) window and
// is the same bytes of the rank's own data, and the routed bytes of all ranks are the input
// bytes with none twice (two bitmaps over the file range).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "plan/domains.h"
#include "plan/exchange.h"
#include "plan/segments.h"

namespace tapio::plan {
namespace {

constexpr uint64_t kHeader = 4096;  // where the data starts: lo is not stripe-aligned
constexpr int kRanksPerNode = 64;

int nodes_for(int ranks) { return (ranks + kRanksPerNode - 1) / kRanksPerNode; }

// One bit per byte of [base, base + length); the checker's own, independent of ByteMap.
class Bits {
 public:
  Bits(uint64_t base, uint64_t length) : base_(base), words_((length + 63) / 64, 0) {}
  // Sets the bits of [offset, offset + n); false if any was set already.
  bool set(uint64_t offset, uint64_t n) {
    bool fresh = true;
    for (uint64_t i = offset - base_, end = i + n; i < end;) {
      const uint64_t take = std::min<uint64_t>(64 - (i & 63), end - i);
      const uint64_t mask = take == 64 ? ~0ull : ((1ull << take) - 1) << (i & 63);
      fresh &= (words_[i >> 6] & mask) == 0;
      words_[i >> 6] |= mask;
      i += take;
    }
    return fresh;
  }
  bool operator==(const Bits& o) const { return words_ == o.words_; }

 private:
  uint64_t base_;
  std::vector<uint64_t> words_;
};

// Domains tile [lo, hi) in order with inner boundaries on stripes (empty ones trail, at hi);
// each domain's windows tile it, round by round, none longer than buffer_size.
void check_layout(const Layout& l, uint64_t lo, uint64_t hi, int aggs, uint64_t stripe,
                  uint64_t buffer) {
  ASSERT_EQ(l.domains.size(), static_cast<size_t>(aggs));
  ASSERT_EQ(l.round_bytes, buffer);  // no round cap at these sizes
  uint64_t pos = lo;
  for (int a = 0; a < aggs; ++a) {
    const Extent& d = l.domains[a];
    if (d.length == 0) {
      ASSERT_EQ(pos, hi);
      ASSERT_EQ(d.offset, hi);
      continue;
    }
    ASSERT_EQ(d.offset, pos) << "domain " << a;
    ASSERT_TRUE(d.offset == lo || d.offset % stripe == 0) << "domain " << a;
    pos = d.end();
    uint64_t at = d.offset;
    for (uint32_t r = 0; r < l.rounds; ++r) {
      const Extent w = l.window(a, r);
      ASSERT_EQ(w.offset, at) << "domain " << a << " round " << r;
      ASSERT_LE(w.length, buffer);
      at += w.length;
    }
    ASSERT_EQ(at, d.end()) << "domain " << a;
  }
  ASSERT_EQ(pos, hi);
}

// Feeds each rank's segments (in the engine's staging order: back to back in memory) through
// route_segments and checks the result; the bitmaps collect what every rank put and what was
// routed.
class RoutingCheck {
 public:
  RoutingCheck(const Layout& layout, uint64_t lo, uint64_t hi)
      : layout_(layout), input_(lo, hi - lo), routed_(lo, hi - lo) {}

  void rank(const std::vector<MemSegment>& mine) {
    bool disjoint = true;
    for (const MemSegment& m : mine) {
      for_each_piece(m.seg, [&](uint64_t o, uint64_t n) {
        disjoint = input_.set(o, n) && disjoint;
        input_bytes_ += n;
        ++pieces_;
      });
    }
    ASSERT_TRUE(disjoint) << "the pattern itself overlaps";
    const std::vector<RoutedSegment> out = route_segments(mine, layout_);
    for (size_t i = 0; i < out.size(); ++i) {
      const RoutedSegment& x = out[i];
      if (i > 0) {
        const RoutedSegment& y = out[i - 1];
        ASSERT_TRUE(y.round < x.round || (y.round == x.round && y.agg <= x.agg));
      }
      const Extent w = layout_.window(x.agg, x.round);
      ASSERT_GT(x.seg.count, 0u);
      ASSERT_GE(x.seg.offset, w.offset);
      ASSERT_LE(x.seg.last_end(), w.end());
      uint64_t mem = x.mem;
      bool ok = true;
      for_each_piece(x.seg, [&](uint64_t o, uint64_t n) {
        ok = ok && routed_.set(o, n) && same_bytes(mine, o, n, mem);
        routed_bytes_ += n;
        mem += n;
      });
      ASSERT_TRUE(ok) << "routed twice, or not the rank's own bytes, in " << x.seg.offset << "+"
                      << x.seg.length << " x" << x.seg.count;
    }
  }

  // After every rank: the routed bytes are exactly the input bytes.
  void finish() {
    EXPECT_EQ(routed_bytes_, input_bytes_);
    EXPECT_TRUE(routed_ == input_) << "the union of the routed pieces is not the input's";
  }
  uint64_t pieces() const { return pieces_; }

 private:
  // Whether the n bytes at `mem` of this rank's staging are the file bytes [o, o + n): the
  // piece holding `mem` (segments are in memory order) maps there without being left.
  static bool same_bytes(const std::vector<MemSegment>& mine, uint64_t o, uint64_t n,
                         uint64_t mem) {
    auto it = std::upper_bound(mine.begin(), mine.end(), mem,
                               [](uint64_t m, const MemSegment& s) { return m < s.mem; });
    if (it == mine.begin()) return false;
    const MemSegment& s = *--it;
    const uint64_t local = mem - s.mem;
    if (local >= s.seg.bytes()) return false;
    const uint64_t within = local % s.seg.length;
    return within + n <= s.seg.length &&
           o == s.seg.offset + local / s.seg.length * s.seg.stride + within;
  }

  const Layout& layout_;
  Bits input_, routed_;
  uint64_t input_bytes_ = 0, routed_bytes_ = 0, pieces_ = 0;
};

struct Shape {
  uint64_t lo, hi;
  int aggs;
  uint64_t stripe, buffer;
};

Layout checked_layout(const Shape& s) {
  const Layout l = make_layout(s.lo, s.hi, s.aggs, s.stripe, s.buffer);
  check_layout(l, s.lo, s.hi, s.aggs, s.stripe, s.buffer);
  return l;
}

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

// LICOM-like: a px × py process grid over (lat, lon); each rank writes its block of every
// level of a 3-D float field (depth × lat × lon), then its block of a 2-D float field placed
// after it at a 512-byte boundary. A block's rows are the pieces.
TEST(RoutingAtScale, LicomBlocksAt100kRanks) {
  const int px = 400, py = 250, ranks = px * py;
  const uint64_t depth = 4, rows = 8, cols = 10, esize = 4;
  const uint64_t lat = py * rows, lon = px * cols;
  const uint64_t field3 = kHeader, field2 = align_up(field3 + depth * lat * lon * esize, 512);
  const Shape s{kHeader, field2 + lat * lon * esize,
                aggregator_count(ranks, nodes_for(ranks), "auto", 1), 64 << 10, 40000};
  const Layout l = checked_layout(s);
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  RoutingCheck check(l, s.lo, s.hi);
  std::vector<MemSegment> mine;
  for (int rank = 0; rank < ranks; ++rank) {
    const uint64_t y0 = rank / px * rows, x0 = rank % px * cols;
    mine.clear();
    uint64_t mem = 0;
    const auto put_rows = [&](uint64_t base, uint64_t level) {
      for (uint64_t y = y0; y < y0 + rows; ++y, mem += cols * esize)
        append_piece(&mine, base + ((level * lat + y) * lon + x0) * esize, cols * esize, mem);
    };
    for (uint64_t z = 0; z < depth; ++z) put_rows(field3, z);
    put_rows(field2, 0);
    check.rank(mine);
    ASSERT_FALSE(testing::Test::HasFatalFailure()) << "rank " << rank;
  }
  check.finish();
  EXPECT_EQ(check.pieces(), static_cast<uint64_t>(ranks) * (depth + 1) * rows);
}

// HPIO-like: region i of rank p at slot i × ranks + p; `region` bytes per slot of `slot`.
void hpio(int ranks, uint64_t regions, uint64_t region, uint64_t slot, const Shape& s) {
  const Layout l = checked_layout(s);
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  RoutingCheck check(l, s.lo, s.hi);
  std::vector<MemSegment> mine;
  for (int rank = 0; rank < ranks; ++rank) {
    mine.clear();
    for (uint64_t i = 0; i < regions; ++i)
      append_piece(&mine, s.lo + (i * ranks + rank) * slot, region, i * region);
    check.rank(mine);
    ASSERT_FALSE(testing::Test::HasFatalFailure()) << "rank " << rank;
  }
  check.finish();
  EXPECT_EQ(check.pieces(), ranks * regions);
}

TEST(RoutingAtScale, HpioRegionsAt100kRanks) {
  const int ranks = 100000;
  const uint64_t regions = 16, region = 8, slot = 16;
  hpio(ranks, regions, region, slot,
       Shape{kHeader, kHeader + ranks * regions * slot,
             aggregator_count(ranks, nodes_for(ranks), "1/32", 1), 4096, 3000});
}

// The collective engine's small-region target: 2^18 interleaved 8-byte regions per rank.
TEST(RoutingAtScale, HpioHundredsOfThousandsOfRegionsPerRank) {
  const int ranks = 4;
  const uint64_t regions = 1 << 18, region = 8, slot = 8;
  hpio(ranks, regions, region, slot,
       Shape{kHeader, kHeader + ranks * regions * slot, aggregator_count(ranks, 1, "all", 1),
             1 << 20, 1000000});
}

// E3SM-like irregular map: a 1-D double array cut into runs of 1 .. max_run elements, the runs
// shuffled and dealt out to the ranks; even ranks list theirs in file order (as PIO maps
// usually are), odd ranks in the shuffled order.
void shuffled_map(int ranks, uint64_t elements, uint64_t max_run, const char* aggregators,
                  int per_node, uint64_t stripe, uint64_t buffer, uint32_t seed) {
  const uint64_t esize = 8;
  const Shape s{kHeader, kHeader + elements * esize,
                aggregator_count(ranks, nodes_for(ranks), aggregators, per_node), stripe, buffer};
  const Layout l = checked_layout(s);
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  std::mt19937_64 rng(seed);
  std::vector<Extent> runs;
  for (uint64_t e = 0; e < elements;) {
    const uint64_t n = std::min<uint64_t>(1 + rng() % max_run, elements - e);
    runs.push_back(Extent{s.lo + e * esize, n * esize});
    e += n;
  }
  std::shuffle(runs.begin(), runs.end(), rng);
  RoutingCheck check(l, s.lo, s.hi);
  std::vector<Extent> theirs;
  std::vector<MemSegment> mine;
  for (int rank = 0; rank < ranks; ++rank) {
    theirs.clear();
    for (size_t i = rank; i < runs.size(); i += ranks) theirs.push_back(runs[i]);
    if (rank % 2 == 0)
      std::sort(theirs.begin(), theirs.end(),
                [](const Extent& a, const Extent& b) { return a.offset < b.offset; });
    mine.clear();
    uint64_t mem = 0;
    for (const Extent& e : theirs) {
      append_piece(&mine, e.offset, e.length, mem);
      mem += e.length;
    }
    check.rank(mine);
    ASSERT_FALSE(testing::Test::HasFatalFailure()) << "rank " << rank;
  }
  check.finish();
  EXPECT_EQ(check.pieces(), runs.size());
}

TEST(RoutingAtScale, ShuffledMapAt100kRanks) {
  shuffled_map(100000, 3000000, 6, "auto", 2, 4096, 2048, 1);
}

TEST(RoutingAtScale, ShuffledMapHundredsOfThousandsOfRunsPerRank) {
  shuffled_map(3, 1500000, 4, "all", 1, 64 << 10, 100000, 2);
}

}  // namespace
}  // namespace tapio::plan

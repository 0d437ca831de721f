#include "plan/segments.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <random>
#include <set>

namespace tapio::plan {
namespace {

// Pieces [begin, end) appended one by one as segments of count 1.
std::vector<Segment> segments_of(const std::vector<Piece>& pieces, size_t begin, size_t end) {
  std::vector<Segment> out;
  for (size_t i = begin; i < end; ++i)
    append_segment(&out, Segment{pieces[i].file_offset, pieces[i].length, pieces[i].length, 1});
  return out;
}

TEST(Segments, InterleavedRegionsAreOneSegment) {
  std::vector<Piece> pieces;
  for (uint64_t i = 0; i < 1000; ++i) pieces.push_back(Piece{64 + i * 32, 8, i * 8});
  const auto segs = segments_of(pieces, 0, pieces.size());
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
    const size_t begin = rng() % pieces.size();
    const auto segs = segments_of(pieces, begin, pieces.size());
    std::vector<Extent> back;
    for (const Segment& s : segs)
      for_each_piece(s, [&](uint64_t o, uint64_t l) { back.push_back(Extent{o, l}); });
    ASSERT_EQ(back.size(), pieces.size() - begin);
    for (size_t i = begin; i < pieces.size(); ++i)
      EXPECT_EQ(back[i - begin], (Extent{pieces[i].file_offset, pieces[i].length}));
  }
}

struct Triple {
  uint64_t offset, length, mem;
  bool operator<(const Triple& o) const {
    return offset != o.offset ? offset < o.offset : mem != o.mem ? mem < o.mem : length < o.length;
  }
  bool operator==(const Triple& o) const {
    return offset == o.offset && length == o.length && mem == o.mem;
  }
};

std::vector<Piece> expand(const std::vector<MemSegment>& segs) {
  std::vector<Piece> out;
  for (const MemSegment& m : segs) {
    uint64_t mem = m.mem;
    for_each_piece(m.seg, [&](uint64_t o, uint64_t l) {
      out.push_back(Piece{o, l, mem});
      mem += l;
    });
  }
  return out;
}

// append_piece and append_segment keep the pieces (and their order) exactly.
TEST(Segments, AppendKeepsThePieces) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<Piece> pieces;
    std::vector<MemSegment> segs;
    std::vector<Segment> plain;
    uint64_t off = rng() % 100, mem = rng() % 3;
    const int n = 1 + rng() % 80;
    for (int i = 0; i < n; ++i) {
      const uint64_t len = 1 + rng() % 3;
      if (rng() % 5 == 0) mem += rng() % 3;  // a hole in memory
      pieces.push_back(Piece{off, len, mem});
      append_piece(&segs, off, len, mem);
      append_segment(&plain, Segment{off, len, len, 1});
      mem += len;
      const int kind = rng() % 5;
      off = kind == 0 ? off : kind == 1 ? off + len : kind == 2 ? off + len + rng() % 3
                          : kind == 3 ? off + 4 : rng() % 200;
    }
    const auto back = expand(segs);
    ASSERT_EQ(back.size(), pieces.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
      EXPECT_EQ(back[i].file_offset, pieces[i].file_offset);
      EXPECT_EQ(back[i].length, pieces[i].length);
      EXPECT_EQ(back[i].mem, pieces[i].mem);
    }
    // Merging segments of segments: the same pieces again.
    std::vector<Segment> merged;
    for (const MemSegment& m : segs) append_segment(&merged, m.seg);
    std::vector<Extent> a, b, c;
    const auto to = [](std::vector<Extent>* v) {
      return [v](uint64_t o, uint64_t l) { v->push_back(Extent{o, l}); };
    };
    for (const Segment& x : merged) for_each_piece(x, to(&a));
    for (const Segment& x : plain) for_each_piece(x, to(&b));
    for (const Piece& p : pieces) c.push_back(Extent{p.file_offset, p.length});
    EXPECT_EQ(a, c);
    EXPECT_EQ(b, c);
  }
}

TEST(Segments, RoutedRegularSegmentStaysFewSegments) {
  // HPIO-like: 2^16 regions of 8 bytes every 32 bytes, 4 domains, rounds of 1000 bytes (not a
  // multiple of the stride, so pieces straddle round boundaries).
  const Layout l = make_layout(0, (32u << 16) + 64, 4, 4096, 1000);
  const std::vector<MemSegment> in = {MemSegment{Segment{28, 8, 32, 1u << 16}, 0}};
  const auto out = route_segments(in, l);
  uint64_t windows = 0;
  for (int a = 0; a < 4; ++a)
    for (uint32_t r = 0; r < l.rounds; ++r) windows += l.window(a, r).length > 0;
  EXPECT_LE(out.size(), 3 * windows);
  uint64_t bytes = 0;
  for (const RoutedSegment& x : out) bytes += x.seg.bytes();
  EXPECT_EQ(bytes, 8u << 16);
}

// route_segments against route() on the expanded pieces: the same windows in the same order,
// and in each window the same (offset, length, mem) pieces. Regular and irregular segments,
// strides below the length (overlapping pieces) and 0, pieces longer than a round, segments
// out of file order.
TEST(Segments, RouteSegmentsMatchesRouteOnPieces) {
  std::mt19937_64 rng(13);
  std::vector<RouteRun> runs;  // reused across trials, as an engine reuses it
  for (int trial = 0; trial < 2000; ++trial) {
    const uint64_t lo = rng() % 500;
    const uint64_t span = 1 + rng() % 20000;
    const uint64_t hi = lo + span;
    const Layout l = make_layout(lo, hi, 1 + rng() % 7, 1 + rng() % 3000, 1 + rng() % 2000);
    std::vector<MemSegment> in;
    uint64_t mem = 0;
    const int nseg = 1 + rng() % 8;
    for (int i = 0; i < nseg; ++i) {
      Segment s;
      s.length = 1 + rng() % (rng() % 4 == 0 ? 3000 : 40);
      if (s.length > span) s.length = 1 + rng() % span;
      s.offset = lo + rng() % (span - s.length + 1);
      const int kind = rng() % 6;
      s.stride = kind == 0 ? 0 : kind == 1 ? s.length : kind == 2 ? rng() % (s.length + 1)
                                                    : s.length + rng() % 100;
      const uint64_t room = hi - s.offset - s.length;  // last piece must end by hi
      const uint64_t max_count = s.stride ? room / s.stride + 1 : 50;
      s.count = 1 + rng() % std::min<uint64_t>(max_count, 1 + rng() % 300);
      if (s.count == 1) s.stride = s.length;
      if (rng() % 4 == 0) mem += rng() % 10;
      in.push_back(MemSegment{s, mem});
      mem += s.bytes();
    }
    if (rng() % 2) {  // in file order, as a step's puts usually are
      std::sort(in.begin(), in.end(), [](const MemSegment& a, const MemSegment& b) {
        return a.seg.offset < b.seg.offset;
      });
    }
    const auto pieces = route(expand(in), l);
    const auto segs = route_segments(in, l);
    // Windows in order, each once.
    struct Win {
      uint32_t round;
      int agg;
      std::vector<Triple> t;
    };
    std::vector<Win> want, got;
    for (const Routed& x : pieces) {
      if (want.empty() || want.back().round != x.round || want.back().agg != x.agg)
        want.push_back(Win{x.round, x.agg, {}});
      want.back().t.push_back(Triple{x.piece.file_offset, x.piece.length, x.piece.mem});
    }
    for (size_t i = 0; i < segs.size(); ++i) {
      const RoutedSegment& x = segs[i];
      const Extent w = l.window(x.agg, x.round);
      ASSERT_GE(x.seg.offset, w.offset);
      ASSERT_LE(x.seg.last_end(), w.end());
      ASSERT_GT(x.seg.count, 0u);
      if (x.seg.count == 1) {
        ASSERT_EQ(x.seg.stride, x.seg.length);
      }
      if (i > 0) {
        const RoutedSegment& y = segs[i - 1];
        ASSERT_TRUE(y.round < x.round ||
                    (y.round == x.round &&
                     (y.agg < x.agg || (y.agg == x.agg && y.seg.offset <= x.seg.offset))));
      }
      if (got.empty() || got.back().round != x.round || got.back().agg != x.agg)
        got.push_back(Win{x.round, x.agg, {}});
      uint64_t m = x.mem;
      for_each_piece(x.seg, [&](uint64_t o, uint64_t len) {
        got.back().t.push_back(Triple{o, len, m});
        m += len;
      });
    }
    ASSERT_EQ(got.size(), want.size()) << trial;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].round, want[i].round);
      ASSERT_EQ(got[i].agg, want[i].agg);
      std::sort(got[i].t.begin(), got[i].t.end());
      std::sort(want[i].t.begin(), want[i].t.end());
      ASSERT_TRUE(got[i].t == want[i].t) << trial << " window " << i;
    }
    // The runs index exactly the windows, in order, and cover the list without a gap.
    route_runs(segs, &runs);
    ASSERT_EQ(runs.size(), want.size()) << trial;
    size_t next = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      ASSERT_EQ(runs[i].round, want[i].round);
      ASSERT_EQ(runs[i].agg, want[i].agg);
      ASSERT_EQ(runs[i].begin, next);
      ASSERT_LT(runs[i].begin, runs[i].end);
      for (size_t k = runs[i].begin; k < runs[i].end; ++k) {
        ASSERT_EQ(segs[k].round, runs[i].round);
        ASSERT_EQ(segs[k].agg, runs[i].agg);
      }
      next = runs[i].end;
    }
    ASSERT_EQ(next, segs.size()) << trial;
  }
  route_runs({}, &runs);
  EXPECT_TRUE(runs.empty());
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

// mark(Segment) is mark() of each piece: the same bits and the same overlap report.
TEST(Segments, ByteMapMarksSegmentsAsPieces) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 500; ++trial) {
    const uint64_t base = rng() % 100, length = 1 + rng() % 2000;
    ByteMap a, b;
    a.reset(base, length);
    b.reset(base, length);
    for (int k = 0; k < 6; ++k) {
      Segment s;
      s.length = 1 + rng() % std::min<uint64_t>(length, rng() % 2 ? 9 : 130);
      s.offset = base + rng() % (length - s.length + 1);
      const uint64_t room = base + length - s.offset - s.length;
      s.stride = rng() % 3 == 0 ? rng() % (s.length + 1) : s.length + rng() % 70;
      s.count = 1 + (s.stride ? rng() % (room / s.stride + 1) : rng() % 4);
      if (s.count == 1) s.stride = s.length;
      bool fresh = true;
      for_each_piece(s, [&](uint64_t o, uint64_t l) { fresh &= b.mark(o, l); });
      ASSERT_EQ(a.mark(s), fresh);
      std::vector<Extent> ra, rb;
      const auto to = [](std::vector<Extent>* v) {
        return [v](uint64_t o, uint64_t l) { v->push_back(Extent{o, l}); };
      };
      a.for_each_run(true, base, base + length, to(&ra));
      b.for_each_run(true, base, base + length, to(&rb));
      ASSERT_EQ(ra, rb);
    }
  }
}

TEST(Segments, SegmentInsideChecksEveryPieceWithoutOverflow) {
  const Extent w{1000, 100};  // [1000, 1100)
  EXPECT_TRUE(segment_inside(Segment{1000, 100, 100, 1}, w));
  EXPECT_TRUE(segment_inside(Segment{1000, 10, 30, 4}, w));   // last piece [1090, 1100)
  EXPECT_FALSE(segment_inside(Segment{1000, 10, 30, 5}, w));  // fifth piece past the end
  EXPECT_TRUE(segment_inside(Segment{1050, 8, 0, 1000}, w));  // stride 0: one place
  EXPECT_FALSE(segment_inside(Segment{999, 8, 8, 1}, w));
  EXPECT_FALSE(segment_inside(Segment{1000, 101, 101, 1}, w));
  EXPECT_FALSE(segment_inside(Segment{1100, 1, 1, 1}, w));
  EXPECT_FALSE(segment_inside(Segment{1000, 0, 0, 1}, w));
  EXPECT_FALSE(segment_inside(Segment{1000, 8, 8, 0}, w));
  // (count - 1) * stride wraps around 2^64 to a small number: still outside.
  EXPECT_FALSE(segment_inside(Segment{1000, 8, uint64_t{1} << 63, 3}, w));
  EXPECT_FALSE(segment_inside(Segment{1000, 8, 16, uint64_t{1} << 62}, w));
  // A huge length that would wrap offset + length.
  EXPECT_FALSE(segment_inside(Segment{1000, UINT64_MAX - 500, 1, 1}, w));
}

TEST(Segments, SieveMergesSmallHolesOnly) {
  const std::vector<Extent> in = {{0, 10}, {15, 5}, {100, 10}, {110, 1}};
  EXPECT_EQ(sieve(in, 5), (std::vector<Extent>{{0, 20}, {100, 11}}));
  EXPECT_EQ(sieve(in, 0), (std::vector<Extent>{{0, 10}, {15, 5}, {100, 11}}));
  EXPECT_EQ(sieve(in, 1000), (std::vector<Extent>{{0, 111}}));
}

// Reading a requester's routes, sieved: what the aggregator's union of those pieces would
// read (block marks aside), whatever the order and overlap of the segments.
TEST(Segments, SievedReadsAreTheSievedUnionOfThePieces) {
  const auto routed = [](std::vector<Segment> segs) {
    std::vector<RoutedSegment> out;
    for (const Segment& s : segs) out.push_back(RoutedSegment{0, 0, s, 0});
    return out;
  };
  // Strided pieces with small holes: one span each, merged with what overlaps or is near.
  const auto a = routed({{100, 8, 16, 4}, {108, 8, 16, 4}, {300, 10, 10, 1}, {5000, 4, 4, 1}});
  EXPECT_EQ(sieved_reads(a, 0, a.size(), 0, 64),
            (std::vector<Extent>{{100, 64}, {300, 10}, {5000, 4}}));
  EXPECT_EQ(sieved_reads(a, 0, a.size(), 1000, 200),
            (std::vector<Extent>{{1100, 210}, {6000, 4}}));
  EXPECT_EQ(sieved_reads(a, 0, a.size(), 0, 10000), (std::vector<Extent>{{100, 4904}}));
  EXPECT_EQ(sieved_reads(a, 2, 3, 0, 64), (std::vector<Extent>{{300, 10}}));
  // Holes larger than max_hole inside a segment: its pieces, interleaved with another's.
  const auto b = routed({{0, 8, 1000, 3}, {500, 8, 1000, 2}});
  EXPECT_EQ(sieved_reads(b, 0, b.size(), 0, 100),
            (std::vector<Extent>{{0, 8}, {500, 8}, {1000, 8}, {1500, 8}, {2000, 8}}));
  EXPECT_TRUE(sieved_reads(b, 1, 1, 0, 100).empty());
}

TEST(Segments, SharingReadersTakeAShareEach) {
  EXPECT_EQ(sharing_readers(0, 256, 4), 1);
  EXPECT_EQ(sharing_readers(511, 256, 4), 1);
  EXPECT_EQ(sharing_readers(512, 256, 4), 2);
  EXPECT_EQ(sharing_readers(1 << 20, 256, 4), 4);
  EXPECT_EQ(sharing_readers(1 << 20, 0, 3), 3);
  EXPECT_EQ(sharing_readers(1 << 20, 256, 0), 1);
}

// Every byte of the reads belongs to exactly one reader's share, shares follow one another in
// order, and each cut falls on a multiple of `align` bytes of the reads.
TEST(Segments, ReadSharesCoverTheReadsOnce) {
  const std::vector<Extent> reads = {{4096, 10000}, {30000, 3}, {40000, 50000}, {100000, 1}};
  uint64_t total = 0;
  for (const Extent& e : reads) total += e.length;
  for (int readers : {1, 2, 3, 4, 7, 100}) {
    std::vector<Extent> all;
    uint64_t seen = 0;
    for (int j = 0; j < readers; ++j) {
      const std::vector<Extent> share = read_share(reads, readers, j, 512);
      uint64_t bytes = 0;
      for (const Extent& e : share) bytes += e.length;
      if (j + 1 < readers) {
        EXPECT_EQ((seen + bytes) % 512, 0u) << readers << " " << j;
      }
      seen += bytes;
      all.insert(all.end(), share.begin(), share.end());
    }
    EXPECT_EQ(seen, total) << readers;
    EXPECT_EQ(coalesce(all), coalesce(reads)) << readers;
    for (size_t k = 1; k < all.size(); ++k) EXPECT_LE(all[k - 1].end(), all[k].offset);
  }
  EXPECT_EQ(read_share(reads, 1, 0, 4096), reads);
  EXPECT_EQ(read_share({{0, 8192}}, 2, 1, 4096), (std::vector<Extent>{{4096, 4096}}));
  EXPECT_TRUE(read_share({}, 4, 2, 4096).empty());
}

}  // namespace
}  // namespace tapio::plan

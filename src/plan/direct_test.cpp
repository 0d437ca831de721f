#include "plan/direct.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace tapio::plan {
namespace {

MemSegment seg(uint64_t offset, uint64_t length, uint64_t stride, uint64_t count, uint64_t mem) {
  return MemSegment{Segment{offset, length, stride, count}, mem};
}

TEST(Direct, OneLargeRunIsOneRequest) {
  const DirectPlan p = plan_direct({seg(4096, 256, 256, 8192, 0)}, 1 << 20);
  ASSERT_TRUE(p.eligible);
  ASSERT_EQ(p.requests.size(), 1u);
  EXPECT_EQ(p.requests[0].file, (Extent{4096, 256u * 8192}));
  EXPECT_EQ(p.bytes, 256u * 8192);
}

TEST(Direct, SmallStridedPiecesAreNot) {
  // A block's rows: 576-byte pieces 1152 bytes apart belong in an aggregator's request.
  EXPECT_FALSE(plan_direct({seg(0, 576, 1152, 48, 0)}, 1 << 20).eligible);
  EXPECT_FALSE(plan_direct({seg(0, 1000, 1000, 1, 0)}, 1 << 20).eligible);
}

TEST(Direct, LargeStridedPiecesAreOneRequestEach) {
  const DirectPlan p = plan_direct({seg(0, 1 << 20, 3 << 20, 3, 0)}, 1 << 20);
  ASSERT_TRUE(p.eligible);
  ASSERT_EQ(p.requests.size(), 3u);
  EXPECT_EQ(p.requests[2].file, (Extent{6u << 20, 1u << 20}));
  EXPECT_EQ(p.requests[2].mem, 2u << 20);
}

TEST(Direct, PiecesMergeOnlyWhenMemoryContinuesToo) {
  // Two puts of adjacent file ranges, staged in file order: one request.
  DirectPlan p = plan_direct({seg(0, 600, 600, 1, 0), seg(600, 600, 600, 1, 600)}, 1000);
  ASSERT_TRUE(p.eligible);
  ASSERT_EQ(p.requests.size(), 1u);
  EXPECT_EQ(p.requests[0].file.length, 1200u);
  // Staged in the other order: two requests of 600 bytes, each below the minimum.
  p = plan_direct({seg(600, 600, 600, 1, 0), seg(0, 600, 600, 1, 600)}, 1000);
  EXPECT_FALSE(p.eligible);
  p = plan_direct({seg(600, 600, 600, 1, 0), seg(0, 600, 600, 1, 600)}, 500);
  ASSERT_TRUE(p.eligible);
  ASSERT_EQ(p.requests.size(), 2u);
  EXPECT_EQ(p.requests[0].file.offset, 0u);
  EXPECT_EQ(p.requests[0].mem, 600u);
}

TEST(Direct, OverlapIsNotEligible) {
  EXPECT_FALSE(plan_direct({seg(0, 2000, 2000, 1, 0), seg(1999, 2000, 2000, 1, 2000)}, 1000)
                   .eligible);
}

TEST(Direct, NothingToMoveIsEligible) {
  const DirectPlan p = plan_direct({}, 1 << 20);
  EXPECT_TRUE(p.eligible);
  EXPECT_EQ(p.bytes, 0u);
}

TEST(Direct, RanksInOrderPerVariable) {
  Extent a;  // variable 0: pieces 1000..1500 and 3000..3100
  widen(&a, Segment{1000, 500, 500, 1});
  widen(&a, Segment{3000, 50, 50, 2});
  EXPECT_EQ(a, (Extent{1000, 2100}));
  const std::vector<Extent> mine = {a, Extent{}, Extent{9000, 10}};
  EXPECT_TRUE(in_rank_order(mine, {0, 0, 0}));
  EXPECT_TRUE(in_rank_order(mine, {1000, 99999, 9000}));  // variable 1: none of mine
  EXPECT_FALSE(in_rank_order(mine, {1001, 0, 0}));
  EXPECT_FALSE(in_rank_order(mine, {0, 0, 9001}));
}

TEST(Direct, WidenSinceTakesOnlyTheNewPieces) {
  std::vector<MemSegment> segs;
  append_piece(&segs, 0, 8, 0);
  append_piece(&segs, 16, 8, 8);  // variable a: pieces at 0 and 16
  const SegmentMark mark = mark_of(segs);
  append_piece(&segs, 32, 8, 16);  // variable b: extends the same segment
  append_piece(&segs, 100, 4, 24);
  ASSERT_EQ(segs.size(), 2u);
  Extent b;
  widen_since(&b, segs, mark);
  EXPECT_EQ(b, (Extent{32, 72}));
}

// Random disjoint pieces staged in random order: when eligible, the requests map every file
// byte of every piece to the same memory byte the piece gives it, and nothing else.
TEST(Direct, RequestsMapExactlyThePieces) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<Extent> slots;
    uint64_t off = rng() % 50;
    const int n = 1 + rng() % 20;
    for (int i = 0; i < n; ++i) {
      const uint64_t len = 1 + rng() % 40;
      slots.push_back(Extent{off, len});
      off += len + (rng() % 3 == 0 ? rng() % 10 : 0);
    }
    std::shuffle(slots.begin(), slots.end(), rng);
    std::vector<MemSegment> segs;
    std::map<uint64_t, uint64_t> expect;  // file byte -> mem byte
    uint64_t mem = 0;
    for (const Extent& e : slots) {
      segs.push_back(seg(e.offset, e.length, e.length, 1, mem));
      for (uint64_t b = 0; b < e.length; ++b) expect[e.offset + b] = mem + b;
      mem += e.length;
    }
    const DirectPlan p = plan_direct(segs, 1 + rng() % 8);
    if (!p.eligible) continue;
    std::map<uint64_t, uint64_t> got;
    for (const DirectRequest& q : p.requests)
      for (uint64_t b = 0; b < q.file.length; ++b) got[q.file.offset + b] = q.mem + b;
    EXPECT_EQ(got, expect);
    EXPECT_EQ(p.bytes, mem);
  }
}

}  // namespace
}  // namespace tapio::plan

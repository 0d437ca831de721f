#include "plan/group_layout.h"

#include <gtest/gtest.h>

#include <random>

#include "plan/overlap.h"
#include "plan/segments.h"

namespace tapio::plan {
namespace {

TEST(GroupLayout, RegionsAlignedInMemberOrder) {
  const GroupLayout g = layout_group(5000, {100, 0, 4096, 1}, 4096);
  EXPECT_EQ(g.base, 8192u);
  EXPECT_EQ(g.offsets, (std::vector<uint64_t>{8192, 12288, 12288, 16384}));
  EXPECT_EQ(g.end, 16385u);
  const GroupLayout packed = layout_group(7, {3, 4}, 1);
  EXPECT_EQ(packed.offsets, (std::vector<uint64_t>{7, 10}));
  EXPECT_EQ(packed.end, 14u);
  EXPECT_EQ(round_count(layout_group(0, {}, 4096), 64), 0u);
}

// Every byte of every region lands in exactly one round part, at its place in the round.
TEST(GroupLayout, RoundsCoverEveryRegionByteOnce) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 300; ++t) {
    std::vector<uint64_t> sizes(1 + rng() % 9);
    for (auto& s : sizes) s = rng() % 4 == 0 ? 0 : rng() % 5000;
    const uint64_t align = uint64_t{1} << (rng() % 13), round = 1 + rng() % 3000;
    const GroupLayout g = layout_group(rng() % 10000, sizes, align);
    std::vector<std::vector<int>> seen(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) seen[i].assign(sizes[i], 0);
    for (uint64_t k = 0; k < round_count(g, round); ++k) {
      int last = -1;
      for (const RoundPart& p : round_parts(g, round, k)) {
        EXPECT_GT(p.member, last);
        last = p.member;
        EXPECT_EQ(g.base + k * round + p.at, g.offsets[p.member] + p.stream);
        EXPECT_LE(p.at + p.length, round);
        for (uint64_t b = 0; b < p.length; ++b) ++seen[p.member][p.stream + b];
      }
    }
    for (const auto& member : seen)
      for (int c : member) ASSERT_EQ(c, 1);
  }
}

TEST(Overlap, DomainsSplitElementsEvenlyAndRunsAreCutAtThem) {
  for (uint64_t n : {uint64_t{1}, uint64_t{7}, uint64_t{1000}, uint64_t{1} << 62})
    for (int owners : {1, 3, 8, 100000}) {
      EXPECT_EQ(domain_start(n, owners, 0), 0u);
      EXPECT_EQ(domain_start(n, owners, owners), n);
      for (uint64_t e : {uint64_t{0}, n / 2, n - 1}) {
        const int d = domain_of(n, owners, e);
        EXPECT_LE(domain_start(n, owners, d), e);
        EXPECT_GT(domain_start(n, owners, d + 1), e);
      }
    }
  std::vector<std::pair<int, plan::Run>> parts;
  route_run(plan::Run{5, 20}, 30, 3, [&](int d, const plan::Run& r) { parts.push_back({d, r}); });
  ASSERT_EQ(parts.size(), 3u);  // domains [0, 10), [10, 20), [20, 30)
  EXPECT_EQ(parts[0].first, 0);
  EXPECT_EQ(parts[0].second, (plan::Run{5, 5}));
  EXPECT_EQ(parts[1].first, 1);
  EXPECT_EQ(parts[1].second, (plan::Run{10, 10}));
  EXPECT_EQ(parts[2].first, 2);
  EXPECT_EQ(parts[2].second, (plan::Run{20, 5}));
}

}  // namespace
}  // namespace tapio::plan

namespace tapio::plan {
namespace {

// Strided runs travel as segments, cut where they leave a domain: every element lands once,
// in its owner's domain.
TEST(Overlap, SegmentsRouteToElementDomains) {
  const uint64_t n = 70400 * 200;
  const Layout l = element_domains(n, 3);
  ASSERT_EQ(l.domains.size(), 3u);
  EXPECT_EQ(l.rounds, 1u);
  std::vector<MemSegment> segs;
  uint64_t mem = 0;
  for (uint64_t row = 0; row < 70400; ++row, mem += 50) append_piece(&segs, row * 200 + 50, 50, mem);
  ASSERT_EQ(segs.size(), 1u);  // a column band is one segment
  std::vector<uint64_t> seen(3, 0);
  for (const RoutedSegment& r : route_segments(segs, l)) {
    EXPECT_EQ(r.round, 0u);
    for_each_piece(r.seg, [&](uint64_t off, uint64_t len) {
      EXPECT_GE(off, l.domains[r.agg].offset);
      EXPECT_LE(off + len, l.domains[r.agg].end());
      seen[r.agg] += len;
    });
  }
  EXPECT_EQ(seen[0] + seen[1] + seen[2], 70400u * 50);
  for (uint64_t s : seen) EXPECT_GT(s, 0u);
}

}  // namespace
}  // namespace tapio::plan

// The shared decompositions pinned on small shapes: what tapio-bench hands its methods and the
// simulator models, so a change here shows as a failure, not as moved benchmark numbers.
#include "workload/patterns.h"

#include <gtest/gtest.h>

namespace tapio::workload {
namespace {

using Runs = std::vector<plan::Run>;
using Dims = std::vector<uint64_t>;

TEST(WorkloadLicom, GridIsOpenMpisDimsCreate) {
  // Open MPI's MPI_Dims_create(n, 2), not the most balanced pair: 72 is 12 x 6, not 9 x 8.
  const int n[] = {1, 7, 12, 16, 72, 180}, rows[] = {1, 7, 4, 4, 12, 18}, cols[] = {1, 1, 3, 4, 6, 10};
  for (int i = 0; i < 6; ++i) {
    int r = 0, c = 0;
    process_grid(n[i], &r, &c);
    EXPECT_EQ(r, rows[i]) << n[i];
    EXPECT_EQ(c, cols[i]) << n[i];
  }
}

TEST(WorkloadLicom, EachRankOwnsABlockOfTheProcessGrid) {
  LicomOptions o;
  ASSERT_TRUE(parse_licom_grid("10x7x3", &o));
  o.vars3d = 2;
  o.vars2d = 1;
  const auto p = licom(o, 6);  // a 3 x 2 grid: lat rows 0-1, 2-3, 4-6; lon columns 0-4, 5-9
  ASSERT_EQ(p->vars().size(), 3u);
  EXPECT_EQ(p->vars()[1].name, "var3d_1");
  EXPECT_EQ(p->vars()[1].shape, (Dims{3, 7, 10}));
  EXPECT_EQ(p->vars()[2].shape, (Dims{7, 10}));
  const Part deep = p->part(5, 0), flat = p->part(5, 2);
  ASSERT_EQ(deep.boxes.size(), 1u);
  EXPECT_EQ(deep.boxes[0].start, (Dims{0, 4, 5}));
  EXPECT_EQ(deep.boxes[0].count, (Dims{3, 3, 5}));
  EXPECT_EQ(flat.boxes[0].start, (Dims{4, 5}));
  EXPECT_EQ(flat.boxes[0].count, (Dims{3, 5}));
  EXPECT_FALSE(parse_licom_grid("10x7", &o));
  EXPECT_FALSE(parse_licom_grid("10x0x3", &o));
  EXPECT_FALSE(parse_licom_grid("10x7x3x", &o));
}

TEST(WorkloadHpio, NoncontigInterleavesRanksWithGaps) {
  const auto p = hpio(HpioOptions{2, 16, 8, true}, 3);  // 2 doubles a region, 1 of gap
  EXPECT_EQ(p->vars()[0].shape, (Dims{18}));
  EXPECT_EQ(p->part(1, 0).runs, (Runs{{3, 2}, {12, 2}}));
}

TEST(WorkloadHpio, ContigRegionsStaySeparateRuns) {
  // Back to back in the variable, but each region is its own request for the peers.
  const auto p = hpio(HpioOptions{3, 16, 8, false}, 2);
  EXPECT_EQ(p->vars()[0].shape, (Dims{12}));
  EXPECT_EQ(p->part(1, 0).runs, (Runs{{6, 2}, {8, 2}, {10, 2}}));
}

TEST(WorkloadMatrix, BlockGivesEachRankABandOfColumns) {
  const auto p = matrix(MatrixOptions{4, 10, 0, false}, 3);
  const Part band = p->part(2, 0);
  ASSERT_EQ(band.boxes.size(), 1u);
  EXPECT_EQ(band.boxes[0].start, (Dims{0, 6}));
  EXPECT_EQ(band.boxes[0].count, (Dims{4, 4}));
  EXPECT_EQ(p->part(0, 0).boxes[0].count, (Dims{4, 3}));
}

TEST(WorkloadMatrix, CyclicDealsBlocksRowByRowUnmerged) {
  EXPECT_EQ(matrix(MatrixOptions{2, 5, 2, true}, 1)->part(0, 0).runs,
            (Runs{{0, 2}, {2, 2}, {4, 1}, {5, 2}, {7, 2}, {9, 1}}));
  EXPECT_EQ(matrix(MatrixOptions{2, 5, 2, true}, 2)->part(1, 0).runs, (Runs{{2, 2}, {7, 2}}));
}

TEST(WorkloadMetadata, BlocksOfEveryRankInterleave) {
  const auto p = metadata(MetadataOptions{3, 2, 3}, 2);
  ASSERT_EQ(p->vars().size(), 3u);
  EXPECT_EQ(p->vars()[2].name, "v2");
  EXPECT_EQ(p->vars()[2].shape, (Dims{12}));
  const Part part = p->part(1, 2);
  ASSERT_EQ(part.boxes.size(), 2u);
  EXPECT_EQ(part.boxes[0].start, (Dims{3}));
  EXPECT_EQ(part.boxes[1].start, (Dims{9}));
  EXPECT_EQ(part.boxes[1].count, (Dims{3}));
}

}  // namespace
}  // namespace tapio::workload

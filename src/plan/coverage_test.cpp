#include "plan/coverage.h"

#include <gtest/gtest.h>

namespace tapio::plan {
namespace {

TEST(Coverage, DisjointRunsCount) {
  std::vector<OwnedRun> runs = {{{10, 5}, 1}, {{0, 10}, 0}, {{20, 1}, 2}};
  auto covered = covered_elements(runs);
  ASSERT_TRUE(covered.ok());
  EXPECT_EQ(*covered, 16u);
}

TEST(Coverage, OverlapNamesBothRanks) {
  std::vector<OwnedRun> runs = {{{0, 10}, 3}, {{9, 2}, 5}};
  auto covered = covered_elements(runs);
  ASSERT_FALSE(covered.ok());
  EXPECT_EQ(covered.status().code(), TAPIO_ERR_SHAPE);
  EXPECT_NE(covered.status().message().find("rank 3"), std::string::npos);
  EXPECT_NE(covered.status().message().find("rank 5"), std::string::npos);
}

}  // namespace
}  // namespace tapio::plan

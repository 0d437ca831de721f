#include "engine/kept_plans.h"

#include <gtest/gtest.h>

namespace tapio {
namespace {

struct Tagged final : PlanMemory {
  explicit Tagged(int t) : tag(t) {}
  int tag;
};

int tag_of(const KeptPlans::Entry& e) {
  const auto* t = dynamic_cast<const Tagged*>(e.second.get());
  return t ? t->tag : -1;
}

TEST(KeptPlans, OneEntryPerKeyTakenOut) {
  KeptPlans kept;
  kept.add({1}, std::make_unique<Tagged>(10));
  kept.add({2}, std::make_unique<Tagged>(20));
  kept.add({1}, std::make_unique<Tagged>(11));  // replaces key 1's entry
  EXPECT_EQ(kept.size(), 2u);
  KeptPlans::Entry one = kept.take({1});
  EXPECT_EQ(one.first, std::vector<uint64_t>{1});
  EXPECT_EQ(tag_of(one), 11);
  EXPECT_EQ(tag_of(kept.take({1})), -1);  // taken: nothing older is found
  EXPECT_EQ(tag_of(kept.take({3})), -1);
  EXPECT_EQ(tag_of(kept.take({2})), 20);
  EXPECT_EQ(kept.size(), 0u);
}

// An entry without a plan (a rank whose close failed) hides the key's older plan.
TEST(KeptPlans, AnEntryWithoutAPlanHidesTheOlderOne) {
  KeptPlans kept;
  kept.add({1}, std::make_unique<Tagged>(10));
  kept.add({1}, nullptr);
  EXPECT_EQ(tag_of(kept.take({1})), -1);
  EXPECT_EQ(tag_of(kept.take({1})), -1);
}

TEST(KeptPlans, TheOldestGoesPastTheBound) {
  KeptPlans kept;
  for (uint64_t k = 0; k <= KeptPlans::kMaxFiles; ++k)
    kept.add({k}, std::make_unique<Tagged>(static_cast<int>(k)));
  EXPECT_EQ(kept.size(), KeptPlans::kMaxFiles);
  EXPECT_EQ(tag_of(kept.take({0})), -1);
  EXPECT_EQ(tag_of(kept.take({KeptPlans::kMaxFiles})), static_cast<int>(KeptPlans::kMaxFiles));
  kept.clear();
  EXPECT_EQ(kept.size(), 0u);
}

}  // namespace
}  // namespace tapio

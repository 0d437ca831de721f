#include "engine/plan_cache.h"

#include <gtest/gtest.h>

namespace tapio {
namespace {

struct Counted {  // a plan that says how often it was made
  int made;
  uint64_t memory() const { return 1000; }
};

// A new object each call: the cache finds equal selections by content.
plan::SharedSelection runs(uint64_t first) {
  return plan::shared(plan::Selection::from_runs({{first, 2}, {first + 5, 3}}));
}

// Made once per selection content, whichever variable uses it; a plan no variable's latest
// batch used is dropped, and a variable that stops being put keeps its plan.
TEST(PlanCache, ReusedByContentDroppedWhenNoVariableUsesIt) {
  Profile profile;
  PlanCache<Counted> cache(&profile);
  int made = 0;
  const auto make = [&](const plan::Selection&) { return Counted{++made}; };
  const PlanCache<Counted>::Key key{100, 8};
  {
    PlanCache<Counted>::Batch batch(&cache);
    EXPECT_EQ(cache.plan(cache.intern(0, runs(0)), key, make).made, 1);
    EXPECT_EQ(cache.plan(cache.intern(1, runs(0)), key, make).made, 1);  // same content
    EXPECT_EQ(cache.plan(cache.intern(2, runs(50)), key, make).made, 2);
    EXPECT_EQ(cache.plan(cache.intern(2, runs(50)), {200, 8}, make).made, 3);  // another key
  }
  const uint64_t two = cache.bytes();
  {
    PlanCache<Counted>::Batch batch(&cache);  // variable 1 moves; 0 and 2 are not put
    EXPECT_EQ(cache.plan(cache.intern(1, runs(20)), key, make).made, 4);
  }
  const uint64_t three = cache.bytes();
  EXPECT_GT(three, two);  // runs(0) is still variable 0's
  {
    PlanCache<Counted>::Batch batch(&cache);  // variable 0 moves too: runs(0) is dropped
    EXPECT_EQ(cache.plan(cache.intern(0, runs(20)), key, make).made, 4);
  }
  EXPECT_EQ(cache.bytes(), two);  // runs(20) in place of runs(0), one plan each
  EXPECT_LT(cache.bytes(), three);
  {
    PlanCache<Counted>::Batch batch(&cache);
    EXPECT_EQ(cache.plan(cache.intern(0, runs(0)), key, make).made, 5);  // planned again
    EXPECT_EQ(cache.plan(cache.intern(2, runs(50)), key, make).made, 2);
  }
  EXPECT_EQ(profile.plans.made, 5u);
  EXPECT_EQ(profile.plans.reused, 3u);
  EXPECT_EQ(profile.phases.plan_per_batch().size(), 4u);
  EXPECT_GE(profile.plans.cache_bytes, cache.bytes());
}

// One object many variables share (a decomposition, tapio_var_set_decomp) is found by its
// address, by every variable; once no variable holds it, the cache forgets the address too:
// the same object given later is planned afresh (under ASan, a stale address would be a read
// of the freed plan).
TEST(PlanCache, SharedObjectFoundByAddressForgottenWhenDropped) {
  Profile profile;
  PlanCache<Counted> cache(&profile);
  int made = 0;
  const auto make = [&](const plan::Selection&) { return Counted{++made}; };
  const plan::SharedSelection decomp = runs(3);
  {
    PlanCache<Counted>::Batch b(&cache);
    for (int var = 0; var < 16; ++var)
      EXPECT_EQ(cache.plan(cache.intern(var, decomp), {100, 8}, make).made, 1);
  }
  for (int var = 0; var < 16; ++var) {  // each moves on: the decomposition is dropped
    PlanCache<Counted>::Batch b(&cache);
    cache.intern(var, runs(40));
  }
  {
    PlanCache<Counted>::Batch b(&cache);
    EXPECT_EQ(cache.plan(cache.intern(0, decomp), {100, 8}, make).made, 2);
  }
  EXPECT_EQ(profile.plans.made, 2u);
  EXPECT_EQ(profile.plans.reused, 15u);
}

// A program that gives a variable the same selection object batch after batch (the API keeps
// a map set again unchanged) gets the same plan, and so does one that hands over an equal copy.
TEST(PlanCache, SameObjectOrEqualCopyFindsThePlan) {
  Profile profile;
  PlanCache<Counted> cache(&profile);
  int made = 0;
  const auto make = [&](const plan::Selection&) { return Counted{++made}; };
  const plan::SharedSelection map = runs(7);
  for (int batch = 0; batch < 3; ++batch) {
    PlanCache<Counted>::Batch b(&cache);
    EXPECT_EQ(cache.intern(0, map), cache.intern(0, map));
    EXPECT_EQ(cache.plan(cache.intern(0, map), {100, 8}, make).made, 1);
  }
  {
    PlanCache<Counted>::Batch b(&cache);
    EXPECT_EQ(cache.plan(cache.intern(0, runs(7)), {100, 8}, make).made, 1);  // an equal copy
  }
  EXPECT_EQ(profile.plans.made, 1u);
  EXPECT_EQ(profile.plans.reused, 3u);
  {  // many equal copies in one batch: one known selection, one plan
    PlanCache<Counted>::Batch b(&cache);
    for (int k = 0; k < 100; ++k)
      EXPECT_EQ(cache.plan(cache.intern(1, runs(7)), {100, 8}, make).made, 1);
  }
  EXPECT_EQ(profile.plans.made, 1u);
}

}  // namespace
}  // namespace tapio

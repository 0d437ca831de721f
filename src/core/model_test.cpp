// IoDef::find_var: an index that follows `vars` however the code changes it.
#include "core/model.h"

#include <gtest/gtest.h>

namespace tapio {
namespace {

VariableDef named(const std::string& name) {
  VariableDef v;
  v.name = name;
  return v;
}

TEST(FindVar, FollowsAppendsAndFindsTheFirstOfAName) {
  IoDef io;
  EXPECT_EQ(io.find_var("a"), -1);
  for (int i = 0; i < 1000; ++i) io.vars.push_back(named("v" + std::to_string(i)));
  EXPECT_EQ(io.find_var("v0"), 0);
  EXPECT_EQ(io.find_var("v999"), 999);
  EXPECT_EQ(io.find_var("v1000"), -1);
  io.vars.push_back(named("v1000"));
  EXPECT_EQ(io.find_var("v1000"), 1000);
  io.vars.push_back(named("v5"));  // a duplicate: the first one counts, as a scan finds it
  EXPECT_EQ(io.find_var("v5"), 5);
}

TEST(FindVar, FollowsReplacedShrunkAndReassignedVectors) {
  IoDef io;
  io.vars = {named("a"), named("b"), named("c")};
  EXPECT_EQ(io.find_var("c"), 2);
  io.vars = {named("c"), named("d"), named("e")};  // same size, the same buffer
  EXPECT_EQ(io.find_var("c"), 0);
  EXPECT_EQ(io.find_var("e"), 2);
  EXPECT_EQ(io.find_var("a"), -1);
  io.vars.clear();
  EXPECT_EQ(io.find_var("c"), -1);
  io.vars = {named("x"), named("y"), named("z"), named("w")};  // cleared, then refilled longer
  EXPECT_EQ(io.find_var("w"), 3);
  EXPECT_EQ(io.find_var("e"), -1);
  io.vars.erase(io.vars.begin());
  EXPECT_EQ(io.find_var("y"), 0);
  EXPECT_EQ(io.find_var("x"), -1);
}

TEST(FindVar, CopiesAndMovesKeepTheirOwnIndex) {
  IoDef io;
  io.vars = {named("a"), named("b")};
  EXPECT_EQ(io.find_var("b"), 1);
  IoDef copy = io;
  copy.vars.insert(copy.vars.begin(), named("z"));
  EXPECT_EQ(copy.find_var("b"), 2);
  EXPECT_EQ(io.find_var("b"), 1);
  IoDef moved = std::move(copy);
  EXPECT_EQ(moved.find_var("z"), 0);
  copy = io;  // a moved-from IoDef assigned again
  EXPECT_EQ(copy.find_var("a"), 0);
  io = std::move(moved);
  EXPECT_EQ(io.find_var("z"), 0);
  EXPECT_EQ(io.find_var("b"), 2);
}

}  // namespace
}  // namespace tapio

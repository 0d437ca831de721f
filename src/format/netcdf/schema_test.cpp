// The header a set of definitions becomes: the unlimited dimension's name (record_dimension),
// the order of declared dimensions.
#include "format/netcdf/schema.h"

#include <gtest/gtest.h>

namespace tapio::netcdf {
namespace {

VariableDef variable(const std::string& name, bool record, const std::string& dim) {
  VariableDef v;
  v.name = name;
  v.record = record;
  v.shape = {3};
  v.dim_names = {dim};
  return v;
}

TEST(Schema, TheUnlimitedDimensionTakesTheGivenName) {
  IoDef io;
  io.vars.push_back(variable("sst", true, "x"));
  auto h = header_from_io(io, 5, "ocean_time");
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->record_dimid(), 0);
  EXPECT_EQ(h->dims[0].name, "ocean_time");
  EXPECT_EQ(h->dims[0].length, 0u);
  EXPECT_EQ(header_from_io(io, 5)->dims[0].name, "time");  // the default
}

TEST(Schema, OnlyTheRecordDimensionsNameIsReserved) {
  IoDef io;
  io.vars.push_back(variable("clock", false, "time"));  // a fixed dimension called time
  io.vars.push_back(variable("sst", true, "x"));
  auto h = header_from_io(io, 5, "record");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->dims[h->find_dim("time")].length, 3u);
  auto clash = header_from_io(io, 5);  // `time` is then the unlimited dimension's
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().code(), TAPIO_ERR_ARG);
  EXPECT_NE(clash.status().message().find("'time' is reserved"), std::string::npos);
  EXPECT_EQ(header_from_io(io, 5, "no/slash").status().code(), TAPIO_ERR_ARG);
}

std::vector<std::string> dim_names(const Header& h) {
  std::vector<std::string> names;
  for (const Dim& d : h.dims) names.push_back(d.name);
  return names;
}

TEST(Schema, DeclaredDimensionsComeFirstInTheirOrderUsedOrNot) {
  IoDef io;
  io.dims = {{"x", 3}, {"unused", 7}, {"t", 0}};
  io.vars.push_back(variable("sst", true, "x"));
  io.vars.push_back(variable("depth", false, "z"));  // not declared: after the declared ones
  auto h = header_from_io(io, 5, "t");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(dim_names(*h), (std::vector<std::string>{"x", "unused", "t", "z"}));
  EXPECT_EQ(h->dims[1].length, 7u);
  EXPECT_EQ(h->record_dimid(), 2);
  EXPECT_EQ(h->vars[0].dimids, (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(h->vars[1].dimids, (std::vector<int32_t>{3}));
  // Read back, every dimension is declared in the header's order: the same header again.
  auto io2 = io_from_header(*h, "again");
  ASSERT_TRUE(io2.ok());
  auto h2 = header_from_io(*io2, 5, "t");
  ASSERT_TRUE(h2.ok()) << h2.status().message();
  EXPECT_EQ(dim_names(*h2), dim_names(*h));
  EXPECT_EQ(h2->vars[0].dimids, h->vars[0].dimids);
}

TEST(Schema, AnUndeclaredRecordDimensionFollowsTheDeclaredOnes) {
  IoDef io;
  io.dims = {{"x", 3}};
  io.vars.push_back(variable("sst", true, "x"));
  auto h = header_from_io(io, 5);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(dim_names(*h), (std::vector<std::string>{"x", "time"}));
  EXPECT_EQ(h->vars[0].dimids, (std::vector<int32_t>{1, 0}));
}

TEST(Schema, DeclaredDimensionsThatCannotBeAreRefused) {
  auto refused = [](std::vector<DimensionDef> dims, const std::string& why) {
    IoDef io;
    io.dims = std::move(dims);
    io.vars.push_back(variable("sst", true, "x"));
    auto h = header_from_io(io, 5);
    ASSERT_FALSE(h.ok()) << why;
    EXPECT_NE(h.status().message().find(why), std::string::npos) << h.status().message();
  };
  refused({{"x", 4}}, "has length 3 in variable 'sst' but 4 where it is declared");
  refused({{"x", 3}, {"x", 3}}, "'x' is declared twice");
  refused({{"t", 0}}, "'t' is declared unlimited, but the steps go along 'time'");
  refused({{"time", 5}}, "'time' is declared with length 5, but record variables");
}

}  // namespace
}  // namespace tapio::netcdf

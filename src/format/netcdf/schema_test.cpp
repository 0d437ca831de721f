// The header a set of definitions becomes: the unlimited dimension's name (record_dimension).
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

}  // namespace
}  // namespace tapio::netcdf

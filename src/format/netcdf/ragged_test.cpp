// Joined variables as CF contiguous ragged arrays: the definitions a converted file holds.
#include "format/netcdf/ragged.h"

#include <gtest/gtest.h>

#include "format/netcdf/schema.h"

namespace tapio::netcdf {
namespace {

VariableDef joined(const std::string& name, std::vector<uint64_t> shape,
                   std::vector<std::string> dims) {
  VariableDef v;
  v.name = name;
  v.shape = std::move(shape);
  v.dim_names = std::move(dims);
  v.joined = true;
  return v;
}

TEST(Ragged, JoinedVariablesShareTheirSampleDimensionsCountVariable) {
  IoDef io;
  io.vars.push_back(joined("pos", {0, 3}, {"particle", "xyz"}));
  VariableDef grid;
  grid.name = "t";
  grid.shape = {4};
  grid.dim_names = {"x"};
  io.vars.push_back(grid);
  io.vars.push_back(joined("weight", {0}, {"particle"}));
  io.vars.push_back(joined("ion", {0}, {"ion_sample"}));
  auto out = ragged_definitions(io, {{"particle", 17}, {"ion_sample", 5}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<std::string> names;
  for (const VariableDef& v : out->vars) names.push_back(v.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pos", "particle_count", "t", "weight", "ion",
                                             "ion_sample_count"}));
  const VariableDef& pos = out->vars[0];
  EXPECT_FALSE(pos.joined || pos.record);
  EXPECT_EQ(pos.shape, (std::vector<uint64_t>{17, 3}));
  const VariableDef& count = out->vars[1];
  EXPECT_TRUE(count.record && count.shape.empty());
  EXPECT_EQ(count.type, TAPIO_INT64);
  ASSERT_NE(count.find_attr("sample_dimension"), nullptr);
  EXPECT_EQ(count.find_attr("sample_dimension")->as_string(), "particle");
  EXPECT_EQ(out->vars[2].shape, grid.shape);
  // The NetCDF header of it: `time` unlimited, `particle` fixed at 17.
  auto header = header_from_io(*out, 5);
  ASSERT_TRUE(header.ok()) << header.status().message();
}

TEST(Ragged, NoSamplesInAnyStepIsAnError) {
  IoDef io;
  io.vars.push_back(joined("ion", {0}, {"ion_sample"}));
  auto out = ragged_definitions(io, {{"ion_sample", 0}});
  EXPECT_EQ(out.status().code(), TAPIO_ERR_UNSUPPORTED);
  EXPECT_NE(out.status().message().find("'ion'"), std::string::npos);
}

TEST(Ragged, ACountVariablesNameTakenIsAnError) {
  IoDef io;
  io.vars.push_back(joined("pos", {0}, {"particle"}));
  VariableDef taken;
  taken.name = "particle_count";
  io.vars.push_back(taken);
  auto out = ragged_definitions(io, {{"particle", 2}});
  EXPECT_EQ(out.status().code(), TAPIO_ERR_ARG);
  EXPECT_NE(out.status().message().find("'particle_count'"), std::string::npos);
}

}  // namespace
}  // namespace tapio::netcdf

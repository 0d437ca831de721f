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
  // Count variables last: every variable of `io` keeps its index.
  EXPECT_EQ(names, (std::vector<std::string>{"pos", "t", "weight", "ion", "particle_count",
                                             "ion_sample_count"}));
  const VariableDef& pos = out->vars[0];
  EXPECT_FALSE(pos.joined || pos.record);
  EXPECT_EQ(pos.shape, (std::vector<uint64_t>{17, 3}));
  const VariableDef& count = out->vars[4];
  EXPECT_TRUE(count.record && count.shape.empty());
  EXPECT_EQ(count.type, TAPIO_INT64);
  ASSERT_NE(count.find_attr("sample_dimension"), nullptr);
  EXPECT_EQ(count.find_attr("sample_dimension")->as_string(), "particle");
  EXPECT_EQ(out->vars[1].shape, grid.shape);
  // The NetCDF header of it: `time` unlimited, `particle` fixed at 17; read back, the count
  // variables are found and the variables over their dimensions are joined again.
  auto header = header_from_io(*out, 5);
  ASSERT_TRUE(header.ok()) << header.status().message();
  const std::vector<SampleDim> dims = sample_dims(*header);
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(header->dims[dims[0].dimid].name, "particle");
  EXPECT_EQ(dims[0].count_var, 4);
  EXPECT_EQ(header->dims[dims[1].dimid].name, "ion_sample");
  auto back = io_from_header(*header, "in");
  ASSERT_TRUE(back.ok());
  mark_joined(*header, dims, &*back);
  for (int i : {0, 2, 3}) {
    EXPECT_TRUE(back->vars[i].joined && back->vars[i].record) << back->vars[i].name;
    EXPECT_EQ(back->vars[i].shape[0], 0u);
  }
  EXPECT_FALSE(back->vars[1].joined || back->vars[4].joined);
  EXPECT_EQ(back->vars[0].shape, (std::vector<uint64_t>{0, 3}));
  // Made ragged again (a converted file converted once more), the count variables are
  // replaced, not doubled.
  auto again = ragged_definitions(*back, {{"particle", 17}, {"ion_sample", 5}});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->vars.size(), out->vars.size());
}

TEST(Ragged, AttributesThatDoNotDescribeACountAreOrdinary) {
  Header h;
  h.dims = {Dim{"time", 0}, Dim{"particle", 4}};
  Var fixed_count;  // not over time
  fixed_count.name = "a";
  fixed_count.type = NC_INT;
  fixed_count.dimids = {1};
  fixed_count.attrs = {Attr{"sample_dimension", NC_CHAR, {'p', 'a', 'r', 't', 'i', 'c', 'l', 'e'}}};
  Var real_count = fixed_count;  // over time, but a float
  real_count.name = "b";
  real_count.type = NC_FLOAT;
  real_count.dimids = {0};
  Var no_dim = real_count;  // names a dimension the file lacks
  no_dim.name = "c";
  no_dim.type = NC_INT;
  no_dim.attrs[0].values = {'x'};
  h.vars = {fixed_count, real_count, no_dim};
  EXPECT_TRUE(sample_dims(h).empty());
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

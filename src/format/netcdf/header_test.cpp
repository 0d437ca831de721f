// The header model: types, names, shapes, record size, data offsets, validation, numrecs.
#include "format/netcdf/header.h"

#include <gtest/gtest.h>

#include "format/netcdf/test_util.h"

namespace tapio::netcdf {
namespace {

using testing::make_attr;
using testing::text_attr;

TEST(NcType, SizesAndValidity) {
  EXPECT_EQ(nc_type_size(NC_BYTE), 1u);
  EXPECT_EQ(nc_type_size(NC_CHAR), 1u);
  EXPECT_EQ(nc_type_size(NC_SHORT), 2u);
  EXPECT_EQ(nc_type_size(NC_INT), 4u);
  EXPECT_EQ(nc_type_size(NC_FLOAT), 4u);
  EXPECT_EQ(nc_type_size(NC_DOUBLE), 8u);
  EXPECT_EQ(nc_type_size(NC_UBYTE), 1u);
  EXPECT_EQ(nc_type_size(NC_USHORT), 2u);
  EXPECT_EQ(nc_type_size(NC_UINT), 4u);
  EXPECT_EQ(nc_type_size(NC_INT64), 8u);
  EXPECT_EQ(nc_type_size(NC_UINT64), 8u);
  EXPECT_EQ(nc_type_size(NcType(0)), 0u);
  EXPECT_EQ(nc_type_size(NcType(12)), 0u);

  for (int v : {1, 2, 5}) {
    EXPECT_FALSE(nc_type_valid(0, v));
    for (int t = NC_BYTE; t <= NC_DOUBLE; ++t) EXPECT_TRUE(nc_type_valid(t, v));
    for (int t = NC_UBYTE; t <= NC_UINT64; ++t) EXPECT_EQ(nc_type_valid(t, v), v == 5);
    EXPECT_FALSE(nc_type_valid(12, v));
    EXPECT_FALSE(nc_type_valid(-1, v));
  }
  EXPECT_FALSE(nc_type_valid(NC_INT, 3));
}

TEST(NcType, MapsToTapioTypesBothWays) {
  const std::pair<NcType, DataType> pairs[] = {
      {NC_BYTE, TAPIO_INT8},     {NC_CHAR, TAPIO_CHAR},       {NC_SHORT, TAPIO_INT16},
      {NC_INT, TAPIO_INT32},     {NC_FLOAT, TAPIO_FLOAT32},   {NC_DOUBLE, TAPIO_FLOAT64},
      {NC_UBYTE, TAPIO_UINT8},   {NC_USHORT, TAPIO_UINT16},   {NC_UINT, TAPIO_UINT32},
      {NC_INT64, TAPIO_INT64},   {NC_UINT64, TAPIO_UINT64},
  };
  for (auto [nc, tp] : pairs) {
    EXPECT_EQ(to_nc_type(tp), nc);
    EXPECT_EQ(from_nc_type(nc), tp);
    EXPECT_EQ(nc_type_size(nc), type_size(tp));
  }
  EXPECT_EQ(nc_type_size(to_nc_type(DataType(99))), 0u);
  EXPECT_FALSE(type_is_valid(from_nc_type(NcType(42))));
}

TEST(Attr, CountIsValueBytesOverTypeSize) {
  EXPECT_EQ(make_attr<double>("d", NC_DOUBLE, {1, 2, 3}).count(), 3u);
  EXPECT_EQ(text_attr("t", "hello").count(), 5u);
  EXPECT_EQ(make_attr<int16_t>("s", NC_SHORT, {}).count(), 0u);
  Attr bad;
  bad.type = NcType(0);
  bad.values = {1, 2};
  EXPECT_EQ(bad.count(), 0u);
}

class HeaderModel : public ::testing::Test {
 protected:
  void SetUp() override {
    h.dims = {{"x", 3}, {"time", 0}, {"y", 5}};
    h.vars.resize(4);
    h.vars[0] = {"fixed", {0, 2}, {}, NC_INT, 60, 1000};
    h.vars[1] = {"rec", {1, 0}, {}, NC_SHORT, 8, 2000};
    h.vars[2] = {"rec2", {1}, {}, NC_DOUBLE, 8, 2008};
    h.vars[3] = {"scalar", {}, {}, NC_FLOAT, 4, 1060};
  }
  Header h;
};

TEST_F(HeaderModel, RecordDimensionAndVariables) {
  EXPECT_EQ(h.record_dimid(), 1);
  EXPECT_FALSE(h.is_record(h.vars[0]));
  EXPECT_TRUE(h.is_record(h.vars[1]));
  EXPECT_TRUE(h.is_record(h.vars[2]));
  EXPECT_FALSE(h.is_record(h.vars[3]));
  Header none;
  none.dims = {{"x", 1}};
  EXPECT_EQ(none.record_dimid(), -1);
}

TEST_F(HeaderModel, ShapeAndElements) {
  EXPECT_EQ(h.shape(h.vars[0]), (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(h.shape(h.vars[1]), (std::vector<uint64_t>{3}));  // record dim dropped
  EXPECT_TRUE(h.shape(h.vars[2]).empty());
  EXPECT_TRUE(h.shape(h.vars[3]).empty());
  EXPECT_EQ(h.elements(h.vars[0]), 15u);
  EXPECT_EQ(h.elements(h.vars[1]), 3u);
  EXPECT_EQ(h.elements(h.vars[2]), 1u);
  EXPECT_EQ(h.elements(h.vars[3]), 1u);
}

TEST_F(HeaderModel, RecordSizeIsSumOfVsizes) {
  EXPECT_EQ(h.record_size(), 16u);
  EXPECT_EQ(h.data_offset(h.vars[1], 0), 2000u);
  EXPECT_EQ(h.data_offset(h.vars[1], 3), 2048u);
  EXPECT_EQ(h.data_offset(h.vars[2], 2), 2040u);
  EXPECT_EQ(h.data_offset(h.vars[0], 7), 1000u);  // rec ignored for fixed vars
}

TEST_F(HeaderModel, SingleRecordVariableIsNotPadded) {
  h.vars.erase(h.vars.begin() + 2);  // only "rec" (3 shorts = 6 bytes, vsize 8) remains
  EXPECT_EQ(h.record_size(), 6u);
  EXPECT_EQ(h.data_offset(h.vars[1], 2), 2012u);
}

TEST_F(HeaderModel, FindByName) {
  ASSERT_NE(h.find_var("rec2"), nullptr);
  EXPECT_EQ(h.find_var("rec2")->begin, 2008u);
  EXPECT_EQ(h.find_var("nope"), nullptr);
  EXPECT_EQ(h.find_dim("y"), 2);
  EXPECT_EQ(h.find_dim("nope"), -1);
}

TEST_F(HeaderModel, ComputeVsizeRoundsToFour) {
  EXPECT_EQ(*compute_vsize(h, h.vars[0]), 60u);
  EXPECT_EQ(*compute_vsize(h, h.vars[1]), 8u);  // 6 bytes padded
  EXPECT_EQ(*compute_vsize(h, h.vars[3]), 4u);
  Var c{"c", {0}, {}, NC_CHAR, 0, 0};
  EXPECT_EQ(*compute_vsize(h, c), 4u);
  Var rec_scalar{"r", {1}, {}, NC_BYTE, 0, 0};  // one byte per record
  EXPECT_EQ(*compute_vsize(h, rec_scalar), 4u);
}

TEST_F(HeaderModel, ComputeVsizeRejectsOverflowAndBadIds) {
  h.dims[0].length = uint64_t{1} << 62;
  Result<uint64_t> big = compute_vsize(h, h.vars[0]);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("overflows"), std::string::npos);
  Var bad{"T", {7}, {}, NC_INT, 0, 0};
  Result<uint64_t> r = compute_vsize(h, bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "dimension id 7 out of range in variable 'T'");
}

// ---- validate ----

void expect_invalid(const Header& h, const std::string& fragment) {
  Status s = validate(h);
  EXPECT_FALSE(s.ok()) << "expected: " << fragment;
  EXPECT_EQ(s.code(), TAPIO_ERR_FORMAT);
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(Validate, AcceptsTheSampleHeaders) {
  for (int v : {1, 2, 5}) EXPECT_TRUE(validate(testing::sample_header(v)).ok());
}

TEST(Validate, RejectsBadDefinitions) {
  Header base = testing::sample_header(5);
  Header h = base;
  h.version = 3;
  expect_invalid(h, "unsupported version 3");
  h = base;
  h.dims.push_back({"time2", 0});
  expect_invalid(h, "more than one unlimited dimension: 'time' and 'time2'");
  h = base;
  h.vars[0].dimids = {1, 0};
  expect_invalid(h, "unlimited dimension 'time' is dimension 1 of variable 'fixed_1'");
  h = base;
  h.vars[0].dimids = {1, 9};
  expect_invalid(h, "dimension id 9 out of range in variable 'fixed_1'");
  h = base;
  h.vars[0].dimids = {-1};
  expect_invalid(h, "dimension id -1 out of range");
  h = base;
  h.dims[1].name = "a/b";
  expect_invalid(h, "invalid dimension name 'a/b'");
  h = base;
  h.dims[1].name = "time";
  expect_invalid(h, "duplicate dimension name 'time'");
  h = base;
  h.vars[1].name = h.vars[0].name;
  expect_invalid(h, "duplicate variable name 'fixed_1'");
  h = base;
  h.attrs[1].name = h.attrs[0].name;
  expect_invalid(h, "global attributes: duplicate attribute name 'text'");
  h = base;
  h.vars[0].attrs.push_back(text_attr("units", "again"));
  expect_invalid(h, "variable 'fixed_1': duplicate attribute name 'units'");
  h = base;
  h.vars[0].type = NcType(13);
  expect_invalid(h, "has type 13, invalid in CDF-5");
  h = base;
  h.attrs[2].values.push_back(0);  // shorts: odd number of bytes
  expect_invalid(h, "not a multiple of its type size 2");
  h = base;
  h.attrs[0].name = "";
  expect_invalid(h, "invalid attribute name ''");
}

TEST(Validate, CheckesTypesAndWidthsOfTheVersion) {
  Header h = testing::sample_header(1);
  h.vars[0].type = NC_UINT64;
  expect_invalid(h, "invalid in CDF-1");
  h = testing::sample_header(2);
  h.attrs[0].type = NC_UBYTE;
  expect_invalid(h, "invalid in CDF-2");
  h = testing::sample_header(2);
  h.dims[1].length = uint64_t{1} << 32;
  expect_invalid(h, "dimension length 4294967296 does not fit CDF-2");
  h.version = 5;
  h.attrs.clear();  // the CDF-2 sample has no CDF-5-only attrs; lengths are now fine
  EXPECT_TRUE(validate(h).ok()) << validate(h).message();
  h = testing::sample_header(1);
  h.vars[0].begin = uint64_t{1} << 31;
  expect_invalid(h, "past the CDF-1 offset limit");
  h.version = 2;
  EXPECT_TRUE(validate(h).ok());
  h.numrecs = uint64_t{1} << 32;
  expect_invalid(h, "numrecs 4294967296 does not fit CDF-2");
  h.numrecs = UINT32_MAX;  // STREAMING
  EXPECT_TRUE(validate(h).ok());
  h = testing::sample_header(5);
  h.numrecs = UINT64_MAX;  // STREAMING
  EXPECT_TRUE(validate(h).ok());
  h.numrecs = uint64_t{1} << 63;
  expect_invalid(h, "numrecs");
}

// ---- numrecs ----

TEST(Numrecs, WidthAndBigEndianEncoding) {
  EXPECT_EQ(kNumrecsOffset, 4u);
  EXPECT_EQ(numrecs_width(1), 4);
  EXPECT_EQ(numrecs_width(2), 4);
  EXPECT_EQ(numrecs_width(5), 8);
  uint8_t out[8] = {};
  ASSERT_EQ(encode_numrecs(2, 0x01020304, out), 4);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4), (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(decode_numrecs(2, out), 0x01020304u);
  ASSERT_EQ(encode_numrecs(5, 0x0102030405060708, out), 8);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 8), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(decode_numrecs(5, out), 0x0102030405060708u);
}

TEST(Numrecs, MatchesTheHeaderBytes) {
  for (int v : {1, 2, 5}) {
    Header h = testing::sample_header(v);
    h.numrecs = 123456;
    std::vector<uint8_t> bytes = testing::layout_and_encode(h);
    uint8_t out[8];
    const int w = encode_numrecs(v, 123456, out);
    EXPECT_EQ(std::vector<uint8_t>(out, out + w),
              std::vector<uint8_t>(bytes.begin() + kNumrecsOffset,
                                   bytes.begin() + kNumrecsOffset + w));
    EXPECT_EQ(decode_numrecs(v, bytes.data() + kNumrecsOffset), 123456u);
  }
}

}  // namespace
}  // namespace tapio::netcdf

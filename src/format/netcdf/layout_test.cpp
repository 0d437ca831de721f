// compute_layout and header_extent.
#include "format/netcdf/layout.h"

#include <gtest/gtest.h>

#include "format/netcdf/test_util.h"

namespace tapio::netcdf {
namespace {

using testing::sample_header;

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

LayoutOptions options(uint64_t align, uint64_t pad) {
  LayoutOptions o;
  o.data_align = align;
  o.header_pad = pad;
  return o;
}

class LayoutAlign : public ::testing::TestWithParam<std::tuple<int, uint64_t, uint64_t>> {};

// Every rule of the layout, checked on the sample header of each version.
TEST_P(LayoutAlign, FixedVarsAlignedRecordVarsPacked) {
  auto [version, align, pad] = GetParam();
  Header h = sample_header(version);
  ASSERT_TRUE(compute_layout(h, options(align, pad)).ok());

  uint64_t expect = round_up(encoded_size(h) + pad, align);
  EXPECT_EQ(header_extent(h), expect);
  for (const Var& v : h.vars) {  // fixed vars: in order, each aligned
    if (h.is_record(v)) continue;
    EXPECT_EQ(v.vsize, *compute_vsize(h, v)) << v.name;
    EXPECT_EQ(v.begin, round_up(expect, align)) << v.name;
    expect = v.begin + v.vsize;
  }
  expect = round_up(expect, align);  // record section: aligned, then packed
  uint64_t record = 0;
  for (const Var& v : h.vars) {
    if (!h.is_record(v)) continue;
    EXPECT_EQ(v.begin, expect) << v.name;
    expect += v.vsize;
    record += v.vsize;
  }
  EXPECT_EQ(h.record_size(), record);
}

INSTANTIATE_TEST_SUITE_P(Options, LayoutAlign,
                         ::testing::Combine(::testing::Values(1, 2, 5),
                                            ::testing::Values(4, 8, 512, 4096),
                                            ::testing::Values(0, 1, 100, 5000)));

TEST(Layout, HeaderPadIsFreeSpaceAfterTheHeader) {
  Header h = sample_header(5);
  ASSERT_TRUE(compute_layout(h, options(4, 0)).ok());
  const uint64_t tight = header_extent(h);
  EXPECT_EQ(tight, encoded_size(h));  // encoded sizes are multiples of 4
  ASSERT_TRUE(compute_layout(h, options(4, 1000)).ok());
  EXPECT_EQ(header_extent(h), tight + 1000);
  // Attributes that take up to header_pad bytes still fit in front of the data.
  h.attrs.push_back(testing::text_attr("added", std::string(900, 'a')));
  EXPECT_LE(encoded_size(h), header_extent(h));
}

TEST(Layout, SingleRecordVariableKeepsPaddedVsizeButPacksRecords) {
  Header h;
  h.version = 1;
  h.dims = {{"time", 0}, {"x", 3}};
  h.vars.push_back(Var{"fixed", {1}, {}, NC_INT, 0, 0});
  h.vars.push_back(Var{"v", {0, 1}, {}, NC_SHORT, 0, 0});
  ASSERT_TRUE(compute_layout(h, options(4, 0)).ok());
  EXPECT_EQ(h.vars[1].vsize, 8u);  // 6 bytes, written as if padded
  EXPECT_EQ(h.record_size(), 6u);  // but records are not padded
  EXPECT_EQ(h.vars[1].begin, h.vars[0].begin + 12);
  EXPECT_EQ(h.data_offset(h.vars[1], 2), h.vars[1].begin + 12);
  // A second record variable brings the padding back.
  h.vars.push_back(Var{"w", {0}, {}, NC_BYTE, 0, 0});
  ASSERT_TRUE(compute_layout(h, options(4, 0)).ok());
  EXPECT_EQ(h.record_size(), 8u + 4u);
  EXPECT_EQ(h.vars[2].begin, h.vars[1].begin + 8);
}

TEST(Layout, LocateMapsFileBytesBackToElements) {
  Header h;
  h.version = 5;
  h.dims = {{"time", 0}, {"x", 3}, {"y", 5}};
  h.vars.push_back(Var{"fixed", {2}, {}, NC_SHORT, 0, 0});   // 5 shorts (vsize 12)
  h.vars.push_back(Var{"a", {0, 1}, {}, NC_DOUBLE, 0, 0});   // 3 doubles per record
  h.vars.push_back(Var{"b", {0, 2}, {}, NC_SHORT, 0, 0});    // 5 shorts (10 bytes, vsize 12)
  ASSERT_TRUE(compute_layout(h, options(4, 0)).ok());
  const uint64_t fixed = h.vars[0].begin, a = h.vars[1].begin, b = h.vars[2].begin;
  DataPlace p = locate(h, fixed + 4, 4);  // elements 2 and 3 of the fixed variable
  EXPECT_EQ(p.var, 0);
  EXPECT_EQ(p.record, 0u);
  EXPECT_EQ(p.first, 2u);
  EXPECT_EQ(p.end, 4u);
  p = locate(h, h.data_offset(h.vars[1], 2) + 12, 100);  // from inside element 1, cut at 3
  EXPECT_EQ(p.var, 1);
  EXPECT_EQ(p.record, 2u);
  EXPECT_EQ(p.first, 1u);
  EXPECT_EQ(p.end, 3u);
  p = locate(h, b + 7 * h.record_size() + 2, 3);  // bytes 2-4 of record 7: elements 1 and 2
  EXPECT_EQ(p.var, 2);
  EXPECT_EQ(p.record, 7u);
  EXPECT_EQ(p.first, 1u);
  EXPECT_EQ(p.end, 3u);
  EXPECT_EQ(locate(h, 0, 4).var, -1);             // the header
  EXPECT_EQ(locate(h, fixed + 10, 1).var, -1);    // padding after the fixed variable
  EXPECT_EQ(locate(h, b + 10, 2).var, -1);        // b's vsize padding inside a record
  EXPECT_EQ(a, fixed + 12);  // the layout the cases above assume (alignment 4)
}

TEST(Layout, RecordVarsOnlyStartAtTheExtent) {
  Header h;
  h.version = 2;
  h.dims = {{"time", 0}};
  h.vars.push_back(Var{"t", {0}, {}, NC_DOUBLE, 0, 0});
  h.vars.push_back(Var{"u", {0}, {}, NC_FLOAT, 0, 0});
  ASSERT_TRUE(compute_layout(h, options(256, 10)).ok());
  EXPECT_EQ(h.vars[0].begin, round_up(encoded_size(h) + 10, 256));
  EXPECT_EQ(h.vars[1].begin, h.vars[0].begin + 8);
  EXPECT_EQ(header_extent(h), h.vars[0].begin);
}

TEST(Layout, ExtentIsTheSmallestBeginWhateverTheOrder) {
  Header h;
  h.version = 5;
  h.dims = {{"time", 0}, {"x", 10}};
  h.vars.push_back(Var{"r", {0, 1}, {}, NC_INT, 0, 0});  // record var defined first
  h.vars.push_back(Var{"f", {1}, {}, NC_INT, 0, 0});
  ASSERT_TRUE(compute_layout(h, options(64, 0)).ok());
  EXPECT_LT(h.vars[1].begin, h.vars[0].begin);  // fixed data comes first in the file
  EXPECT_EQ(header_extent(h), h.vars[1].begin);
  EXPECT_EQ(h.vars[0].begin, round_up(h.vars[1].begin + 40, 64));
}

TEST(Layout, HeaderExtentWithoutVariables) {
  Header h;
  h.version = 1;
  h.attrs.push_back(testing::text_attr("title", "x"));
  const uint64_t size = encoded_size(h);
  EXPECT_EQ(header_extent(h), round_up(size, 512));  // default options
  EXPECT_EQ(header_extent(h, options(4, 0)), size);
  EXPECT_EQ(header_extent(h, options(8, 100)), round_up(size + 100, 8));
  EXPECT_EQ(header_extent(h, options(3, 0)), round_up(size, 4));  // invalid align counts as 4
}

TEST(Layout, RejectsBadAlignment) {
  for (uint64_t align : {0, 1, 2, 3, 6, 12, 1000}) {
    Header h = sample_header(1);
    Status s = compute_layout(h, options(align, 0));
    EXPECT_EQ(s.code(), TAPIO_ERR_ARG) << align;
    EXPECT_NE(s.message().find("power of two"), std::string::npos);
  }
  Header h = sample_header(1);
  EXPECT_EQ(compute_layout(h, options(4, UINT64_MAX - 2)).code(), TAPIO_ERR_ARG);
}

TEST(Layout, RejectsInvalidHeaderAsArgument) {
  Header h = sample_header(2);
  h.dims.push_back({"again", 0});
  Status s = compute_layout(h, options(4, 0));
  EXPECT_EQ(s.code(), TAPIO_ERR_ARG);
  EXPECT_NE(s.message().find("more than one unlimited"), std::string::npos);
}

TEST(Layout, StaleBeginsAreIgnored) {
  Header h = sample_header(1);
  for (Var& v : h.vars) v.begin = uint64_t{1} << 40;  // e.g. copied from a CDF-5 header
  EXPECT_TRUE(compute_layout(h, options(4, 0)).ok());
}

TEST(Layout, Cdf1OffsetsMustStayBelow2GiB) {
  Header h;
  h.version = 1;
  h.dims = {{"x", uint64_t{1} << 28}};  // 1 GiB of ints per variable
  for (const char* name : {"a", "b", "c"}) h.vars.push_back(Var{name, {0}, {}, NC_INT, 0, 0});
  const Header before = h;
  Status s = compute_layout(h, options(4, 0));
  EXPECT_EQ(s.code(), TAPIO_ERR_UNSUPPORTED);
  EXPECT_NE(s.message().find("variable 'c': begin"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("CDF-1"), std::string::npos);
  EXPECT_TRUE(testing::same_header(h, before));  // unchanged on error
  h.vars.pop_back();
  EXPECT_TRUE(compute_layout(h, options(4, 0)).ok());  // b begins below 2^31
  h.version = 2;
  h.vars.push_back(Var{"c", {0}, {}, NC_INT, 0, 0});
  EXPECT_TRUE(compute_layout(h, options(4, 0)).ok());  // fine with 64-bit offsets
  EXPECT_GT(h.vars[2].begin, uint64_t{1} << 31);
}

TEST(Layout, Cdf1VariableSizeLimit) {
  Header h;
  h.version = 1;
  h.dims = {{"x", (uint64_t{1} << 31) - 4}};
  h.vars.push_back(Var{"ok", {0}, {}, NC_BYTE, 0, 0});
  EXPECT_TRUE(compute_layout(h, options(4, 0)).ok());
  h.dims[0].length += 1;
  Status s = compute_layout(h, options(4, 0));
  EXPECT_EQ(s.code(), TAPIO_ERR_UNSUPPORTED);
  EXPECT_NE(s.message().find("vsize 2147483648 exceeds the CDF-1 limit 2147483644"),
            std::string::npos) << s.message();
}

TEST(Layout, Cdf2VariablesStayBelow4GiB) {
  Header h;
  h.version = 2;
  h.dims = {{"time", 0}, {"x", (uint64_t{1} << 32) - 4}};
  h.vars.push_back(Var{"max", {1}, {}, NC_BYTE, 0, 0});  // vsize 2^32-4: the largest
  EXPECT_TRUE(compute_layout(h, options(4, 0)).ok()) << compute_layout(h, options(4, 0)).message();
  h.vars.push_back(Var{"rec", {0, 1}, {}, NC_SHORT, 0, 0});  // one record of 8 GiB
  Status s = compute_layout(h, options(4, 0));
  EXPECT_EQ(s.code(), TAPIO_ERR_UNSUPPORTED);
  EXPECT_NE(s.message().find("variable 'rec': vsize"), std::string::npos) << s.message();
  h.version = 5;
  EXPECT_TRUE(compute_layout(h, options(4, 0)).ok());
  EXPECT_EQ(h.vars[1].vsize, ((uint64_t{1} << 32) - 4) * 2);
}

TEST(Layout, Cdf5RejectsOffsetsPast2To63) {
  Header h;
  h.version = 5;
  h.dims = {{"x", uint64_t{1} << 59}};
  h.vars.push_back(Var{"a", {0}, {}, NC_DOUBLE, 0, 0});  // 2^62 bytes
  h.vars.push_back(Var{"b", {0}, {}, NC_DOUBLE, 0, 0});  // begins near 2^62
  EXPECT_TRUE(compute_layout(h, options(4, 0)).ok());
  h.vars.push_back(Var{"c", {0}, {}, NC_DOUBLE, 0, 0});  // would begin past 2^63 - 1
  Status s = compute_layout(h, options(4, 0));
  EXPECT_EQ(s.code(), TAPIO_ERR_UNSUPPORTED);
  EXPECT_NE(s.message().find("variable 'c'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tapio::netcdf

// Encoder bytes and encode -> decode round trips.
#include <gtest/gtest.h>

#include "format/netcdf/header.h"
#include "format/netcdf/layout.h"
#include "format/netcdf/test_util.h"

namespace tapio::netcdf {
namespace {

using testing::layout_and_encode;
using testing::make_attr;
using testing::same_header;
using testing::sample_header;
using Bytes = std::vector<uint8_t>;

Result<Header> decode_all(const Bytes& b) {
  size_t need_more = 1;
  Result<Header> r = decode(b.data(), b.size(), b.size(), &need_more);
  EXPECT_EQ(need_more, 0u);
  return r;
}

// The spec's smallest file: "netcdf empty { }" is 32 bytes.
TEST(Encode, EmptyClassicFileIsTheSpecs32Bytes) {
  Header h;
  h.version = 1;
  Bytes expected = {'C', 'D', 'F', 1};
  expected.resize(32, 0);
  EXPECT_EQ(encode(h), expected);
  EXPECT_EQ(encoded_size(h), 32u);
}

// ABSENT = ZERO ZERO64 in CDF-5: 4 + 8 (numrecs) + 3 * 12.
TEST(Encode, EmptyCdf5HeaderUses64BitCounts) {
  Header h;
  h.version = 5;
  Bytes expected = {'C', 'D', 'F', 5};
  expected.resize(48, 0);
  EXPECT_EQ(encode(h), expected);
}

// The spec's "tiny" example: dim = 5; short vx(dim); data at offset 80.
TEST(Encode, TinyExampleFromTheSpec) {
  Header h;
  h.version = 1;
  h.dims = {{"dim", 5}};
  h.vars.push_back(Var{"vx", {0}, {}, NC_SHORT, 0, 0});
  const Bytes bytes = layout_and_encode(h);
  const Bytes expected = {
      0x43, 0x44, 0x46, 0x01, 0, 0, 0, 0,    0, 0, 0, 0x0a, 0, 0, 0, 1,     // magic numrecs dims
      0,    0,    0,    3,    'd', 'i', 'm', 0, 0, 0, 0, 5,  0, 0, 0, 0,    // "dim" 5 | gatts
      0,    0,    0,    0,    0, 0, 0, 0x0b, 0, 0, 0, 1,   0, 0, 0, 2,    // ABSENT | vars | "vx"
      'v',  'x',  0,    0,    0, 0, 0, 1,    0, 0, 0, 0,   0, 0, 0, 0,    // rank 1, dimid 0, atts
      0,    0,    0,    0,    0, 0, 0, 3,    0, 0, 0, 0x0c, 0, 0, 0, 0x50,  // SHORT vsize 12 @80
  };
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(h.vars[0].vsize, 12u);
  EXPECT_EQ(h.vars[0].begin, 80u);
}

// Field widths per version: NON_NEG 4/4/8 bytes, OFFSET 4/8/8 bytes.
TEST(Encode, FieldWidthsPerVersion) {
  Header h;
  h.dims = {{"x", 3}};
  h.vars.push_back(Var{"v", {0}, {}, NC_INT, 12, 200});
  h.version = 1;
  EXPECT_EQ(encode(h).size(), 80u);
  h.version = 2;
  EXPECT_EQ(encode(h).size(), 84u);
  h.version = 5;
  const Bytes b = encode(h);
  ASSERT_EQ(b.size(), 128u);
  // The last 8 bytes are begin, the 8 before are vsize, big-endian.
  EXPECT_EQ(Bytes(b.end() - 16, b.end()),
            (Bytes{0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 200}));
}

TEST(Encode, AttributeValuesAreBigEndianAndPadded) {
  Header h;
  h.version = 1;
  h.attrs.push_back(make_attr<int16_t>("s", NC_SHORT, {-300, 2, 3}));  // 6 bytes + 2 pad
  const Bytes b = encode(h);
  // magic numrecs | dim ABSENT | NC_ATTRIBUTE 1 | name 1 "s"+pad | NC_SHORT | 3 | values
  const Bytes attr(b.begin() + 24, b.begin() + 24 + 24);
  EXPECT_EQ(attr, (Bytes{0, 0, 0, 1, 's', 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 3,  // name, type, n
                         0xFE, 0xD4, 0, 2, 0, 3, 0, 0}));                    // values, pad
  EXPECT_EQ(b.size(), 24u + 24u + 8u);
}

TEST(Encode, LargeVsizeIsStoredAsAllOnesInCdf2) {
  Header h;
  h.version = 2;
  h.dims = {{"x", uint64_t{1} << 31}};
  h.vars.push_back(Var{"v", {0}, {}, NC_DOUBLE, uint64_t{1} << 34, 4096});
  const Bytes b = encode(h);
  EXPECT_EQ(Bytes(b.end() - 12, b.end() - 8), (Bytes{0xFF, 0xFF, 0xFF, 0xFF}));
  Result<Header> back = decode(b.data(), b.size(), b.size(), nullptr);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->vars[0].vsize, uint64_t{1} << 34);  // recomputed from the shape
}

TEST(Encode, EncodedSizeMatchesEncode) {
  for (int v : {1, 2, 5}) {
    Header h = sample_header(v);
    EXPECT_EQ(encoded_size(h), encode(h).size());
  }
}

class RoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(RoundTrip, EveryFeatureOfTheVersion) {
  Header h = sample_header(GetParam());
  const Bytes bytes = layout_and_encode(h);
  Result<Header> back = decode_all(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(same_header(h, *back));
  EXPECT_EQ(encode(*back), bytes);
}

TEST_P(RoundTrip, WithDataAfterTheHeader) {
  Header h = sample_header(GetParam());
  LayoutOptions options;
  options.data_align = 512;
  options.header_pad = 1000;
  ASSERT_TRUE(compute_layout(h, options).ok());
  Bytes file = encode(h);
  file.resize(h.vars.back().begin + 4096, 0xAB);  // data bytes follow
  Result<Header> back = decode_all(file);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(same_header(h, *back));
}

TEST_P(RoundTrip, AttributeValuesComeBackInHostOrder) {
  Header h = sample_header(GetParam());
  Result<Header> back = decode_all(layout_and_encode(h));
  ASSERT_TRUE(back.ok());
  const Attr* shorts = testing::find_attr(back->attrs, "shorts");
  ASSERT_NE(shorts, nullptr);
  EXPECT_EQ(testing::attr_value<int16_t>(*shorts, 0), -300);
  const Attr* doubles = testing::find_attr(back->vars[back->vars.size() - 3].attrs, "doubles");
  ASSERT_NE(doubles, nullptr);
  EXPECT_EQ(testing::attr_value<double>(*doubles, 1), -1e300);
  EXPECT_EQ(testing::attr_text(*testing::find_attr(back->attrs, "text")), "hello");
  EXPECT_EQ(testing::find_attr(back->attrs, "empty")->count(), 0u);
  if (GetParam() == 5) {
    EXPECT_EQ(testing::attr_value<uint64_t>(*testing::find_attr(back->attrs, "uint64s"), 0),
              18000000000000000000ULL);
    EXPECT_EQ(testing::attr_value<int64_t>(*testing::find_attr(back->attrs, "int64s"), 0),
              -9000000000LL);
  }
}

TEST_P(RoundTrip, EmptyListsAndZeroDimVars) {
  Header h;
  h.version = GetParam();
  h.vars.push_back(Var{"a", {}, {}, NC_BYTE, 0, 0});
  h.vars.push_back(Var{"b", {}, {}, NC_CHAR, 0, 0});
  const Bytes bytes = layout_and_encode(h);
  Result<Header> back = decode_all(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(same_header(h, *back));
  EXPECT_EQ(back->vars[0].vsize, 4u);
  EXPECT_EQ(back->vars[1].begin, back->vars[0].begin + 4);
}

TEST(RoundTripCdf5, SixtyFourBitValues) {
  Header h;
  h.version = 5;
  h.numrecs = uint64_t{1} << 40;
  h.dims = {{"rec", 0}, {"big", uint64_t{1} << 36}};
  h.vars.push_back(Var{"v", {1}, {}, NC_UINT64, 0, 0});
  // One byte per record: the 2^40 records end inside a signed 64-bit file offset.
  h.vars.push_back(Var{"r", {0}, {}, NC_UBYTE, 0, 0});
  const Bytes bytes = layout_and_encode(h);
  Result<Header> back = decode_all(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(same_header(h, *back));
  EXPECT_EQ(back->vars[0].vsize, uint64_t{1} << 39);
  EXPECT_EQ(back->vars[1].begin, back->vars[0].begin + (uint64_t{1} << 39));
}

INSTANTIATE_TEST_SUITE_P(Versions, RoundTrip, ::testing::Values(1, 2, 5),
                         [](const auto& info) { return "CDF" + std::to_string(info.param); });

}  // namespace
}  // namespace tapio::netcdf

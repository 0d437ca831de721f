// decode() on corrupt, truncated and hostile input: every path returns an error (or asks for
// more bytes), never reads out of bounds, never allocates from an unchecked count.
#include <gtest/gtest.h>

#include <random>

#include "format/netcdf/header.h"
#include "format/netcdf/layout.h"
#include "format/netcdf/test_util.h"

namespace tapio::netcdf {
namespace {

using testing::layout_and_encode;
using testing::sample_header;
using Bytes = std::vector<uint8_t>;

// Decode all of `b`, expect TAPIO_ERR_FORMAT with `fragment` in the message.
void expect_format_error(const Bytes& b, const std::string& fragment) {
  size_t need_more = 99;
  Result<Header> r = decode(b.data(), b.size(), b.size(), &need_more);
  ASSERT_FALSE(r.ok()) << "expected: " << fragment;
  EXPECT_EQ(r.status().code(), TAPIO_ERR_FORMAT);
  EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
  EXPECT_EQ(need_more, 0u);
}

void put_be(Bytes& b, size_t at, uint64_t v, int width) {
  for (int i = 0; i < width; ++i) b[at + i] = uint8_t(v >> (8 * (width - 1 - i)));
}

void append_be(Bytes& b, uint64_t v, int width) {
  b.resize(b.size() + width);
  put_be(b, b.size() - width, v, width);
}

// "CDF" version numrecs, then the caller appends the rest.
Bytes prefix(int version) {
  Bytes b = {'C', 'D', 'F', uint8_t(version)};
  append_be(b, 0, version == 5 ? 8 : 4);
  return b;
}

// A header with dims {x=3}, one var v(x) int, laid out: the fields are at fixed offsets.
Header one_var(int version) {
  Header h;
  h.version = version;
  h.dims = {{"x", 3}};
  h.vars.push_back(Var{"v", {0}, {}, NC_INT, 0, 0});
  LayoutOptions o;
  o.data_align = 4;
  EXPECT_TRUE(compute_layout(h, o).ok());
  return h;
}

TEST(Corrupt, BadMagic) {
  Bytes b = encode(sample_header(1));
  b[0] = 'X';
  expect_format_error(b, "not a NetCDF file (bad magic)");
  expect_format_error(Bytes{'C', 'D', 'G', 1, 0, 0, 0, 0}, "bad magic");
  expect_format_error(Bytes{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'}, "HDF5/NetCDF-4");
}

TEST(Corrupt, BadVersion) {
  for (int v : {0, 3, 4, 6, 255}) {
    Bytes b = prefix(1);
    b[3] = uint8_t(v);
    b.resize(64, 0);
    expect_format_error(b, fmt::format("unsupported version byte {}", v));
  }
}

TEST(Corrupt, EmptyAndTinyInputs) {
  expect_format_error(Bytes{}, "truncated header at byte 0");
  expect_format_error(Bytes{'C', 'D'}, "truncated header at byte 0");
  size_t need_more = 5;
  Result<Header> r = decode(nullptr, 0, 0, &need_more);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(need_more, 0u);
  const Bytes b = encode(sample_header(2));
  EXPECT_FALSE(decode(b.data(), 10, 10, nullptr).ok());  // need_more may be null
}

class Truncated : public ::testing::TestWithParam<int> {};

// Truncated at every byte: an error naming the truncation, never a crash or a header.
TEST_P(Truncated, AtEveryByteOfAValidHeader) {
  Header h = sample_header(GetParam());
  const Bytes b = layout_and_encode(h);
  for (size_t n = 0; n < b.size(); ++n) {
    size_t need_more = 99;
    Bytes cut(b.begin(), b.begin() + n);  // exact-size copy so ASan sees any overread
    Result<Header> r = decode(cut.data(), cut.size(), cut.size(), &need_more);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().code(), TAPIO_ERR_FORMAT);
    EXPECT_EQ(r.status().message().rfind("truncated header at byte ", 0), 0u)
        << n << ": " << r.status().message();
    EXPECT_EQ(need_more, 0u) << n;
  }
}

// The same prefixes of a longer file: decode asks for more, and more is enough.
TEST_P(Truncated, PrefixOfALongerFileAsksForMore) {
  Header h = sample_header(GetParam());
  const Bytes b = layout_and_encode(h);
  for (size_t n = 0; n < b.size(); ++n) {
    size_t need_more = 0;
    Bytes cut(b.begin(), b.begin() + n);
    Result<Header> r = decode(cut.data(), cut.size(), b.size(), &need_more);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().message().rfind("header continues past byte", 0), 0u)
        << r.status().message();
    ASSERT_GT(need_more, n);
    ASSERT_LE(need_more, b.size());
  }
}

// The protocol a reader follows: read a little, then what decode asks for, until it decodes.
TEST_P(Truncated, NeedMoreProtocolConverges) {
  Header h = sample_header(GetParam());
  const Bytes header = layout_and_encode(h);
  Bytes file = header;
  file.resize(header.size() + 100000, 0);  // data follows
  size_t have = 16;
  int rounds = 0;
  for (;; ++rounds) {
    ASSERT_LT(rounds, 20);
    size_t need_more = 0;
    Result<Header> r = decode(file.data(), have, file.size(), &need_more);
    if (r.ok()) {
      EXPECT_TRUE(testing::same_header(h, *r));
      break;
    }
    ASSERT_GT(need_more, have) << r.status().message();
    have = need_more;
  }
  EXPECT_LE(rounds, 8);  // geometric growth: few round trips
}

INSTANTIATE_TEST_SUITE_P(Versions, Truncated, ::testing::Values(1, 2, 5));

TEST(Corrupt, HugeDimensionCount) {
  for (int v : {1, 2, 5}) {
    const int w = v == 5 ? 8 : 4;
    Bytes b = prefix(v);
    append_be(b, 0x0A, 4);  // NC_DIMENSION
    append_be(b, v == 5 ? (uint64_t{1} << 62) : 0xFFFFFFFFu, w);
    b.resize(b.size() + 64, 0);
    expect_format_error(b, "dimension list count");
    // Even when the file claims to be large, the count must fit in it before we read on.
    size_t need_more = 0;
    Result<Header> r = decode(b.data(), b.size(), uint64_t{1} << 20, &need_more);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(need_more, 0u);
  }
}

TEST(Corrupt, HugeNameLength) {
  Bytes b = prefix(1);
  append_be(b, 0x0A, 4);
  append_be(b, 1, 4);
  append_be(b, 0xFFFFFFF0u, 4);  // name length
  b.resize(b.size() + 32, 'a');
  expect_format_error(b, "truncated header at byte 20: dimension name needs 4294967280 bytes");
}

TEST(Corrupt, HugeAttributeCounts) {
  Bytes b = prefix(5);
  append_be(b, 0, 4);      // dim_list ABSENT = ZERO ...
  append_be(b, 0, 8);      // ... ZERO64
  append_be(b, 0x0C, 4);   // NC_ATTRIBUTE
  append_be(b, 1, 8);      // one attribute
  append_be(b, 1, 8);      // name length 1
  b.insert(b.end(), {'a', 0, 0, 0});
  append_be(b, NC_DOUBLE, 4);
  append_be(b, (uint64_t{1} << 62) - 1, 8);  // count * 8 overflows 64 bits
  b.resize(b.size() + 64, 0);
  expect_format_error(b, "attribute values count 4611686018427387903");

  Bytes many = prefix(1);
  append_be(many, 0, 4);  // dim_list ABSENT
  append_be(many, 0, 4);
  append_be(many, 0x0C, 4);
  append_be(many, 0x7FFFFFFF, 4);  // 2^31 attributes in a 100-byte file
  many.resize(100, 0);
  expect_format_error(many, "attribute list count 2147483647");
}

TEST(Corrupt, HugeVariableCountAndRank) {
  Header h = one_var(1);
  Bytes b = encode(h);
  put_be(b, 40, 0x10000000, 4);  // var_list nelems
  expect_format_error(b, "variable list count 268435456");
  b = encode(h);
  put_be(b, 52, 0xFFFFFFFF, 4);  // rank of v
  expect_format_error(b, "dimension ids count 4294967295");
}

TEST(Corrupt, DimensionIdOutOfRange) {
  Header h = one_var(1);
  Bytes b = encode(h);
  put_be(b, 56, 7, 4);  // dimid of v
  expect_format_error(b, "dimension id 7 out of range in variable 'v' (byte 56)");
  h.vars[0].dimids = {0, 1};  // encode() writes whatever the model says
  expect_format_error(encode(h), "dimension id 1 out of range in variable 'v'");
}

TEST(Corrupt, TwoUnlimitedDimensions) {
  for (int v : {1, 2, 5}) {
    Header h = one_var(v);
    h.dims = {{"time", 0}, {"x", 3}, {"time2", 0}};
    expect_format_error(encode(h), "more than one unlimited dimension: 'time' and 'time2'");
  }
}

TEST(Corrupt, UnlimitedDimensionNotFirst) {
  Header h = one_var(2);
  h.dims = {{"x", 3}, {"time", 0}};
  h.vars[0].dimids = {0, 1};
  expect_format_error(encode(h),
                      "unlimited dimension 'time' is dimension 1 of variable 'v'; it may only "
                      "be the first");
}

TEST(Corrupt, BeginInsideTheHeader) {
  Header h = one_var(5);
  h.vars[0].begin = encoded_size(h) - 1;
  expect_format_error(encode(h), "variable 'v' begins at byte 127, inside the header (which "
                                 "ends at byte 128)");
  h.vars[0].begin = 0;
  expect_format_error(encode(h), "inside the header");
  h.vars[0].begin = encoded_size(h);  // right after the header is fine
  Bytes b = encode(h);
  EXPECT_TRUE(decode(b.data(), b.size(), b.size(), nullptr).ok());
}

TEST(Corrupt, NegativeFieldsInCdf5AndCdf1) {
  Header h = one_var(5);
  Bytes b = encode(h);
  b[4] = 0x80;  // numrecs
  expect_format_error(b, "negative numrecs at byte 4");
  b = encode(h);
  b[36] = 0x80;  // dim_length of x
  expect_format_error(b, "negative dimension length at byte 36");
  b = encode(h);
  b[b.size() - 8] = 0x80;  // begin
  expect_format_error(b, "negative begin at byte 120");
  h = one_var(1);
  b = encode(h);
  b[b.size() - 4] = 0x80;  // CDF-1 begin is a signed 32-bit INT
  expect_format_error(b, "negative begin at byte 76");
  // numrecs STREAMING (all ones) is not negative.
  h = one_var(5);
  b = encode(h);
  put_be(b, 4, UINT64_MAX, 8);
  Result<Header> r = decode(b.data(), b.size(), b.size(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->numrecs, UINT64_MAX);
}

TEST(Corrupt, BadTagsAndAbsent) {
  Header h = one_var(1);
  Bytes b = encode(h);
  put_be(b, 8, 0x0B, 4);  // NC_VARIABLE where NC_DIMENSION belongs
  expect_format_error(b, "dimension list at byte 8: tag 0x0000000b, expected 0x0000000a");
  b = encode(h);
  put_be(b, 28, 0, 4);  // gatt_list ABSENT = ZERO ZERO ...
  put_be(b, 32, 5, 4);  // ... but a count of 5
  expect_format_error(b, "attribute list at byte 28: ABSENT tag with count 5");
  // A list tag with a zero count is read as empty.
  b = encode(h);
  put_be(b, 28, 0x0C, 4);
  Result<Header> r = decode(b.data(), b.size(), b.size(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->attrs.empty());
}

TEST(Corrupt, BadTypes) {
  Header h = one_var(1);
  Bytes b = encode(h);
  put_be(b, 68, 0, 4);  // nc_type of v
  expect_format_error(b, "variable type at byte 68: type 0 is not valid in CDF-1");
  put_be(b, 68, NC_UINT64, 4);  // a CDF-5 type in a CDF-1 file
  expect_format_error(b, "type 11 is not valid in CDF-1");
  Header a = one_var(2);
  a.attrs.push_back(testing::make_attr<int32_t>("n", NC_INT, {1}));
  b = encode(a);
  put_be(b, 44, 12, 4);  // attribute nc_type
  expect_format_error(b, "attribute type at byte 44: type 12 is not valid in CDF-2");
}

TEST(Corrupt, InvalidNames) {
  Header h = one_var(1);
  Bytes b = encode(h);
  b[20] = '/';  // the dimension's name "x"
  expect_format_error(b, "invalid dimension name '/' at byte 16");
  b[20] = 0x01;
  expect_format_error(b, "invalid dimension name '\\x01' at byte 16");
  b = encode(h);
  b[48] = 0xC3;  // "v" -> a lone UTF-8 lead byte
  expect_format_error(b, "invalid variable name");
  put_be(b, 16, 0, 4);  // empty name of length 0
  expect_format_error(b, "invalid dimension name '' at byte 16");
  h.vars.push_back(h.vars[0]);  // duplicate variable name
  h.vars[1].begin += 16;
  expect_format_error(encode(h), "duplicate variable name 'v'");
}

TEST(Corrupt, VsizeInTheFileIsRecomputed) {
  Header h = one_var(1);
  Bytes b = encode(h);
  put_be(b, 72, 1000, 4);  // a wrong vsize
  Result<Header> r = decode(b.data(), b.size(), b.size(), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->vars[0].vsize, 12u);
}

TEST(Corrupt, ShapeOverflowIsAnError) {
  Header h;
  h.version = 5;
  h.dims = {{"a", uint64_t{1} << 40}, {"b", uint64_t{1} << 40}};
  h.vars.push_back(Var{"v", {0, 1}, {}, NC_INT, 0, 1000});
  expect_format_error(encode(h), "size of variable 'v' overflows 64 bits");
  // No overflow, but more than a CDF-5 vsize (INT64) can hold, whatever the file says.
  h.dims = {{"a", (uint64_t{1} << 60) + 1}};
  h.vars[0] = Var{"v", {0}, {}, NC_DOUBLE, 8, 1000};
  expect_format_error(encode(h), "variable 'v' has vsize 9223372036854775816, too large");
}

// Random damage to valid headers: decode either fails cleanly or returns a header that
// survives its own encode/decode round trip.
TEST(Corrupt, RandomMutationsNeverCrash) {
  std::mt19937_64 rng(20240611);
  for (int version : {1, 2, 5}) {
    Header h = sample_header(version);
    const Bytes good = layout_and_encode(h);
    for (int iter = 0; iter < 3000; ++iter) {
      Bytes b = good;
      const int edits = 1 + int(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng() % b.size();
        switch (rng() % 4) {
          case 0: b[at] = uint8_t(rng()); break;
          case 1: b[at] ^= uint8_t(1u << (rng() % 8)); break;
          case 2: b[at] = 0xFF; break;
          default: b[at] = 0; break;
        }
      }
      if (rng() % 4 == 0) b.resize(rng() % b.size());
      size_t need_more = 0;
      Result<Header> r = decode(b.data(), b.size(), b.size(), &need_more);
      EXPECT_EQ(need_more, 0u);
      if (!r.ok()) {
        EXPECT_EQ(r.status().code(), TAPIO_ERR_FORMAT);
        continue;
      }
      const Bytes again = encode(*r);
      Result<Header> r2 = decode(again.data(), again.size(), again.size(), nullptr);
      ASSERT_TRUE(r2.ok()) << r2.status().message();
      EXPECT_TRUE(testing::same_header(*r, *r2));
    }
  }
}

}  // namespace
}  // namespace tapio::netcdf

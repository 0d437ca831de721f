// check_extents() through decode(), and check_fits(): hostile headers whose variables overlap
// each other, the header or the record section are rejected, as netCDF-C rejects them.
#include "format/netcdf/extents.h"

#include <gtest/gtest.h>

#include "format/netcdf/layout.h"

namespace tapio::netcdf {
namespace {

using Bytes = std::vector<uint8_t>;

// Fixed a(x), b(y); record t(time, x), u(time); laid out as netCDF-C lays it out.
Header sample(uint64_t numrecs = 3) {
  Header h;
  h.version = 5;
  h.numrecs = numrecs;
  h.dims = {{"time", 0}, {"x", 10}, {"y", 1000}};
  h.vars = {Var{"a", {1}, {}, NC_DOUBLE}, Var{"b", {2}, {}, NC_DOUBLE},
            Var{"t", {0, 1}, {}, NC_DOUBLE}, Var{"u", {0}, {}, NC_INT}};
  EXPECT_TRUE(compute_layout(h, LayoutOptions{4, 0}).ok());
  return h;
}

Result<Header> round_trip(const Header& h) {
  const Bytes b = encode(h);
  return decode(b.data(), b.size(), UINT64_MAX, nullptr);
}

void expect_rejected(const Header& h, const std::string& fragment) {
  const Result<Header> r = round_trip(h);
  ASSERT_FALSE(r.ok()) << "expected: " << fragment;
  EXPECT_EQ(r.status().code(), TAPIO_ERR_FORMAT);
  EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
}

TEST(Extents, TheLayoutsTapioAndNetcdfCWriteAreAccepted) {
  EXPECT_TRUE(round_trip(sample()).ok());
  Header h = sample();
  ASSERT_TRUE(compute_layout(h, LayoutOptions{512, 4096}).ok());
  EXPECT_TRUE(round_trip(h).ok());
  h.vars.pop_back();  // one record variable: records are not padded
  h.dims[1].length = 3;
  ASSERT_TRUE(compute_layout(h, LayoutOptions{4, 0}).ok());
  EXPECT_EQ(h.record_size(), 24u);
  EXPECT_TRUE(round_trip(h).ok());
}

TEST(Extents, FixedVariablesInAnyOrderIfDisjoint) {
  Header h = sample();
  std::swap(h.vars[0].begin, h.vars[1].begin);  // b first, then a: still disjoint
  h.vars[0].begin = h.vars[1].begin + 8000;  // b, a, then the records
  EXPECT_TRUE(round_trip(h).ok()) << round_trip(h).status().message();
}

TEST(Extents, OverlappingBeginsAreRejected) {
  Header h = sample();
  h.vars[1].begin = h.vars[0].begin + 8;  // b starts at a's second element
  expect_rejected(h, fmt::format("variable 'b' begins at byte {}, inside the data of variable "
                                 "'a' (bytes {} to {})", h.vars[1].begin, h.vars[0].begin,
                                 h.vars[0].begin + 80));
  h.vars[1].begin = h.vars[0].begin;  // the very same bytes
  expect_rejected(h, "inside the data of variable");
}

TEST(Extents, AnEnlargedDimensionIsRejected) {
  Header h = sample();
  h.dims[1].length = 8016;  // a(x) now runs over b (and t's slab over u's)
  expect_rejected(h, "variable 'b' begins at byte");
  h = sample();
  h.dims[2].length = 1001;  // b(y), the last fixed variable, runs into the records
  expect_rejected(h, "the record section begins at byte");
  h = sample();
  h.vars[0].dimids = {2};  // a over y instead of x
  expect_rejected(h, "inside the data of variable 'a'");
}

TEST(Extents, RecordSectionOverlapsAreRejected) {
  Header h = sample();
  h.vars[2].begin = h.vars[1].begin + 8;  // the record section starts inside b
  expect_rejected(h, "the record section begins at byte");
  h = sample();
  h.vars[3].begin = h.vars[2].begin + 8;  // u's slab inside t's
  expect_rejected(h, "variable 'u' begins at byte");
  h = sample();
  h.vars[3].begin += 1000;  // u's slab past the end of one record (t's next record)
  expect_rejected(h, "record variable 'u' (bytes 1080 to 1084 of the record section");
  h = sample();
  h.vars[2].begin = h.vars[0].begin;  // a fixed variable after the record section's start
  h.vars[3].begin = h.vars[0].begin + 80;
  expect_rejected(h, "inside or before the data of fixed variable 'b'");
}

TEST(Extents, BeginsInsideTheHeaderAreRejected) {
  Header h = sample();
  h.vars.erase(h.vars.begin(), h.vars.begin() + 2);  // records only
  h.vars[0].begin = 8;
  h.vars[1].begin = 88;
  expect_rejected(h, "variable 't' begins at byte 8, inside the header");
}

TEST(Extents, RecordsPastTheLargestOffsetAreRejected) {
  Header h = sample(uint64_t{1} << 58);  // 2^58 records of 84 bytes
  expect_rejected(h, "288230376151711744 records of 84 bytes from byte");
  h.numrecs = UINT64_MAX;  // STREAMING: the records are counted from the file's size
  EXPECT_TRUE(round_trip(h).ok());
  h = sample();
  h.vars[1].begin = uint64_t{INT64_MAX} - 100;  // b ends past 2^63 - 1
  expect_rejected(h, "variable 'b' begins at byte 9223372036854775707 and ends past");
}

TEST(Extents, BeginPastTheEndOfTheFileIsTruncation) {
  const Header h = sample();
  const uint64_t end = h.vars[3].begin + 2 * h.record_size() + 4;  // u's record 2 ends here
  EXPECT_TRUE(check_fits(h, 3, end).ok());
  Status st = check_fits(h, 3, end - 1);
  EXPECT_EQ(st.code(), TAPIO_ERR_FORMAT);
  EXPECT_EQ(st.message(), fmt::format("the file is truncated: variable 'u' ends at byte {} "
                                      "(record 2), the file has {} bytes", end, end - 1));
  // a fixed variable whose data begins past the end: the first in header order is named
  st = check_fits(h, 3, h.vars[0].begin);
  EXPECT_NE(st.message().find("variable 'a' ends at byte"), std::string::npos) << st.message();
  // no records: record variables occupy no bytes, wherever they begin
  EXPECT_TRUE(check_fits(h, 0, h.vars[1].begin + 8000).ok());
  // decode() does not look at the file's size: a file cut short still decodes (ls shows it)
  const Bytes b = encode(h);
  EXPECT_TRUE(decode(b.data(), b.size(), b.size(), nullptr).ok());
}

}  // namespace
}  // namespace tapio::netcdf

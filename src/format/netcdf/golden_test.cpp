// Files written by the netCDF C library (testdata/*.nc, from the .cdl beside them): decode
// them, read data at the offsets the header gives, and re-encode them byte for byte.
#include <gtest/gtest.h>

#include <cstring>

#include "format/netcdf/header.h"
#include "format/netcdf/layout.h"
#include "format/netcdf/test_util.h"

namespace tapio::netcdf {
namespace {

using testing::attr_text;
using testing::attr_value;
using testing::find_attr;
using Bytes = std::vector<uint8_t>;

struct Golden {
  Bytes file;
  Header h;
};

Golden load(const std::string& name) {
  Golden g;
  g.file = testing::read_file(testing::testdata(name));
  Result<Header> r = decode(g.file.data(), g.file.size(), g.file.size(), nullptr);
  EXPECT_TRUE(r.ok()) << name << ": " << r.status().message();
  if (r.ok()) g.h = std::move(r).value();
  return g;
}

// Element i of variable `name` in record `rec`, read from the file bytes (big-endian).
template <typename T>
T value_at(const Golden& g, const std::string& name, uint64_t i, uint64_t rec = 0) {
  const Var* v = g.h.find_var(name);
  EXPECT_NE(v, nullptr) << name;
  T out{};
  if (!v) return out;
  const uint64_t off = g.h.data_offset(*v, rec) + i * sizeof(T);
  EXPECT_LE(off + sizeof(T), g.file.size()) << name;
  if (off + sizeof(T) > g.file.size()) return out;
  big_endian_to_host(&out, g.file.data() + off, 1, sizeof(T));
  return out;
}

std::vector<std::string> var_names(const Header& h) {
  std::vector<std::string> out;
  for (const Var& v : h.vars) out.push_back(v.name);
  return out;
}

// Our layout with the C library's defaults (align 4, no pad) gives the same begins, and our
// encoder gives the same header bytes.
void expect_same_layout_and_bytes(const Golden& g) {
  Header ours = g.h;
  LayoutOptions options;
  options.data_align = 4;
  ASSERT_TRUE(compute_layout(ours, options).ok());
  EXPECT_TRUE(testing::same_header(ours, g.h));
  const Bytes encoded = encode(ours);
  ASSERT_LE(encoded.size(), g.file.size());
  EXPECT_EQ(encoded, Bytes(g.file.begin(), g.file.begin() + encoded.size()));
  EXPECT_EQ(header_extent(g.h), encoded.size());
}

TEST(Golden, ClassicFixedVariables) {
  const Golden g = load("classic_fixed.nc");
  const Header& h = g.h;
  EXPECT_EQ(h.version, 1);
  EXPECT_EQ(h.numrecs, 0u);
  ASSERT_EQ(h.dims.size(), 2u);
  EXPECT_EQ(h.dims[0].name, "x");
  EXPECT_EQ(h.dims[0].length, 3u);
  EXPECT_EQ(h.dims[1].name, "y");
  EXPECT_EQ(h.dims[1].length, 2u);
  EXPECT_EQ(h.record_dimid(), -1);
  EXPECT_EQ(var_names(h), (std::vector<std::string>{"b", "c", "s", "i", "f", "d"}));
  EXPECT_EQ(h.vars[0].type, NC_BYTE);
  EXPECT_EQ(h.vars[1].type, NC_CHAR);
  EXPECT_EQ(h.vars[1].dimids, (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(h.vars[4].type, NC_FLOAT);
  EXPECT_TRUE(h.vars[4].dimids.empty());
  EXPECT_EQ(h.vars[5].type, NC_DOUBLE);
  EXPECT_EQ(h.vars[0].vsize, 4u);   // 3 bytes padded
  EXPECT_EQ(h.vars[2].vsize, 8u);   // 3 shorts padded
  EXPECT_EQ(h.vars[3].vsize, 24u);

  ASSERT_EQ(h.attrs.size(), 4u);
  EXPECT_EQ(attr_text(*find_attr(h.attrs, "title")), "golden");
  EXPECT_EQ(attr_value<int32_t>(*find_attr(h.attrs, "version"), 0), 3);
  const Attr* bytes = find_attr(h.attrs, "bytes");
  ASSERT_EQ(bytes->count(), 3u);
  EXPECT_EQ(attr_value<int8_t>(*bytes, 1), -2);
  EXPECT_EQ(attr_value<int16_t>(*find_attr(h.attrs, "shorts"), 0), -1);
  const Attr* scale = find_attr(h.vars[2].attrs, "scale");
  ASSERT_EQ(scale->type, NC_FLOAT);
  EXPECT_EQ(attr_value<float>(*scale, 1), 2.f);
  EXPECT_EQ(attr_text(*find_attr(h.vars[2].attrs, "units")), "m");
  EXPECT_EQ(attr_value<double>(*find_attr(h.vars[5].attrs, "valid_range"), 0), -1.0);

  int8_t fill = 0;
  fill_value(h.vars[0], &fill);
  EXPECT_EQ(fill, 7);

  EXPECT_EQ(value_at<int8_t>(g, "b", 1), -2);
  EXPECT_EQ(value_at<char>(g, "c", 3), 'd');
  EXPECT_EQ(value_at<int16_t>(g, "s", 2), 30);
  EXPECT_EQ(value_at<int32_t>(g, "i", 5), 6);
  EXPECT_EQ(value_at<float>(g, "f", 0), 1.5f);
  EXPECT_EQ(value_at<double>(g, "d", 1), -0.5);
  expect_same_layout_and_bytes(g);
}

TEST(Golden, Offset64RecordVariables) {
  const Golden g = load("offset64_record.nc");
  const Header& h = g.h;
  EXPECT_EQ(h.version, 2);
  EXPECT_EQ(h.numrecs, 3u);
  EXPECT_EQ(h.record_dimid(), 0);
  EXPECT_EQ(h.dims[1].length, 2u);
  EXPECT_EQ(var_names(h), (std::vector<std::string>{"time", "mask", "T", "flag", "label"}));
  EXPECT_TRUE(h.is_record(*h.find_var("T")));
  EXPECT_FALSE(h.is_record(*h.find_var("mask")));
  EXPECT_EQ(h.record_size(), 8u + 8u + 4u + 4u);  // flag and label slabs padded to 4
  EXPECT_EQ(attr_text(*find_attr(h.attrs, "history")), "made by ncgen");
  float fill = 0;
  fill_value(*h.find_var("T"), &fill);
  EXPECT_EQ(fill, -1.f);

  for (uint64_t rec = 0; rec < 3; ++rec) {
    EXPECT_EQ(value_at<double>(g, "time", 0, rec), 0.5 + double(rec));
    EXPECT_EQ(value_at<float>(g, "T", 1, rec), float(2 * rec + 2));
    EXPECT_EQ(value_at<int16_t>(g, "flag", 0, rec), int16_t(11 + rec));
    EXPECT_EQ(value_at<char>(g, "label", 1, rec), char('b' + 2 * rec));
  }
  EXPECT_EQ(value_at<int32_t>(g, "mask", 1), 8);
  // The file ends with the last record.
  EXPECT_EQ(h.data_offset(*h.find_var("time"), 3), g.file.size());
  expect_same_layout_and_bytes(g);
}

TEST(Golden, ClassicSingleRecordVariableIsPacked) {
  const Golden g = load("classic_onerec.nc");
  const Header& h = g.h;
  EXPECT_EQ(h.numrecs, 3u);
  const Var& v = *h.find_var("v");
  EXPECT_EQ(v.vsize, 8u);          // stored as if padded ...
  EXPECT_EQ(h.record_size(), 6u);  // ... but records are 6 bytes apart
  for (uint64_t rec = 0; rec < 3; ++rec) {
    for (uint64_t i = 0; i < 3; ++i) {
      EXPECT_EQ(value_at<int16_t>(g, "v", i, rec), int16_t(rec * 3 + i + 1));
    }
  }
  EXPECT_EQ(h.data_offset(v, 3), g.file.size());
  expect_same_layout_and_bytes(g);
}

TEST(Golden, Cdf5UnsignedAnd64BitTypes) {
  const Golden g = load("cdf5_types.nc");
  const Header& h = g.h;
  EXPECT_EQ(h.version, 5);
  EXPECT_EQ(h.numrecs, 2u);
  EXPECT_EQ(var_names(h),
            (std::vector<std::string>{"ub", "us", "ui", "i64", "u64", "scalar", "t", "w"}));
  EXPECT_EQ(h.find_var("ub")->type, NC_UBYTE);
  EXPECT_EQ(h.find_var("us")->type, NC_USHORT);
  EXPECT_EQ(h.find_var("ui")->type, NC_UINT);
  EXPECT_EQ(h.find_var("i64")->type, NC_INT64);
  EXPECT_EQ(h.find_var("u64")->type, NC_UINT64);
  EXPECT_EQ(h.find_var("t")->type, NC_INT64);
  EXPECT_EQ(h.record_size(), 8u + 4u);

  EXPECT_EQ(attr_value<uint8_t>(*find_attr(h.attrs, "att_ub"), 1), 255);
  EXPECT_EQ(attr_value<uint16_t>(*find_attr(h.attrs, "att_us"), 0), 65535);
  EXPECT_EQ(attr_value<uint32_t>(*find_attr(h.attrs, "att_ui"), 0), 4000000000u);
  EXPECT_EQ(attr_value<int64_t>(*find_attr(h.attrs, "att_i64"), 0), -9000000000LL);
  EXPECT_EQ(attr_value<uint64_t>(*find_attr(h.attrs, "att_u64"), 0), 18000000000000000000ULL);
  EXPECT_EQ(attr_value<float>(*find_attr(h.attrs, "att_f"), 0), 1.25f);
  EXPECT_EQ(attr_value<double>(*find_attr(h.attrs, "att_d"), 0), -2.5);
  EXPECT_EQ(attr_text(*find_attr(h.attrs, "att_c")), "cdf5");
  EXPECT_EQ(attr_value<int64_t>(*find_attr(h.find_var("i64")->attrs, "big"), 0), 5000000000LL);
  EXPECT_EQ(attr_text(*find_attr(h.find_var("scalar")->attrs, "note")), "0-d");
  uint8_t fill = 0;
  fill_value(*h.find_var("ub"), &fill);
  EXPECT_EQ(fill, 200);

  EXPECT_EQ(value_at<uint16_t>(g, "us", 0), 60000);
  EXPECT_EQ(value_at<uint32_t>(g, "ui", 0), 4000000001u);
  EXPECT_EQ(value_at<int64_t>(g, "i64", 0), -5000000000LL);
  EXPECT_EQ(value_at<uint64_t>(g, "u64", 0), 17000000000000000000ULL);
  EXPECT_EQ(value_at<double>(g, "scalar", 0), 3.25);
  EXPECT_EQ(value_at<int64_t>(g, "t", 0, 1), 200);
  EXPECT_EQ(value_at<uint16_t>(g, "w", 0, 1), 3);
  EXPECT_EQ(value_at<uint16_t>(g, "w", 1, 1), 4);
  expect_same_layout_and_bytes(g);
}

}  // namespace
}  // namespace tapio::netcdf

// Default fill values and _FillValue.
#include <gtest/gtest.h>

#include <cstring>

#include "format/netcdf/header.h"
#include "format/netcdf/test_util.h"

namespace tapio::netcdf {
namespace {

using testing::make_attr;

template <typename T>
T fill_of(NcType t) {
  T v{};
  default_fill(t, &v);
  return v;
}

TEST(Fill, NetcdfDefaults) {
  EXPECT_EQ(fill_of<int8_t>(NC_BYTE), -127);
  EXPECT_EQ(fill_of<char>(NC_CHAR), 0);
  EXPECT_EQ(fill_of<int16_t>(NC_SHORT), -32767);
  EXPECT_EQ(fill_of<int32_t>(NC_INT), -2147483647);
  EXPECT_EQ(fill_of<float>(NC_FLOAT), 9.9692099683868690e+36f);
  EXPECT_EQ(fill_of<double>(NC_DOUBLE), 9.9692099683868690e+36);
  EXPECT_EQ(fill_of<uint8_t>(NC_UBYTE), 255);
  EXPECT_EQ(fill_of<uint16_t>(NC_USHORT), 65535);
  EXPECT_EQ(fill_of<uint32_t>(NC_UINT), 4294967295u);
  EXPECT_EQ(fill_of<int64_t>(NC_INT64), -9223372036854775806LL);
  EXPECT_EQ(fill_of<uint64_t>(NC_UINT64), 18446744073709551614ULL);
}

// The spec gives the external bytes: FILL_FLOAT = 7C F0 00 00, FILL_DOUBLE = 47 9E 00 ...
TEST(Fill, FloatBitsMatchTheSpec) {
  uint32_t f = 0;
  default_fill(NC_FLOAT, &f);
  EXPECT_EQ(f, 0x7CF00000u);
  uint64_t d = 0;
  default_fill(NC_DOUBLE, &d);
  EXPECT_EQ(d, 0x479E000000000000ull);
}

TEST(Fill, InvalidTypeWritesNothing) {
  uint64_t v = 42;
  default_fill(NcType(0), &v);
  EXPECT_EQ(v, 42u);
}

TEST(Fill, FillValueAttributeOverridesTheDefault) {
  Var v{"t", {}, {make_attr<float>("_FillValue", NC_FLOAT, {-1.5f})}, NC_FLOAT, 4, 0};
  float f = 0;
  fill_value(v, &f);
  EXPECT_EQ(f, -1.5f);
}

TEST(Fill, IgnoresFillValueOfWrongTypeOrCount) {
  float f = 0;
  Var wrong_type{"t", {}, {make_attr<double>("_FillValue", NC_DOUBLE, {-1.5})}, NC_FLOAT, 4, 0};
  fill_value(wrong_type, &f);
  EXPECT_EQ(f, 9.9692099683868690e+36f);
  Var two{"t", {}, {make_attr<float>("_FillValue", NC_FLOAT, {1.f, 2.f})}, NC_FLOAT, 4, 0};
  f = 0;
  fill_value(two, &f);
  EXPECT_EQ(f, 9.9692099683868690e+36f);
  Var other_name{"t", {}, {make_attr<float>("missing_value", NC_FLOAT, {1.f})}, NC_FLOAT, 4, 0};
  f = 0;
  fill_value(other_name, &f);
  EXPECT_EQ(f, 9.9692099683868690e+36f);
}

TEST(Fill, EveryTypeUsesItsOwnFillValue) {
  Var v{"u", {}, {make_attr<uint64_t>("_FillValue", NC_UINT64, {7})}, NC_UINT64, 8, 0};
  uint64_t u = 0;
  fill_value(v, &u);
  EXPECT_EQ(u, 7u);
  Var b{"b", {}, {make_attr<int8_t>("_FillValue", NC_BYTE, {7})}, NC_BYTE, 4, 0};
  int8_t c = 0;
  fill_value(b, &c);
  EXPECT_EQ(c, 7);
}

}  // namespace
}  // namespace tapio::netcdf

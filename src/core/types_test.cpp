#include "core/types.h"

#include <gtest/gtest.h>

#include <cstring>

namespace tapio {

TEST(Types, SizesAndNames) {
  EXPECT_EQ(type_size(TAPIO_INT8), 1u);
  EXPECT_EQ(type_size(TAPIO_UINT16), 2u);
  EXPECT_EQ(type_size(TAPIO_FLOAT32), 4u);
  EXPECT_EQ(type_size(TAPIO_UINT64), 8u);
  EXPECT_EQ(type_size(TAPIO_CHAR), 1u);
  EXPECT_EQ(type_size(static_cast<DataType>(99)), 0u);
  DataType t;
  ASSERT_TRUE(type_from_name("float64", &t));
  EXPECT_EQ(t, TAPIO_FLOAT64);
  EXPECT_FALSE(type_from_name("double", &t));
  EXPECT_EQ(type_name(TAPIO_INT32), "int32");
}

TEST(Types, BigEndianRoundTrip) {
  double values[3] = {1.5, -2.25, 1e300};
  unsigned char be[sizeof values];
  host_to_big_endian(be, values, 3, sizeof(double));
  // 1.5 is 0x3FF8000000000000: big-endian puts 0x3F first.
  EXPECT_EQ(be[0], 0x3F);
  EXPECT_EQ(be[1], 0xF8);
  double back[3];
  big_endian_to_host(back, be, 3, sizeof(double));
  EXPECT_EQ(std::memcmp(back, values, sizeof values), 0);
  int16_t s = 0x0102;
  big_endian_to_host(&s, &s, 1, 2);  // in place
  EXPECT_EQ(s, 0x0201);
}

}  // namespace tapio

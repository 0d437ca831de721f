#include "core/types.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

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

// Strided pieces swap as each piece alone would, for every element size, single elements and
// longer pieces, each side at its own stride; the bytes between pieces are left alone.
TEST(Types, StridedPiecesSwapAsEachAlone) {
  for (const size_t esize : {1u, 2u, 4u, 8u})
    for (const uint64_t elements : {1u, 3u}) {
      const uint64_t piece = elements * esize, count = 5, src_stride = piece + 2 * esize,
                     dst_stride = piece + 3;
      std::vector<unsigned char> src(count * src_stride), got(count * dst_stride, 0xAA),
          want(got);
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
      for (uint64_t k = 0; k < count; ++k)
        host_to_big_endian(want.data() + k * dst_stride, src.data() + k * src_stride, elements,
                           esize);
      host_to_big_endian_strided(got.data(), dst_stride, src.data(), src_stride, piece, count,
                                 esize);
      EXPECT_EQ(got, want) << "element size " << esize << ", " << elements << " per piece";
    }
}

}  // namespace tapio

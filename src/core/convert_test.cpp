#include "core/convert.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

namespace tapio {
namespace {

// The oracle computes in long double, which holds every value of every numeric type exactly
// (x86's 64-bit mantissa), independently of the converter's bounds.
static_assert(std::numeric_limits<long double>::digits >= 64,
              "the oracle needs 80-bit long double");

DataType type_of(int8_t) { return TAPIO_INT8; }
DataType type_of(uint8_t) { return TAPIO_UINT8; }
DataType type_of(int16_t) { return TAPIO_INT16; }
DataType type_of(uint16_t) { return TAPIO_UINT16; }
DataType type_of(int32_t) { return TAPIO_INT32; }
DataType type_of(uint32_t) { return TAPIO_UINT32; }
DataType type_of(int64_t) { return TAPIO_INT64; }
DataType type_of(uint64_t) { return TAPIO_UINT64; }
DataType type_of(float) { return TAPIO_FLOAT32; }
DataType type_of(double) { return TAPIO_FLOAT64; }

template <typename F>
void for_each_numeric(F&& f) {
  f(int8_t{}), f(uint8_t{}), f(int16_t{}), f(uint16_t{}), f(int32_t{}), f(uint32_t{});
  f(int64_t{}), f(uint64_t{}), f(float{}), f(double{});
}

// Values at and around every type's limits, fractions near them, and the floating specials.
std::vector<long double> candidates() {
  std::vector<long double> v = {0.0L, -0.0L, 1, -1, 0.5L, -0.5L, -0.99L, 1.99L, 42.75L, -42.75L};
  for (long double edge : {127.0L, 128.0L, 255.0L, 256.0L, 32767.0L, 32768.0L, 65535.0L,
                           65536.0L, 2147483647.0L, 2147483648.0L, 4294967295.0L, 4294967296.0L,
                           9007199254740993.0L, 9223372036854775807.0L, 9223372036854775808.0L,
                           18446744073709551615.0L, 18446744073709551616.0L}) {
    for (long double x : {edge, edge - 1, edge + 0.5L, edge - 0.5L}) {
      v.push_back(x);
      v.push_back(-x);
    }
    v.push_back(-edge - 1);
    v.push_back(-edge - 0.75L);
  }
  v.push_back(9223372036854775808.0L + 2048);  // the doubles either side of 2^63 and 2^64
  v.push_back(-9223372036854775808.0L - 2048);
  v.push_back(18446744073709549568.0L);
  for (long double big : {static_cast<long double>(FLT_MAX), 3.4028235677973366e38L, 1e39L,
                          static_cast<long double>(DBL_MAX)}) {
    v.push_back(big);
    v.push_back(-big);
  }
  v.push_back(static_cast<long double>(FLT_TRUE_MIN));
  v.push_back(1e-300L);
  v.push_back(std::numeric_limits<long double>::infinity());
  v.push_back(-std::numeric_limits<long double>::infinity());
  v.push_back(std::numeric_limits<long double>::quiet_NaN());
  return v;
}

template <typename T>
bool holds(long double x) {
  if constexpr (std::is_integral_v<T>) {
    return std::isfinite(x) && x == std::trunc(x) &&
           x >= static_cast<long double>(std::numeric_limits<T>::lowest()) &&
           x <= static_cast<long double>(std::numeric_limits<T>::max());
  } else {
    if (std::isnan(x) || std::isinf(x)) return true;
    if (std::fabs(x) > static_cast<long double>(std::numeric_limits<T>::max())) return false;
    return static_cast<long double>(static_cast<T>(x)) == x;
  }
}

// What netCDF's conversion gives for x into To, or false where it is NC_ERANGE.
template <typename To, typename From>
bool expected(long double x, To* out) {
  if constexpr (std::is_integral_v<To>) {
    if (!std::isfinite(x)) return false;
    const long double t = std::trunc(x);
    if (t < static_cast<long double>(std::numeric_limits<To>::lowest()) ||
        t > static_cast<long double>(std::numeric_limits<To>::max()))
      return false;
    *out = static_cast<To>(t);
    return true;
  } else {
    if (sizeof(To) < sizeof(From) && std::isfinite(x) &&
        std::fabs(x) > static_cast<long double>(std::numeric_limits<To>::max()))
      return false;
    *out = static_cast<To>(x);
    return true;
  }
}

template <typename T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a)) return std::isnan(b);
  return a == b;
}

template <typename From, typename To>
int check_pair() {
  int checked = 0;
  for (long double x : candidates()) {
    if (!holds<From>(x)) continue;
    const From v = static_cast<From>(x);
    To got{};
    const Status st = convert_elements(&got, type_of(To{}), &v, type_of(From{}), 1);
    To want{};
    const std::string what = fmt::format("{} {} to {}", type_name(type_of(From{})),
                                         static_cast<double>(x), type_name(type_of(To{})));
    if (expected<To, From>(x, &want)) {
      EXPECT_TRUE(st.ok()) << what << ": " << st.message();
      EXPECT_TRUE(same_value(got, want)) << what << ": got " << +got << ", want " << +want;
    } else {
      EXPECT_EQ(st.code(), TAPIO_ERR_RANGE) << what;
      EXPECT_NE(st.message().find(fmt::format("out of the range of {}", type_name(type_of(To{})))),
                std::string::npos)
          << st.message();
    }
    ++checked;
  }
  return checked;
}

TEST(Convert, EveryPairOfNumericTypesAtAndAroundTheLimits) {
  int pairs = 0;
  for_each_numeric([&](auto from) {
    for_each_numeric([&](auto to) {
      EXPECT_GE((check_pair<decltype(from), decltype(to)>()), 10);  // uint8 holds 10
      ++pairs;
    });
  });
  EXPECT_EQ(pairs, 100);
}

TEST(Convert, FloatingToIntegerTruncatesTowardZero) {
  const double in[] = {2.9, -2.9, 0.99, -0.99, 127.99, -128.99};
  int8_t out[6];
  ASSERT_TRUE(convert_elements(out, TAPIO_INT8, in, TAPIO_FLOAT64, 6).ok());
  EXPECT_EQ(std::vector<int>(out, out + 6), (std::vector<int>{2, -2, 0, 0, 127, -128}));
  const float negative_fraction = -0.75f;
  uint32_t u = 7;
  ASSERT_TRUE(convert_elements(&u, TAPIO_UINT32, &negative_fraction, TAPIO_FLOAT32, 1).ok());
  EXPECT_EQ(u, 0u);
}

TEST(Convert, NanAndInfinityAreOutOfRangeForIntegersAndKeptByFloats) {
  for (double special : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    int64_t i = 0;
    EXPECT_EQ(convert_elements(&i, TAPIO_INT64, &special, TAPIO_FLOAT64, 1).code(),
              TAPIO_ERR_RANGE);
    float f = 0;
    ASSERT_TRUE(convert_elements(&f, TAPIO_FLOAT32, &special, TAPIO_FLOAT64, 1).ok());
    EXPECT_EQ(std::isnan(f), std::isnan(special));
    if (!std::isnan(special)) {
      EXPECT_EQ(f, static_cast<float>(special));
    }
  }
}

TEST(Convert, Int64ToFloatRoundsToNearest) {
  const int64_t in[] = {(int64_t{1} << 24) + 1, (int64_t{1} << 24) + 3,
                        std::numeric_limits<int64_t>::max(), (int64_t{1} << 53) + 1};
  float f[4];
  ASSERT_TRUE(convert_elements(f, TAPIO_FLOAT32, in, TAPIO_INT64, 4).ok());
  EXPECT_EQ(f[0], 16777216.0f);  // a tie: to even
  EXPECT_EQ(f[1], 16777220.0f);
  EXPECT_EQ(f[2], 9223372036854775808.0f);
  double d[4];
  ASSERT_TRUE(convert_elements(d, TAPIO_FLOAT64, in, TAPIO_INT64, 4).ok());
  EXPECT_EQ(d[3], 9007199254740992.0);  // 2^53 + 1 is no double
  const uint64_t top = std::numeric_limits<uint64_t>::max();
  ASSERT_TRUE(convert_elements(f, TAPIO_FLOAT32, &top, TAPIO_UINT64, 1).ok());
  EXPECT_EQ(f[0], 18446744073709551616.0f);
}

// Runs longer than the converter's chunk: every element converted, and the first bad one named
// with its value, wherever it lies.
TEST(Convert, LongRunsNameTheFirstValueOutOfRange) {
  std::vector<int32_t> in(10000);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int32_t>(i) - 5000;
  std::vector<int16_t> out(in.size());
  ASSERT_TRUE(convert_elements(out.data(), TAPIO_INT16, in.data(), TAPIO_INT32, in.size()).ok());
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], in[i]);
  in[9001] = 70000;
  in[9500] = -70000;
  const Status st =
      convert_elements(out.data(), TAPIO_INT16, in.data(), TAPIO_INT32, in.size());
  EXPECT_EQ(st.code(), TAPIO_ERR_RANGE);
  EXPECT_EQ(st.message(), "element 9001 (int32 70000) is out of the range of int16");
  std::vector<double> wide(5000, 1.5);
  wide[4097] = 1e39;
  std::vector<float> narrow(wide.size());
  EXPECT_EQ(convert_elements(narrow.data(), TAPIO_FLOAT32, wide.data(), TAPIO_FLOAT64,
                             wide.size()).message(),
            "element 4097 (float64 1e+39) is out of the range of float32");
}

TEST(Convert, TextConvertsToNothingElse) {
  EXPECT_TRUE(types_convert(TAPIO_CHAR, TAPIO_CHAR));
  EXPECT_TRUE(types_convert(TAPIO_UINT8, TAPIO_FLOAT64));
  EXPECT_FALSE(types_convert(TAPIO_CHAR, TAPIO_INT8));
  EXPECT_FALSE(types_convert(TAPIO_UINT8, TAPIO_CHAR));
  const char text[2] = {'a', 'b'};
  char copy[2] = {};
  ASSERT_TRUE(convert_elements(copy, TAPIO_CHAR, text, TAPIO_CHAR, 2).ok());
  EXPECT_EQ(copy[1], 'b');
  int8_t number = 0;
  const Status st = convert_elements(&number, TAPIO_INT8, text, TAPIO_CHAR, 1);
  EXPECT_EQ(st.code(), TAPIO_ERR_TYPE);
  EXPECT_EQ(st.message(), "char does not convert to int8");
}

}  // namespace
}  // namespace tapio

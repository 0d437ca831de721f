#include "format/subfile/block_sums.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "format/subfile/records.h"

namespace tapio::subfile {
namespace {

// What the sums must be, computed the slow and obvious way.
template <typename T>
BlockSums expected(const std::vector<T>& v) {
  BlockSums s;
  const auto* bytes = reinterpret_cast<const uint8_t*>(v.data());
  const uint64_t length = v.size() * sizeof(T);
  for (uint64_t at = 0; at < length; at += kChecksumChunk)
    s.chunks.push_back(checksum(bytes + at, std::min<uint64_t>(kChecksumChunk, length - at)));
  bool any = false;
  T lo{}, hi{};
  for (T x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) continue;
    }
    if (!any || x < lo) lo = x;
    if (!any || x > hi) hi = x;
    any = true;
  }
  std::memcpy(s.min, &lo, sizeof(T));
  std::memcpy(s.max, &hi, sizeof(T));
  return s;
}

// Feeds v in random pieces (cutting elements and chunks anywhere).
template <typename T>
BlockSums in_pieces(const std::vector<T>& v, DataType type, std::mt19937_64& rng) {
  BlockSummer summer(type, true);
  const auto* bytes = reinterpret_cast<const uint8_t*>(v.data());
  const uint64_t length = v.size() * sizeof(T);
  for (uint64_t at = 0; at < length;) {
    const uint64_t n = std::min<uint64_t>(length - at, rng() % 3 == 0 ? rng() % 13 : rng() % (3 << 20));
    summer.add(bytes + at, n);
    at += n;
  }
  return summer.finish();
}

template <typename T>
void check_type(DataType type, std::mt19937_64& rng) {
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{1000},
                     (kChecksumChunk / sizeof(T)) * 2 + 3}) {
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(rng() % 2000) - static_cast<T>(rng() % 1000);
    const BlockSums want = expected(v), got = in_pieces(v, type, rng);
    EXPECT_EQ(got.chunks, want.chunks) << type_name(type) << " n=" << n;
    EXPECT_EQ(std::memcmp(got.min, want.min, 8), 0) << type_name(type) << " n=" << n;
    EXPECT_EQ(std::memcmp(got.max, want.max, 8), 0) << type_name(type) << " n=" << n;
  }
}

TEST(BlockSums, PiecesOfAnySizeGiveTheWholeBlocksSums) {
  std::mt19937_64 rng(11);
  check_type<int8_t>(TAPIO_INT8, rng);
  check_type<uint8_t>(TAPIO_UINT8, rng);
  check_type<int16_t>(TAPIO_INT16, rng);
  check_type<uint16_t>(TAPIO_UINT16, rng);
  check_type<int32_t>(TAPIO_INT32, rng);
  check_type<uint32_t>(TAPIO_UINT32, rng);
  check_type<int64_t>(TAPIO_INT64, rng);
  check_type<uint64_t>(TAPIO_UINT64, rng);
  check_type<float>(TAPIO_FLOAT32, rng);
  check_type<double>(TAPIO_FLOAT64, rng);
}

TEST(BlockSums, NaNsAreIgnoredAndEmptyExtremesAreZero) {
  std::vector<double> v = {NAN, 3.5, -2.0, NAN, 7.25};
  BlockSummer summer(TAPIO_FLOAT64, true);
  summer.add(v.data(), v.size() * 8);
  BlockSums s = summer.finish();
  double lo, hi;
  std::memcpy(&lo, s.min, 8);
  std::memcpy(&hi, s.max, 8);
  EXPECT_EQ(lo, -2.0);
  EXPECT_EQ(hi, 7.25);
  // The summer starts over after finish; only NaNs leave min and max zero.
  const double nans[2] = {NAN, NAN};
  summer.add(nans, sizeof nans);
  s = summer.finish();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(s.min[i] | s.max[i], 0);
  EXPECT_EQ(s.chunks, std::vector<uint64_t>{checksum(nans, sizeof nans)});
  // Without statistics only checksums are computed.
  BlockSummer plain(TAPIO_FLOAT64, false);
  plain.add(v.data(), v.size() * 8);
  s = plain.finish();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(s.min[i] | s.max[i], 0);
  EXPECT_EQ(s.chunks.size(), 1u);
}

}  // namespace
}  // namespace tapio::subfile

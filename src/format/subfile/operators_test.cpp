#include "format/subfile/operators.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "format/subfile/block_list.h"

namespace tapio::subfile {
namespace {

// A smooth LICOM-like field: temperature falling with depth, waves in latitude and longitude.
std::vector<double> smooth_field(uint64_t nz, uint64_t ny, uint64_t nx) {
  std::vector<double> v(nz * ny * nx);
  for (uint64_t k = 0; k < nz; ++k)
    for (uint64_t j = 0; j < ny; ++j)
      for (uint64_t i = 0; i < nx; ++i)
        v[(k * ny + j) * nx + i] = 28.0 * std::exp(-0.1 * double(k)) +
                                   2.0 * std::cos(0.05 * double(j)) * std::sin(0.03 * double(i));
  return v;
}

const uint8_t* bytes_of(const std::vector<double>& v) {
  return reinterpret_cast<const uint8_t*>(v.data());
}

std::vector<double> decoded(Codec codec, const std::vector<uint8_t>& stored, size_t n) {
  std::vector<double> out(n);
  const Status st = decode_block(codec, TAPIO_FLOAT64, stored.data(), stored.size(),
                                 reinterpret_cast<uint8_t*>(out.data()), n * 8);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

TEST(SubfileOperators, SpecsParseToCanonicalText) {
  EXPECT_EQ(parse_operator("zstd")->text(), "zstd:level=3");
  EXPECT_EQ(parse_operator(" zstd:level=9 ")->text(), "zstd:level=9");
  EXPECT_EQ(parse_operator("shuffle+zstd")->text(), "shuffle+zstd:level=3");
  EXPECT_EQ(parse_operator("zfp:accuracy=1e-3")->text(), "zfp:accuracy=0.001");
  EXPECT_EQ(parse_operator("zfp:rate=16")->text(), "zfp:rate=16");
  EXPECT_EQ(parse_operator("zfp:precision=20")->text(), "zfp:precision=20");
  EXPECT_EQ(parse_operator("none")->codec, Codec::kNone);
  EXPECT_DOUBLE_EQ(parse_operator("zfp:accuracy=0.5")->error_bound(), 0.5);
  EXPECT_EQ(parse_operator("zfp:rate=8")->error_bound(), 0);
}

TEST(SubfileOperators, BadSpecsSayWhatIsAccepted) {
  const struct {
    const char* spec;
    const char* says;
  } cases[] = {
      {"lz4", "unknown operator (known: none, zstd, shuffle+zstd, zfp)"},
      {"zstd:level=0", "the level must be an integer from 1 to"},
      {"zstd:level=23", "the level must be an integer from 1 to"},
      {"zstd:level=fast", "the level must be an integer"},
      {"zstd:speed=1", "zstd takes only level"},
      {"zstd:level", "parameters are written name:key=value"},
      {"zfp", "zfp takes one of accuracy=A"},
      {"zfp:accuracy=-1", "zfp takes one of accuracy=A"},
      {"zfp:rate=65", "zfp takes one of"},
      {"zfp:precision=2.5", "zfp takes one of"},
      {"none:level=1", "parameters are written"},
  };
  for (const auto& c : cases) {
    const auto r = parse_operator(c.spec);
    ASSERT_FALSE(r.ok()) << c.spec;
    EXPECT_EQ(r.status().code(), TAPIO_ERR_CONFIG);
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.spec), std::string::npos) << r.status().message();
  }
}

TEST(SubfileOperators, RulesPickTheFirstMatchingGlob) {
  auto rules = parse_operator_rules("temp=zfp:accuracy=1e-2; s*=zstd:level=5 ;shuffle+zstd");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_EQ(rules->size(), 3u);
  EXPECT_EQ(operator_for(*rules, "temp", TAPIO_FLOAT64)->text(), "zfp:accuracy=0.01");
  EXPECT_EQ(operator_for(*rules, "salt", TAPIO_FLOAT32)->text(), "zstd:level=5");
  EXPECT_EQ(operator_for(*rules, "u", TAPIO_INT32)->text(), "shuffle+zstd:level=3");
  EXPECT_EQ(operator_for(*parse_operator_rules(""), "u", TAPIO_INT32)->codec, Codec::kNone);
  EXPECT_EQ(operator_for(*parse_operator_rules("t=zstd"), "u", TAPIO_INT32)->codec, Codec::kNone);
  EXPECT_EQ(parse_operator_rules("t=zfp:bits=3").status().code(), TAPIO_ERR_CONFIG);
}

TEST(SubfileOperators, ZfpOnAnIntegerVariableNamesIt) {
  auto rules = parse_operator_rules("zfp:rate=8");
  const auto r = operator_for(*rules, "mask", TAPIO_INT32);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), TAPIO_ERR_CONFIG);
  EXPECT_NE(r.status().message().find("variable 'mask' (int32)"), std::string::npos)
      << r.status().message();
}

TEST(SubfileOperators, ZstdAndShuffleRoundTripBitExact) {
  const auto field = smooth_field(30, 96, 144);
  for (const char* spec : {"zstd", "shuffle+zstd:level=1"}) {
    const Operator op = *parse_operator(spec);
    const auto stored = encode_block(op, TAPIO_FLOAT64, {30, 96, 144}, bytes_of(field),
                                     field.size() * 8);
    ASSERT_FALSE(stored.empty()) << spec;
    EXPECT_LT(stored.size(), field.size() * 8);
    const auto back = decoded(op.codec, stored, field.size());
    EXPECT_EQ(std::memcmp(back.data(), field.data(), field.size() * 8), 0) << spec;
  }
}

TEST(SubfileOperators, ZfpStaysWithinItsBound) {
  const auto field = smooth_field(30, 96, 144);
  for (double bound : {1e-1, 1e-3, 1e-6}) {
    Operator op = *parse_operator(fmt::format("zfp:accuracy={}", bound));
    // The box as a 5-d one with an extent of 1: zfp sees 3 dimensions.
    const auto stored =
        encode_block(op, TAPIO_FLOAT64, {1, 30, 96, 144, 1}, bytes_of(field), field.size() * 8);
    ASSERT_FALSE(stored.empty());
    const auto back = decoded(Codec::kZfp, stored, field.size());
    double worst = 0;
    for (size_t i = 0; i < field.size(); ++i) worst = std::max(worst, std::abs(back[i] - field[i]));
    EXPECT_LE(worst, bound) << bound;
    EXPECT_GT(worst, 0) << "lossy at " << bound;
  }
  std::vector<float> f(field.begin(), field.end());
  const auto stored = encode_block(*parse_operator("zfp:rate=8"), TAPIO_FLOAT32, {30, 96, 144},
                                   reinterpret_cast<const uint8_t*>(f.data()), f.size() * 4);
  // 8 bits per value of each 4 x 4 x 4 zfp block (30 depths pad to 32), and the header.
  EXPECT_NEAR(double(stored.size()), 8 * 24 * 36 * 64, 32);
}

TEST(SubfileOperators, IncompressibleBlocksAreStoredAsPut) {
  std::vector<uint64_t> noise(4096);
  std::mt19937_64 rng(1);
  for (auto& x : noise) x = rng();
  const auto* data = reinterpret_cast<const uint8_t*>(noise.data());
  EXPECT_TRUE(encode_block(*parse_operator("zstd"), TAPIO_UINT64, {4096}, data, 32768).empty());
  EXPECT_TRUE(encode_block(*parse_operator("zfp:precision=64"), TAPIO_FLOAT64, {4096}, data,
                           32768).empty());
}

// What the stored bytes declare is checked against the block before anything is written.
TEST(SubfileOperators, HostileBlocksAreErrors) {
  const auto field = smooth_field(4, 16, 16);
  const uint64_t n = field.size() * 8;
  std::vector<uint8_t> out(2 * n);
  const auto z = encode_block(*parse_operator("zstd"), TAPIO_FLOAT64, {n / 8}, bytes_of(field), n);
  Status st = decode_block(Codec::kZstd, TAPIO_FLOAT64, z.data(), z.size(), out.data(), n - 8);
  EXPECT_EQ(st.code(), TAPIO_ERR_FORMAT);
  EXPECT_NE(st.message().find("declares"), std::string::npos) << st.message();
  auto cut = z;
  cut.resize(z.size() / 2);
  EXPECT_EQ(decode_block(Codec::kZstd, TAPIO_FLOAT64, cut.data(), cut.size(), out.data(), n).code(),
            TAPIO_ERR_FORMAT);
  const auto f = encode_block(*parse_operator("zfp:accuracy=1e-3"), TAPIO_FLOAT64, {4, 16, 16},
                              bytes_of(field), n);
  // Another type, another size, garbage: refused.
  EXPECT_EQ(decode_block(Codec::kZfp, TAPIO_FLOAT32, f.data(), f.size(), out.data(), n / 2).code(),
            TAPIO_ERR_FORMAT);
  EXPECT_EQ(decode_block(Codec::kZfp, TAPIO_FLOAT64, f.data(), f.size(), out.data(), n * 2).code(),
            TAPIO_ERR_FORMAT);
  std::vector<uint8_t> junk(f.size(), 0xA5);
  EXPECT_EQ(decode_block(Codec::kZfp, TAPIO_FLOAT64, junk.data(), junk.size(), out.data(), n).code(),
            TAPIO_ERR_FORMAT);
  // Cut inside its header: refused, without reading past the 8 bytes (ASan checks).
  EXPECT_EQ(decode_block(Codec::kZfp, TAPIO_FLOAT64, f.data(), 8, out.data(), n).code(),
            TAPIO_ERR_FORMAT);
  EXPECT_EQ(decode_block(Codec::kZfp, TAPIO_INT64, f.data(), f.size(), out.data(), n).code(),
            TAPIO_ERR_FORMAT);
}

TEST(SubfileOperators, BlockListsRecordCodecAndStoredSize) {
  BlockList list;
  list.new_selections = {plan::Selection::box({0, 0}, {100, 100})};
  list.shapes = {{0, 0, 80000, Codec::kZfp, 3000}, {1, 0, 80000}, {2, 0, 80000, Codec::kZstd, 9}};
  list.sums.resize(3);
  for (size_t i = 0; i < 3; ++i) list.sums[i].chunks.assign(1, 7 + i);
  WriterTable table;
  auto back = decode_block_list(encode_block_list(list).data(), encode_block_list(list).size(),
                                table, UINT64_MAX);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->shapes[0].codec, Codec::kZfp);
  EXPECT_EQ(back->shapes[0].stored_bytes(), 3000u);
  EXPECT_EQ(back->shapes[1].stored_bytes(), 80000u);
  EXPECT_EQ(back->shapes[2].stored, 9u);
  // A coded block stored in as many bytes as it holds, or in too few to be true: malformed.
  for (uint64_t stored : {uint64_t{80000}, uint64_t{0}}) {
    list.shapes[2].stored = stored;
    const auto bytes = encode_block_list(list);
    EXPECT_EQ(decode_block_list(bytes.data(), bytes.size(), table, UINT64_MAX).status().code(),
              TAPIO_ERR_FORMAT);
  }
  list.shapes[2] = {2, 0, kMaxRatio * 11, Codec::kZstd, 10};  // a ratio above kMaxRatio
  list.sums[2].chunks.assign(1, 0);
  const auto bytes = encode_block_list(list);
  EXPECT_EQ(decode_block_list(bytes.data(), bytes.size(), table, UINT64_MAX).status().code(),
            TAPIO_ERR_FORMAT);
}

}  // namespace
}  // namespace tapio::subfile

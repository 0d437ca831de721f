#include "format/subfile/block_list.h"

#include <gtest/gtest.h>

#include <random>

#include "format/subfile/le_bytes.h"
#include "format/subfile/records.h"
#include "format/subfile/selections.h"

namespace tapio::subfile {
namespace {

plan::Selection round_trip(const plan::Selection& s, size_t* bytes = nullptr) {
  std::vector<uint8_t> out;
  LeWriter w(out);
  encode_selection(w, s);
  if (bytes) *bytes = out.size();
  LeReader r(out.data(), out.size());
  plan::Selection back;
  EXPECT_TRUE(decode_selection(r, UINT64_MAX, &back));
  EXPECT_EQ(r.left(), 0u);
  return back;
}

TEST(SubfileSelections, BoxesAndRunsRoundTrip) {
  const auto box = plan::Selection::box({0, 7, 1ull << 40}, {30, 96, 144});
  const auto b = round_trip(box);
  EXPECT_EQ(b.kind, plan::Selection::Kind::kBox);
  EXPECT_EQ(b.start, box.start);
  EXPECT_EQ(b.count, box.count);
  // Unsorted, strided, repeated lengths, backwards jumps, a lone run: every order is kept.
  const std::vector<plan::Run> runs = {{100, 4}, {110, 4}, {120, 4}, {3, 1}, {50, 7},
                                       {40, 7}, {30, 7}, {1ull << 50, 2}, {0, 1}};
  EXPECT_EQ(round_trip(plan::Selection{plan::Selection::Kind::kRuns, {}, {}, runs}).runs, runs);
  std::mt19937_64 rng(7);
  for (int t = 0; t < 200; ++t) {
    std::vector<plan::Run> random(rng() % 50);
    for (auto& r : random) r = plan::Run{rng() % 1000000, 1 + rng() % 9};
    EXPECT_EQ(round_trip(plan::Selection{plan::Selection::Kind::kRuns, {}, {}, random}).runs,
              random);
  }
}

// The point of the encoding: a regular map costs a few bytes however many runs it has, and
// an irregular increasing one about three bytes per run.
TEST(SubfileSelections, RegularAndIrregularMapsAreSmall) {
  std::vector<plan::Run> hpio;  // 2^18 interleaved 1-element regions of one rank of four
  for (uint64_t k = 0; k < (1u << 18); ++k) hpio.push_back(plan::Run{3 + 4 * k, 1});
  size_t bytes = 0;
  EXPECT_EQ(round_trip(plan::Selection{plan::Selection::Kind::kRuns, {}, {}, hpio}, &bytes).runs,
            hpio);
  EXPECT_LE(bytes, 12u);
  std::vector<plan::Run> pio;  // increasing, gaps and lengths below 128
  std::mt19937_64 rng(3);
  uint64_t at = 0;
  for (int k = 0; k < 10000; ++k) {
    at += 1 + rng() % 100;
    pio.push_back(plan::Run{at, 1 + rng() % 20});
    at += pio.back().length;
  }
  round_trip(plan::Selection{plan::Selection::Kind::kRuns, {}, {}, pio}, &bytes);
  EXPECT_LE(bytes, 3 * pio.size() + 8);
}

TEST(SubfileSelections, HostileInputIsRejected) {
  std::vector<uint8_t> out;
  LeWriter w(out);
  std::vector<plan::Run> many;
  for (uint64_t k = 0; k < 1000; ++k) many.push_back(plan::Run{2 * k, 1});
  encode_selection(w, plan::Selection{plan::Selection::Kind::kRuns, {}, {}, many});
  plan::Selection s;
  LeReader capped(out.data(), out.size());
  EXPECT_FALSE(decode_selection(capped, 999, &s));  // more runs than the variable has elements
  for (size_t n = 0; n < out.size(); ++n) {
    LeReader cut(out.data(), n);
    EXPECT_FALSE(decode_selection(cut, 2000, &s) && cut.left() == 0 && s.runs == many) << n;
  }
  const uint8_t overlong[] = {1, 1, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
  LeReader r(overlong, sizeof overlong);
  EXPECT_FALSE(decode_selection(r, UINT64_MAX, &s));
}

BlockList two_blocks(uint64_t offset) {
  BlockList list;
  list.writer = 5;
  list.subfile = 2;
  list.offset = offset;
  list.shapes = {{0, 0, 80}, {1, 1, 3 * kChecksumChunk + 1}};
  list.sums.resize(2);
  list.sums[0].min[0] = 1;
  list.sums[0].max[0] = 9;
  list.sums[0].chunks = {0x1234};
  list.sums[1].chunks = {1, 2, 3, 4};
  return list;
}

TEST(SubfileBlockLists, SelectionsStoredOnceAndListsStandAlone) {
  WriterTable reader;
  BlockList first = two_blocks(4096);
  first.new_selections = {plan::Selection::box({0, 2}, {4, 2}),
                          plan::Selection::from_runs({{3, 4}, {20, 6}})};
  const auto full = encode_block_list(first);
  auto back = decode_block_list(full.data(), full.size(), reader, 1000);
  ASSERT_TRUE(back.ok()) << back.status().message();
  reader.apply(*back);
  ASSERT_EQ(reader.selections.size(), 2u);
  EXPECT_EQ(reader.selections[1].runs, first.new_selections[1].runs);
  EXPECT_EQ(back->shapes, first.shapes);
  EXPECT_EQ(back->sums[1].chunks, first.sums[1].chunks);
  EXPECT_EQ(back->sums[0].max[0], 9);
  // A later step refers to the stored selections: writer, subfile, flags, offset (3 bytes),
  // counts, then per block its variable, selection and length, min/max (16) and 8 bytes per
  // checksum.
  BlockList second = two_blocks(1u << 20);
  const auto later = encode_block_list(second);
  EXPECT_EQ(later.size(), 1u + 1 + 1 + 3 + 1 + 1 + (1 + 1 + 1) + (1 + 1 + 4) + 2 * 16 + 5 * 8);
  auto again = decode_block_list(later.data(), later.size(), reader, 1000);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->offset, 1u << 20);
  EXPECT_EQ(again->shapes, first.shapes);
  // Without the table it refers to, it is an error, not garbage.
  EXPECT_EQ(decode_block_list(later.data(), later.size(), WriterTable{}, 1000).status().code(),
            TAPIO_ERR_FORMAT);
  // Any truncation of either list fails.
  for (size_t n = 0; n < full.size(); ++n)
    EXPECT_FALSE(decode_block_list(full.data(), n, WriterTable{}, 1000).ok()) << n;
  for (size_t n = 0; n < later.size(); ++n)
    EXPECT_FALSE(decode_block_list(later.data(), n, reader, 1000).ok()) << n;
  EXPECT_EQ(peek_writer(later.data(), later.size()).value(), 5u);
}

TEST(SubfileBlockLists, ReferencesOutsideTheTableAreRejected) {
  BlockList list = two_blocks(0);
  list.shapes[1].selection = 7;  // no such selection
  list.stats = false;
  const auto bytes = encode_block_list(list);
  const auto st = decode_block_list(bytes.data(), bytes.size(), WriterTable{}, 1000).status();
  EXPECT_EQ(st.code(), TAPIO_ERR_FORMAT);
  EXPECT_NE(st.message().find("writer 5"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tapio::subfile

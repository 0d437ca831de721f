// The collective engine's one-pass pack and byte-swap (staging.h, messages.h) against a
// simple reference: every element of every put swapped to big-endian one byte at a time and
// placed at its file offset. Puts of 1-, 2-, 4- and 8-byte elements with runs of mixed
// lengths; windows cut at odd byte boundaries, so pieces start and end inside elements.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "engine/collective/messages.h"
#include "engine/collective/staging.h"
#include "format/netcdf/layout.h"
#include "format/netcdf/schema.h"

namespace tapio::collective {
namespace {

constexpr uint64_t kElements = 40;  // of each variable

VariableDef variable(const std::string& name, DataType type) {
  VariableDef v;
  v.name = name;
  v.type = type;
  v.shape = {kElements};
  v.dim_names = {"x"};
  return v;
}

struct Fixture {
  IoDef io;
  netcdf::Header header;
  std::vector<PutOp> puts;
  std::vector<std::vector<uint8_t>> data;  // each put's bytes, host order
  std::vector<plan::Decomposition> plans;

  Fixture() {
    io.vars = {variable("i8", TAPIO_INT8), variable("i16", TAPIO_INT16),
               variable("f32", TAPIO_FLOAT32), variable("f64", TAPIO_FLOAT64)};
    auto h = netcdf::header_from_io(io, 5);
    EXPECT_TRUE(h.ok()) << h.status().message();
    header = *h;
    netcdf::LayoutOptions layout;
    layout.data_align = 4;
    EXPECT_TRUE(netcdf::compute_layout(header, layout).ok());
    // Runs of 1, 3, 2, 7 and 5 elements with gaps, in file order: each put is in memory
    // order, so one source per put; the last variable gets two puts.
    const std::vector<plan::Run> runs = {{0, 1}, {2, 3}, {6, 2}, {10, 7}, {20, 5}};
    const std::vector<plan::Run> more = {{30, 1}, {33, 4}, {39, 1}};
    for (int v = 0; v < 4; ++v) add(v, runs);
    add(3, more);
    plans.reserve(puts.size());
    for (const PutOp& p : puts)
      plans.push_back(
          plan::decompose(*p.sel, io.vars[p.var].shape, type_size(io.vars[p.var].type)));
  }

  void add(int var, const std::vector<plan::Run>& runs) {
    const size_t esize = type_size(io.vars[var].type);
    uint64_t n = 0;
    for (const plan::Run& r : runs) n += r.length;
    data.emplace_back(n * esize);
    std::iota(data.back().begin(), data.back().end(), static_cast<uint8_t>(17 * var + 1));
    puts.push_back(PutOp{var, plan::shared(plan::Selection::from_runs(runs)), nullptr, n});
  }

  // Described twice: the second description reuses the first one's lists.
  Staged staged(uint64_t step) {
    for (size_t k = 0; k < puts.size(); ++k) puts[k].data = data[k].data();
    const auto plan_of = [&](int, const plan::SharedSelection& sel) -> const plan::Decomposition& {
      for (size_t k = 0; k < puts.size(); ++k)
        if (puts[k].sel == sel) return plans[k];
      ADD_FAILURE() << "unknown selection";
      return plans[0];
    };
    Staged s;
    s.describe(puts, io, header, step + 1, plan_of);
    s.describe(puts, io, header, step, plan_of);
    return s;
  }

  // The reference: byte i of each element reversed, one byte at a time, at its file offset.
  std::vector<int> image(uint64_t step, uint64_t size) const {
    std::vector<int> out(size, -1);
    const uint64_t record = header.record_size();
    for (size_t k = 0; k < puts.size(); ++k) {
      const size_t e = type_size(io.vars[puts[k].var].type);
      const uint64_t base = header.data_offset(header.vars[puts[k].var], step, record);
      uint64_t j = 0;  // element of the put's buffer
      for (const plan::Run& r : puts[k].sel->runs)
        for (uint64_t x = r.offset; x < r.offset + r.length; ++x, ++j)
          for (size_t b = 0; b < e; ++b) out[base + x * e + b] = data[k][j * e + (e - 1 - b)];
    }
    return out;
  }
};

std::vector<int> as_ints(const std::vector<uint8_t>& bytes, const std::vector<int>& like) {
  std::vector<int> out(like.size(), -1);
  for (size_t i = 0; i < like.size(); ++i)
    if (like[i] >= 0) out[i] = bytes[i];
  return out;
}

TEST(Staging, SwapAllPlacesEveryElementBigEndian) {
  Fixture f;
  const Staged s = f.staged(1);
  std::vector<uint8_t> staging(s.bytes());
  s.swap_all(staging.data());
  const uint64_t size = f.header.data_offset(f.header.vars[3], 2, f.header.record_size());
  std::vector<uint8_t> file(size, 0);
  for (const plan::MemSegment& m : s.segments()) {
    uint64_t mem = m.mem;
    plan::for_each_piece(m.seg, [&](uint64_t off, uint64_t len) {
      std::memcpy(file.data() + off, staging.data() + mem, len);
      mem += len;
    });
  }
  const std::vector<int> want = f.image(1, size);
  EXPECT_EQ(as_ints(file, want), want);
}

// Windows of 5, 7 and 13 bytes: every piece is cut where the window ends, most inside an
// element, and each routed segment is scattered straight into its window.
TEST(Staging, ScatterIntoWindowsCutInsideElements) {
  for (uint64_t round : {5, 7, 13}) {
    Fixture f;
    const Staged s = f.staged(0);
    const uint64_t lo = f.header.data_offset(f.header.vars[0], 0, f.header.record_size());
    const uint64_t hi = f.header.data_offset(f.header.vars[0], 1, f.header.record_size());
    const plan::Layout layout = plan::make_layout(lo, hi, 3, 1, round);
    std::vector<uint8_t> file(hi, 0);
    const std::vector<plan::RoutedSegment> routed = plan::route_segments(s.segments(), layout);
    s.scatter(routed.data(), routed.data() + routed.size(), file.data(), 0);
    const std::vector<int> want = f.image(0, hi);
    EXPECT_EQ(as_ints(file, want), want) << "windows of " << round << " bytes";
  }
}

// A steady batch: routes planned for step 0, scattered with a shift of one record from step
// 1's description, place step 1's bytes where they belong.
TEST(Staging, ScatterWithAShiftPlacesTheNextRecord) {
  Fixture f;
  const uint64_t record = f.header.record_size();
  const uint64_t lo = f.header.data_offset(f.header.vars[0], 0, record);
  const uint64_t hi = f.header.data_offset(f.header.vars[0], 1, record);
  const plan::Layout layout = plan::make_layout(lo, hi, 3, 1, 7);
  const std::vector<plan::RoutedSegment> routed =
      plan::route_segments(f.staged(0).segments(), layout);
  const Staged next = f.staged(1);
  std::vector<uint8_t> file(hi + record, 0);
  next.scatter(routed.data(), routed.data() + routed.size(), file.data(), record);
  std::vector<int> want = f.image(1, hi + record);
  std::fill(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(hi), -1);  // step 0's
  EXPECT_EQ(as_ints(file, want), want);
}

// pack() merges the routed segments of a window in one pass, as append_segment does: equal
// pieces at a constant stride, a change of length, a gap, a segment continuing a piece.
TEST(Staging, PackMergesAsAppendSegment) {
  const std::vector<plan::Segment> pieces = {{0, 8, 8, 1},  {16, 8, 8, 1},  {32, 8, 8, 1},
                                             {40, 4, 4, 1}, {44, 4, 4, 1},  {100, 4, 4, 1},
                                             {108, 4, 8, 3}, {140, 4, 4, 1}, {141, 2, 2, 1}};
  std::vector<plan::RoutedSegment> routed;
  for (const plan::Segment& s : pieces) routed.push_back(plan::RoutedSegment{0, 0, s, 0});
  std::vector<plan::Segment> want;
  for (const plan::Segment& s : pieces) plan::append_segment(&want, s);
  ASSERT_EQ(want.size(), 5u);
  ByteBuffer buf;
  pack(routed, 0, routed.size(), &buf);
  const Unpacked u = unpack(buf.data(), buf.size());
  ASSERT_TRUE(u.ok);
  EXPECT_EQ(u.segments.to_vector(), want);
  pack(routed, 5, 7, &buf);  // part of the list: the gap, then the segment that continues it
  const Unpacked part = unpack(buf.data(), buf.size());
  ASSERT_TRUE(part.ok);
  EXPECT_EQ(part.segments.to_vector(), (std::vector<plan::Segment>{{100, 4, 8, 4}}));
  pack(routed, 5, 7, &buf, 1000);  // a steady batch's routes, a record of 1000 bytes later
  const Unpacked moved = unpack(buf.data(), buf.size());
  ASSERT_TRUE(moved.ok);
  EXPECT_EQ(moved.segments.to_vector(), (std::vector<plan::Segment>{{1100, 4, 8, 4}}));
  pack(routed, 2, 2, &buf);  // an empty range: a list of none
  uint64_t n = 1;
  std::memcpy(&n, buf.data(), 8);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(buf.size(), 8u);
}

// The previous batch's segments are moved only when every plan comes back moved by the same
// bytes and that batch's description was finished; otherwise they are made afresh. A move is
// made when the segments are asked for (a steady batch asks for none), however many came.
TEST(Staging, MoveSegmentsOnlyWhenThePlansAllMovedTogether) {
  const plan::Decomposition a, b;
  const Placements before = {{&a, 100}, {&b, 300}};
  const std::vector<plan::MemSegment> made = {{{100, 8, 8, 2}, 0}, {{300, 4, 4, 1}, 16}};
  const auto made_again = [&](MovableSegments* segs) { *segs->fresh(9) = made; };
  MovableSegments segs;
  made_again(&segs);
  EXPECT_TRUE(move_segments({{&a, 1100}, {&b, 1300}}, before, true, &segs));
  EXPECT_TRUE(move_segments({{&a, 2100}, {&b, 2300}}, {{&a, 1100}, {&b, 1300}}, true, &segs));
  ASSERT_EQ(segs.get().size(), 2u);
  EXPECT_EQ(segs.get()[0].seg.offset, 2100u);
  EXPECT_EQ(segs.get()[1].seg.offset, 2300u);  // asked again: moved once
  EXPECT_EQ(segs.get()[1].mem, 16u);  // staging offsets stay
  for (const Placements& now : {Placements{{&a, 1100}, {&b, 1400}},  // moved apart
                                Placements{{&b, 1100}, {&a, 1300}},  // other plans
                                Placements{{&a, 1100}}, Placements{}})
    EXPECT_FALSE(move_segments(now, before, true, &segs));
  // Moved together, but the previous description was cut short.
  EXPECT_FALSE(move_segments({{&a, 1100}, {&b, 1300}}, before, false, &segs));
  segs.move(7);  // made afresh: a pending move is dropped with the old list
  EXPECT_TRUE(segs.fresh(9)->empty());
  EXPECT_TRUE(segs.get().empty());
  segs.fresh(9)->push_back(made[0]);
  EXPECT_EQ(segs.get()[0].seg.offset, 100u);
}

}  // namespace
}  // namespace tapio::collective

// The messages of the collective engine, per (rank, aggregator, round): a segment list
//   count (u64), count × segment (offset, length, stride, count: u64 each)
// then, for writes and read replies, one data message: the segments' pieces in order, back to
// back, which MPI scatters or gathers with a datatype (datatypes.h) so no side copies them
// piece by piece. A rank's pieces in a window are usually regular (interleaved regions, a
// block's rows), so a segment stands for many pieces: the list is O(segments), not 16 bytes
// per piece. Little-endian host order: both ends run the same binary on the same machine family.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/byte_buffer.h"
#include "engine/collective/segment_list.h"
#include "plan/exchange.h"
#include "plan/segments.h"

namespace tapio::collective {

// The maximal (mem, bytes) spans of routed[begin, end) that are back to back in the rank's own
// addressing (a segment's pieces are back to back in memory already): what one data message
// carries, usually one span.
inline std::vector<std::pair<uint64_t, uint64_t>> mem_spans(
    const std::vector<plan::RoutedSegment>& routed, size_t begin, size_t end) {
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (size_t i = begin; i < end; ++i) {
    const uint64_t bytes = routed[i].seg.bytes();
    if (!spans.empty() && spans.back().first + spans.back().second == routed[i].mem)
      spans.back().second += bytes;
    else
      spans.emplace_back(routed[i].mem, bytes);
  }
  return spans;
}

// This rank's runs of one round (plan::RouteRun: a span of its routed segments), one per
// aggregator it has pieces for, in aggregator order.
struct RoundRuns {
  const plan::RouteRun* first = nullptr;
  const plan::RouteRun* last = nullptr;
  const plan::RouteRun* begin() const { return first; }
  const plan::RouteRun* end() const { return last; }
  // The run for aggregator `agg` (one of this round's).
  const plan::RouteRun& to(int agg) const {
    return *std::lower_bound(first, last, agg,
                             [](const plan::RouteRun& x, int a) { return x.agg < a; });
  }
};

// Calls f(r, runs) for every round r of `rounds` with this rank's runs of round r (`runs` is
// sorted by round): O(runs), whatever the number of segments.
template <typename F>
void for_each_round(const std::vector<plan::RouteRun>& runs, uint32_t rounds, F&& f) {
  const plan::RouteRun* it = runs.data();
  const plan::RouteRun* const end = it + runs.size();
  for (uint32_t r = 0; r < rounds; ++r) {
    const plan::RouteRun* first = it;
    while (it != end && it->round == r) ++it;
    f(r, RoundRuns{first, it});
  }
}

// A segment list as sent.
inline void pack_list(const std::vector<plan::Segment>& segs, ByteBuffer* buffer) {
  const uint64_t n = segs.size();
  uint8_t* out = buffer->prepare(8 + 32 * n);
  std::memcpy(out, &n, 8);
  static_assert(sizeof(plan::Segment) == 32, "segments are sent as four u64");
  if (n) std::memcpy(out + 8, segs.data(), 32 * n);
}

// The segment list of routed[begin, end) (consecutive segments merged where they continue each
// other), each moved by `shift` bytes (a steady batch's routes, planned for an earlier record),
// written straight into the buffer: counted in a first pass, so a message costs no allocation
// once the buffer has grown to the step's largest list.
inline void pack(const std::vector<plan::RoutedSegment>& routed, size_t begin, size_t end,
                 ByteBuffer* buffer, uint64_t shift = 0) {
  static_assert(sizeof(plan::Segment) == 32, "segments are sent as four u64");
  const auto merged = [&](auto&& emit) {
    if (begin == end) return;
    plan::Segment cur = routed[begin].seg;
    for (size_t i = begin + 1; i < end; ++i)
      if (!plan::extend_segment(&cur, routed[i].seg)) {
        emit(cur);
        cur = routed[i].seg;
      }
    emit(cur);
  };
  uint64_t n = 0;
  merged([&](const plan::Segment&) { ++n; });
  uint8_t* out = buffer->prepare(8 + 32 * n);
  std::memcpy(out, &n, 8);
  out += 8;
  merged([&](const plan::Segment& s) {
    const plan::Segment moved = plan::shifted(s, shift);
    std::memcpy(out, &moved, 32);
    out += 32;
  });
}

// A list of extents, sent as segments of one piece each.
inline void pack_extents(const std::vector<plan::Extent>& extents, ByteBuffer* buffer) {
  const uint64_t n = extents.size();
  uint8_t* out = buffer->prepare(8 + 32 * n);
  std::memcpy(out, &n, 8);
  out += 8;
  for (const plan::Extent& e : extents) {
    const plan::Segment s{e.offset, e.length, e.length, 1};
    std::memcpy(out, &s, 32);
    out += 32;
  }
}

// plan::for_each_piece, with the length a compile-time constant for the usual small element
// sizes: f(offset, len) may take `auto len` so that a memcpy of len bytes becomes one move.
template <typename F>
void for_each_piece_fixed(const plan::Segment& s, F&& f) {
  const auto each = [&](auto len) {
    uint64_t off = s.offset;
    for (uint64_t k = 0; k < s.count; ++k, off += s.stride) f(off, len);
  };
  switch (s.length) {
    case 4: return each(std::integral_constant<uint64_t, 4>());
    case 8: return each(std::integral_constant<uint64_t, 8>());
    case 16: return each(std::integral_constant<uint64_t, 16>());
    default: return each(s.length);
  }
}

// Copies the pieces of one segment, or of a list, between a window buffer indexed by file
// offset (window[offset]) and a contiguous buffer where they lie back to back in order;
// returns the position after them in the contiguous buffer.
inline const uint8_t* scatter_pieces(const uint8_t* in, const plan::Segment& s, uint8_t* window) {
  if (s.stride == s.length) {
    std::memcpy(window + s.offset, in, s.bytes());
    return in + s.bytes();
  }
  for_each_piece_fixed(s, [&](uint64_t off, auto len) {
    std::memcpy(window + off, in, len);
    in += len;
  });
  return in;
}
inline void scatter_pieces(const uint8_t* in, const SegmentList& segments, uint8_t* window) {
  for (const plan::Segment s : segments) in = scatter_pieces(in, s, window);
}
inline uint8_t* gather_pieces(const uint8_t* window, const plan::Segment& s, uint8_t* out) {
  if (s.stride == s.length) {
    std::memcpy(out, window + s.offset, s.bytes());
    return out + s.bytes();
  }
  for_each_piece_fixed(s, [&](uint64_t off, auto len) {
    std::memcpy(out, window + off, len);
    out += len;
  });
  return out;
}
inline void gather_pieces(const uint8_t* window, const SegmentList& segments, uint8_t* out) {
  for (const plan::Segment s : segments) out = gather_pieces(window, s, out);
}

// A repeat batch's word from a sender on the aggregator's node (kept_rounds.h): its pieces of
// the round, the previous batch's one record later, are in the slot. A count no list has.
constexpr uint64_t kSameAsBefore = UINT64_MAX;
inline void pack_same_as_before(ByteBuffer* buffer) {
  std::memcpy(buffer->prepare(8), &kSameAsBefore, 8);
}
inline bool is_same_as_before(const uint8_t* msg, size_t size) {
  uint64_t n = 0;
  if (size == 8) std::memcpy(&n, msg, 8);
  return size == 8 && n == kSameAsBefore;
}

// A received list, checked; its segments are read from the message (which must outlive them).
struct Unpacked {
  SegmentList segments;
  uint64_t bytes = 0;  // the pieces' total length
  bool ok = false;
};

// Whether a received segment is well formed (length and count > 0, no overflow), adding its
// bytes to *total unless that would wrap (a wrapped total would let a short data message pass
// for the list).
inline bool add_segment_bytes(const plan::Segment& s, uint64_t* total) {
  if (s.length == 0 || s.count == 0 || s.length > UINT64_MAX - s.offset) return false;
  if (s.length > UINT64_MAX / s.count ||
      s.count - 1 > (UINT64_MAX - s.offset - s.length) / std::max<uint64_t>(s.stride, 1))
    return false;
  if (s.bytes() > UINT64_MAX - *total) return false;
  *total += s.bytes();
  return true;
}

// `ok` requires a non-empty list of well-formed segments and nothing after it.
inline Unpacked unpack(const uint8_t* msg, size_t size) {
  Unpacked u;
  uint64_t n = 0;
  if (size < 8) return u;
  std::memcpy(&n, msg, 8);
  if (n == 0 || n > (size - 8) / 32 || size != 8 + 32 * n) return u;
  u.segments = SegmentList(msg + 8, n);
  for (const plan::Segment s : u.segments)
    if (!add_segment_bytes(s, &u.bytes)) return u;
  u.ok = true;
  return u;
}

// Two-level aggregation: a rank's pieces of one round for aggregators on other nodes, handed
// to its node's gatherer as one packet
//   group count (u64), then per group: aggregator (u64), segment count n (u64), n × segment
// followed by one data message per group (its pieces back to back, at most a round's window).
struct Group {
  uint64_t agg = 0;
  std::vector<plan::Segment> segments;
  uint64_t bytes = 0;  // the pieces' total length
  uint64_t at = 0;     // gatherer: where its data lies in the gathered buffer
};

inline void pack_groups(const std::vector<Group>& groups, ByteBuffer* buffer) {
  size_t size = 8;
  for (const Group& g : groups) size += 16 + 32 * g.segments.size();
  uint8_t* out = buffer->prepare(size);
  const uint64_t n = groups.size();
  std::memcpy(out, &n, 8);
  out += 8;
  for (const Group& g : groups) {
    const uint64_t head[2] = {g.agg, g.segments.size()};
    std::memcpy(out, head, 16);
    std::memcpy(out + 16, g.segments.data(), 32 * g.segments.size());
    out += 16 + 32 * g.segments.size();
  }
}

// False unless the packet is non-empty groups of well-formed segments for aggregators below
// `aggregators`, with nothing after them.
inline bool unpack_groups(const uint8_t* msg, size_t size, uint64_t aggregators,
                          std::vector<Group>* groups) {
  groups->clear();
  uint64_t n = 0;
  if (size < 8) return false;
  std::memcpy(&n, msg, 8);
  size_t at = 8;
  if (n == 0 || n > (size - 8) / 48) return false;  // each group has at least one segment
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t head[2];
    if (size - at < 16) return false;
    std::memcpy(head, msg + at, 16);
    at += 16;
    if (head[0] >= aggregators || head[1] == 0 || head[1] > (size - at) / 32) return false;
    Group g;
    g.agg = head[0];
    g.segments.resize(head[1]);
    std::memcpy(g.segments.data(), msg + at, 32 * head[1]);
    at += 32 * head[1];
    for (const plan::Segment& s : g.segments)
      if (!add_segment_bytes(s, &g.bytes)) return false;
    groups->push_back(std::move(g));
  }
  return at == size;
}

}  // namespace tapio::collective

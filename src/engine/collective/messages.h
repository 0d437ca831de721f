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

// Calls f(r, begin, end) for every round r of `rounds`, routed[begin, end) being this rank's
// pieces of round r (routed is sorted by round).
template <typename F>
void for_each_round(const std::vector<plan::RoutedSegment>& routed, uint32_t rounds, F&& f) {
  size_t i = 0;
  for (uint32_t r = 0; r < rounds; ++r) {
    size_t j = i;
    while (j < routed.size() && routed[j].round == r) ++j;
    f(r, i, j);
    i = j;
  }
}

// The segment list of routed[begin, end) (consecutive segments merged where they continue each
// other).
inline void pack(const std::vector<plan::RoutedSegment>& routed, size_t begin, size_t end,
                 ByteBuffer* buffer) {
  std::vector<plan::Segment> segs;
  for (size_t i = begin; i < end; ++i) plan::append_segment(&segs, routed[i].seg);
  const uint64_t n = segs.size();
  uint8_t* out = buffer->prepare(8 + 32 * n);
  std::memcpy(out, &n, 8);
  static_assert(sizeof(plan::Segment) == 32, "segments are sent as four u64");
  if (n) std::memcpy(out + 8, segs.data(), 32 * n);
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
inline void scatter_pieces(const uint8_t* in, const std::vector<plan::Segment>& segments,
                           uint8_t* window) {
  for (const plan::Segment& s : segments) in = scatter_pieces(in, s, window);
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
inline void gather_pieces(const uint8_t* window, const std::vector<plan::Segment>& segments,
                          uint8_t* out) {
  for (const plan::Segment& s : segments) out = gather_pieces(window, s, out);
}

struct Unpacked {
  std::vector<plan::Segment> segments;
  uint64_t bytes = 0;  // the pieces' total length
  bool ok = false;
};

// `ok` requires a non-empty list of well-formed segments (length and count > 0, no overflow,
// pieces adding up to at most 2^64 - 1 bytes: a wrapped total would let a short data message
// pass for the list) and nothing after it.
inline Unpacked unpack(const uint8_t* msg, size_t size) {
  Unpacked u;
  uint64_t n = 0;
  if (size < 8) return u;
  std::memcpy(&n, msg, 8);
  if (n == 0 || n > (size - 8) / 32 || size != 8 + 32 * n) return u;
  u.segments.resize(n);
  std::memcpy(u.segments.data(), msg + 8, 32 * n);
  for (const plan::Segment& s : u.segments) {
    if (s.length == 0 || s.count == 0 || s.length > UINT64_MAX - s.offset) return u;
    if (s.length > UINT64_MAX / s.count || s.count - 1 > (UINT64_MAX - s.offset - s.length) /
                                                             std::max<uint64_t>(s.stride, 1))
      return u;
    if (s.bytes() > UINT64_MAX - u.bytes) return u;
    u.bytes += s.bytes();
  }
  u.ok = true;
  return u;
}

}  // namespace tapio::collective

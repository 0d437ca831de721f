// The packed messages of the collective engine: one per (rank, aggregator, round).
//   message = count (u64), count × segment (offset, length, stride, count: u64 each),
//             then the data (writes, replies): the segments' pieces, in order, back to back
// A rank's pieces in a window are usually regular (interleaved regions, a block's rows), so a
// segment stands for many pieces: the header is O(segments), not 16 bytes per piece.
// Little-endian host order: both ends run the same binary on the same machine family.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/byte_buffer.h"
#include "plan/exchange.h"
#include "plan/segments.h"

namespace tapio::collective {

// Calls f(mem, bytes) for maximal spans of routed[begin, end) whose segments are back to back
// in the rank's own addressing (one memcpy instead of one per segment; a segment's pieces are
// back to back in memory already).
template <typename F>
void for_each_mem_span(const std::vector<plan::RoutedSegment>& routed, size_t begin, size_t end,
                       F&& f) {
  size_t i = begin;
  while (i < end) {
    const uint64_t mem = routed[i].mem;
    uint64_t bytes = routed[i].seg.bytes();
    size_t j = i + 1;
    while (j < end && routed[j].mem == mem + bytes) bytes += routed[j++].seg.bytes();
    f(mem, bytes);
    i = j;
  }
}

// The segments of routed[begin, end) (consecutive ones merged where they continue each
// other), then (if `data` is non-null) their bytes from data + mem.
inline void pack(const std::vector<plan::RoutedSegment>& routed, size_t begin, size_t end,
                 const uint8_t* data, ByteBuffer* buffer) {
  std::vector<plan::Segment> segs;
  uint64_t bytes = 0;
  for (size_t i = begin; i < end; ++i) {
    plan::append_segment(&segs, routed[i].seg);
    bytes += routed[i].seg.bytes();
  }
  if (!data) bytes = 0;
  const uint64_t n = segs.size();
  uint8_t* out = buffer->prepare(8 + 32 * n + bytes);
  std::memcpy(out, &n, 8);
  static_assert(sizeof(plan::Segment) == 32, "segments are sent as four u64");
  if (n) std::memcpy(out + 8, segs.data(), 32 * n);
  uint8_t* body = out + 8 + 32 * n;
  if (data)
    for_each_mem_span(routed, begin, end, [&](uint64_t mem, uint64_t len) {
      std::memcpy(body, data + mem, len);
      body += len;
    });
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

struct Unpacked {
  std::vector<plan::Segment> segments;
  const uint8_t* data = nullptr;  // the bytes after the headers
  uint64_t bytes = 0;             // the pieces' total length
  bool ok = false;
};

// `ok` requires well-formed segments (length and count > 0, no overflow) and, with data,
// exactly their bytes after the header.
inline Unpacked unpack(const uint8_t* msg, size_t size, bool with_data) {
  Unpacked u;
  uint64_t n = 0;
  if (size < 8) return u;
  std::memcpy(&n, msg, 8);
  if (n > (size - 8) / 32) return u;
  u.segments.resize(n);
  if (n) std::memcpy(u.segments.data(), msg + 8, 32 * n);
  for (const plan::Segment& s : u.segments) {
    if (s.length == 0 || s.count == 0 || s.length > UINT64_MAX - s.offset) return u;
    if (s.length > UINT64_MAX / s.count || s.count - 1 > (UINT64_MAX - s.offset - s.length) /
                                                             std::max<uint64_t>(s.stride, 1))
      return u;
    u.bytes += s.bytes();
  }
  u.data = msg + 8 + 32 * n;
  u.ok = !with_data || size == 8 + 32 * n + u.bytes;
  return u;
}

}  // namespace tapio::collective

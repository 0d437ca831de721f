// Runs and strides instead of per-piece lists. A rank's pieces in one (aggregator, round) window
// are usually regular — HPIO's interleaved regions, a block's rows — so they are described as
// segments (offset, length, stride, count): `count` pieces of `length` bytes, `stride` bytes
// apart. Messages carry segments, not pieces, and the aggregator tracks which bytes of its
// window were written in a ByteMap (one bit per byte) instead of sorting every received piece:
// overlap detection, fill gaps and the runs to write or read all come from the map in
// O(window / 64) word operations plus O(pieces) marking.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "plan/domains.h"
#include "plan/exchange.h"

namespace tapio::plan {

struct Segment {
  uint64_t offset = 0;
  uint64_t length = 0;  // bytes per piece (> 0)
  uint64_t stride = 0;  // bytes from one piece's start to the next (any value, even 0)
  uint64_t count = 0;   // pieces (> 0)
  uint64_t bytes() const { return length * count; }
  // One past the last byte of the last piece (stride >= 0, so the last piece ends last unless
  // pieces overlap; callers check pieces against windows with first() and last_end()).
  uint64_t last_end() const { return offset + (count - 1) * stride + length; }
  bool operator==(const Segment& o) const {
    return offset == o.offset && length == o.length && stride == o.stride && count == o.count;
  }
};

// Pieces routed[begin, end) (in order) as segments: consecutive pieces of the same length at
// a constant stride share one segment. Expanding the result gives back exactly those pieces,
// in the same order. O(end - begin).
std::vector<Segment> segments_of(const std::vector<Routed>& routed, size_t begin, size_t end);

// Calls f(offset, length) for each piece of s, in order.
template <typename F>
void for_each_piece(const Segment& s, F&& f) {
  uint64_t off = s.offset;
  for (uint64_t k = 0; k < s.count; ++k, off += s.stride) f(off, s.length);
}

// One bit per byte of a window [base, base + length).
class ByteMap {
 public:
  void reset(uint64_t base, uint64_t length);
  uint64_t base() const { return base_; }
  uint64_t length() const { return length_; }
  // Set the bits of [offset, offset + n) (inside the window); returns false if any was set
  // already (the bytes are still marked).
  bool mark(uint64_t offset, uint64_t n);
  // Calls f(offset, length) for each maximal run of set (or clear) bytes inside [from, to).
  template <typename F>
  void for_each_run(bool set, uint64_t from, uint64_t to, F&& f) const;

 private:
  bool bit(uint64_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  // First index in [i, end) whose bit equals `set`, or end.
  uint64_t find(bool set, uint64_t i, uint64_t end) const;

  uint64_t base_ = 0, length_ = 0;
  std::vector<uint64_t> words_;
};

template <typename F>
void ByteMap::for_each_run(bool set, uint64_t from, uint64_t to, F&& f) const {
  uint64_t i = from - base_;
  const uint64_t end = to - base_;
  while (i < end) {
    i = find(set, i, end);
    if (i >= end) break;
    const uint64_t j = find(!set, i, end);
    f(base_ + i, j - i);
    i = j;
  }
}

// Merge extents (sorted, disjoint) whose holes are at most `max_hole` bytes: data sieving, as
// ROMIO does for reads. Reading a small hole costs less than another request.
std::vector<Extent> sieve(const std::vector<Extent>& sorted, uint64_t max_hole);

}  // namespace tapio::plan

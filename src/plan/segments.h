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

// s moved by `by` bytes in the file.
inline Segment shifted(Segment s, uint64_t by) {
  s.offset += by;
  return s;
}

// Extends *last by s when s continues it (same length, constant stride), so that the one
// segment expands to last's pieces and then s's; false (and *last unchanged) otherwise.
bool extend_segment(Segment* last, const Segment& s);

// Appends s to a list of segments, extending the last one when s continues it: expanding the
// list gives the same pieces in the same order either way.
void append_segment(std::vector<Segment>* out, const Segment& s);

// A segment of a rank's own I/O with its memory: piece k is at file offset
// seg.offset + k * seg.stride and at `mem` + k * seg.length in the rank's own addressing
// (its pieces are back to back in memory, seg.bytes() bytes from mem).
struct MemSegment {
  Segment seg;
  uint64_t mem = 0;
};

// Adds the piece (file_offset, length, mem) to `segs`: it extends the last segment if it
// continues it in the file (same length, constant stride >= 0) and in memory (right after the
// last segment's bytes); otherwise it starts a new segment of count 1. A box's rows, HPIO's
// regions and most run lists so become one segment per put instead of one piece per run.
inline void append_piece(std::vector<MemSegment>* segs, uint64_t file_offset, uint64_t length,
                         uint64_t mem) {
  if (!segs->empty()) {  // inline: called once per run of a selection
    MemSegment& b = segs->back();
    Segment& s = b.seg;
    if (s.length == length && mem == b.mem + s.bytes()) {
      const uint64_t last = s.offset + (s.count - 1) * s.stride;
      if (s.count == 1 && file_offset >= s.offset) {
        s.stride = file_offset - s.offset;
        s.count = 2;
        return;
      }
      if (s.count > 1 && file_offset >= last && file_offset - last == s.stride) {
        ++s.count;
        return;
      }
    }
  }
  segs->push_back(MemSegment{Segment{file_offset, length, length, 1}, mem});
}

struct RoutedSegment {
  uint32_t round = 0;
  int agg = 0;
  Segment seg;
  uint64_t mem = 0;  // as in MemSegment
};

// route() on segments, without expanding them: each segment is cut at domain and round
// boundaries — a run of whole pieces inside one window stays one segment, a piece straddling
// a window's end is cut as route() cuts it — so the work and the result are O(segments +
// windows crossed), not O(pieces). Result sorted by (round, agg, offset of the segment's first
// piece); expanding a window's segments gives exactly the pieces route() gives that window
// for the expanded input (same file offsets, lengths and memory offsets; within a window in
// the segments' order rather than interleaved by offset). Count-1 segments have stride ==
// length.
std::vector<RoutedSegment> route_segments(const std::vector<MemSegment>& segments,
                                          const Layout& layout);
// The same into *out, whose memory is reused (an engine keeps it from batch to batch).
void route_segments(const std::vector<MemSegment>& segments, const Layout& layout,
                    std::vector<RoutedSegment>* out);

// One (round, aggregator) of a routed list: its segments are [begin, end). A list sorted by
// (round, agg) is a few such runs, so a step finds its rounds and where each goes in
// O(rounds x aggregators), never by walking its O(segments) list again.
struct RouteRun {
  uint32_t round = 0;
  int agg = 0;
  size_t begin = 0;
  size_t end = 0;
};
// The runs of `routed` (sorted by round, then agg), in its order, into *runs (reused).
void route_runs(const std::vector<RoutedSegment>& routed, std::vector<RouteRun>* runs);

// Whether s has pieces (length and count > 0) and every one lies inside w, without
// overflow: what an aggregator checks of a received list before it touches its window.
bool segment_inside(const Segment& s, const Extent& w);

// Calls f(offset, length) for each piece of s, in order.
template <typename F>
void for_each_piece(const Segment& s, F&& f) {
  uint64_t off = s.offset;
  for (uint64_t k = 0; k < s.count; ++k, off += s.stride) f(off, s.length);
}

// Calls f(from, to) for what reading s takes when holes of up to max_hole are read along: the
// span of the whole segment when its holes are that small (a round-robin map's single
// elements: one span, not 10^6), else each piece.
template <typename F>
void for_each_read_span(const Segment& s, uint64_t max_hole, F&& f) {
  if (s.count == 1 || s.stride - s.length <= max_hole)
    f(s.offset, s.last_end());
  else
    for_each_piece(s, [&](uint64_t off, uint64_t len) { f(off, off + len); });
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
  // mark() for every piece of s (inside the window); false if any byte was set already
  // (or two of its pieces overlap).
  bool mark(const Segment& s);
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

// What an aggregator reads for routed[begin, end) (each moved by `shift`), sieved as it
// sieves: each segment's for_each_read_span, merged where they overlap or lie at most
// `max_hole` apart. Sorted, disjoint; O(segments) when the
// segments come in file order, as routes do.
std::vector<Extent> sieved_reads(const std::vector<RoutedSegment>& routed, size_t begin,
                                 size_t end, uint64_t shift, uint64_t max_hole);

// How many readers share reading `bytes`: one per `share` bytes (share > 0), at least one and
// at most `ranks`.
int sharing_readers(uint64_t bytes, uint64_t share, int ranks);

// Reader j's share of reading `reads` (sorted, disjoint) among `readers`: the bytes of the
// reads, taken in order, cut into `readers` parts of nearly equal size at multiples of `align`
// bytes of that sequence (the last part takes the rest); every byte belongs to one part.
std::vector<Extent> read_share(const std::vector<Extent>& reads, int readers, int j,
                               uint64_t align);

}  // namespace tapio::plan

#include "plan/decomposition.h"

#include <algorithm>

namespace tapio::plan {

Decomposition decompose(const Selection& sel, const std::vector<uint64_t>& shape, size_t esize) {
  Decomposition d;
  plan::for_each_run(sel, shape, [&](const Run& run, uint64_t mem) {
    d.in_order = d.in_order && mem * esize == d.bytes;
    append_piece(&d.segments, run.offset * esize, run.length * esize, d.bytes);
    d.bytes += run.length * esize;
  });
  if (!d.in_order)
    plan::for_each_run(sel, shape, [&](const Run& run, uint64_t mem) {
      d.runs.emplace_back(mem * esize, run.length * esize);
    });
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const MemSegment& m : d.segments) {
    lo = std::min(lo, m.seg.offset);
    hi = std::max(hi, m.seg.last_end());
  }
  if (hi > 0) d.range = Extent{lo, hi - lo};
  d.segments.shrink_to_fit();
  return d;
}

namespace {

// Appends segment m of a plan as append_piece would append its pieces: the first through
// append_piece (it may continue the last segment); the others continue whatever that piece
// ended in when their stride matches, else they are one segment of their own. True when the
// first piece began a segment: then m is placed as planned, and so are the segments after it.
bool append_exactly(std::vector<MemSegment>* segs, const MemSegment& m, uint64_t base,
                    uint64_t mem) {
  const Segment& s = m.seg;
  append_piece(segs, base + s.offset, s.length, mem + m.mem);
  Segment& last = segs->back().seg;
  if (last.count == 1) {
    last.stride = s.stride;
    last.count = s.count;
    return true;
  }
  if (s.count == 1) return false;
  if (last.stride == s.stride) {
    last.count += s.count - 1;
    return false;
  }
  const uint64_t rest = s.count - 1;
  segs->push_back(MemSegment{
      Segment{base + s.offset + s.stride, s.length, rest > 1 ? s.stride : s.length, rest},
      mem + m.mem + s.length});
  return false;
}

}  // namespace

// Segments are appended exactly until one begins a segment of its own; the rest are copied
// (each could not continue the one before it when the plan was made).
void append_decomposition(std::vector<MemSegment>* segs, const Decomposition& d, uint64_t base,
                          uint64_t mem) {
  size_t i = 0;
  while (i < d.segments.size())
    if (append_exactly(segs, d.segments[i++], base, mem)) break;
  const size_t at = segs->size();
  segs->insert(segs->end(), d.segments.begin() + static_cast<long>(i), d.segments.end());
  for (auto it = segs->begin() + static_cast<long>(at); it != segs->end(); ++it) {
    it->seg.offset += base;
    it->mem += mem;
  }
}

void widen_by(Extent* range, const Decomposition& d, uint64_t base) {
  if (d.range.length == 0) return;
  const uint64_t lo = base + d.range.offset, hi = lo + d.range.length;
  if (range->length == 0) {
    *range = Extent{lo, hi - lo};
    return;
  }
  const uint64_t from = std::min(range->offset, lo), to = std::max(range->end(), hi);
  *range = Extent{from, to - from};
}

}  // namespace tapio::plan

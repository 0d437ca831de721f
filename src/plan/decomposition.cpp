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

// The first piece goes through append_piece (it may continue the last segment); the others
// continue whatever that piece ended in when their stride matches, else they are one segment
// of their own, as append_piece would have made them.
void append_decomposition(std::vector<MemSegment>* segs, const Decomposition& d, uint64_t base,
                          uint64_t mem) {
  for (const MemSegment& m : d.segments) {
    const Segment& s = m.seg;
    append_piece(segs, base + s.offset, s.length, mem + m.mem);
    if (s.count == 1) continue;
    Segment& last = segs->back().seg;
    if (last.count == 1) {  // a segment of its own: the rest extend it as they did here
      last.stride = s.stride;
      last.count = s.count;
    } else if (last.stride == s.stride) {
      last.count += s.count - 1;
    } else {
      const uint64_t rest = s.count - 1;
      segs->push_back(MemSegment{
          Segment{base + s.offset + s.stride, s.length, rest > 1 ? s.stride : s.length, rest},
          mem + m.mem + s.length});
    }
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

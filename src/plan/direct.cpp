#include "plan/direct.h"

#include <algorithm>

namespace tapio::plan {

DirectPlan plan_direct(const std::vector<MemSegment>& segments, uint64_t min_request) {
  DirectPlan p;
  std::vector<DirectRequest> pieces;
  for (const MemSegment& m : segments) {
    const Segment& s = m.seg;
    if (s.count == 1 || s.stride == s.length) {
      pieces.push_back(DirectRequest{Extent{s.offset, s.bytes()}, m.mem});
      continue;
    }
    if (s.length < min_request) return p;  // strided small pieces: an aggregator's job
    for (uint64_t k = 0; k < s.count; ++k)
      pieces.push_back(DirectRequest{Extent{s.offset + k * s.stride, s.length}, m.mem + k * s.length});
  }
  std::sort(pieces.begin(), pieces.end(), [](const DirectRequest& a, const DirectRequest& b) {
    return a.file.offset < b.file.offset;
  });
  for (const DirectRequest& q : pieces) {
    if (!p.requests.empty()) {
      DirectRequest& last = p.requests.back();
      if (q.file.offset < last.file.end()) return p;  // overlap: the exchange reports it
      if (q.file.offset == last.file.end() && q.mem == last.mem + last.file.length) {
        last.file.length += q.file.length;
        continue;
      }
    }
    p.requests.push_back(q);
  }
  for (const DirectRequest& q : p.requests) {
    if (q.file.length < min_request) return DirectPlan{};
    p.bytes += q.file.length;
  }
  p.eligible = true;
  return p;
}

void widen(Extent* range, const Segment& s) {
  const uint64_t lo = s.offset, hi = s.last_end();
  if (range->length == 0) {
    *range = Extent{lo, hi - lo};
    return;
  }
  const uint64_t from = std::min(range->offset, lo), to = std::max(range->end(), hi);
  *range = Extent{from, to - from};
}

void widen_since(Extent* range, const std::vector<MemSegment>& segs, SegmentMark since) {
  if (since.size > 0 && segs[since.size - 1].seg.count > since.last_count) {
    Segment grown = segs[since.size - 1].seg;  // only its new pieces
    grown.offset += since.last_count * grown.stride;
    grown.count -= since.last_count;
    widen(range, grown);
  }
  for (size_t k = since.size; k < segs.size(); ++k) widen(range, segs[k].seg);
}

bool in_rank_order(const std::vector<Extent>& mine, const std::vector<uint64_t>& lower_hi) {
  for (size_t v = 0; v < mine.size(); ++v)
    if (mine[v].length > 0 && lower_hi[v] > mine[v].offset) return false;
  return true;
}

}  // namespace tapio::plan

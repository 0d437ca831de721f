// Direct I/O: when every rank's pieces are large, contiguous runs and the ranks' file ranges do
// not interleave, the two-phase exchange only adds a copy and a hop — each rank reads or writes
// its own pieces (ROMIO's independent shortcut for non-interleaved access). This decides the
// local half and lists the requests; the engine checks the global half: in every variable the
// ranks' ranges are disjoint in rank order (one exscan of a value per variable, O(variables)
// memory per rank, no allgather of P ranges). Per variable, because a step writes many
// variables: a rank's slab of each spans the whole step, yet no two ranks' slabs interleave.
#pragma once
#include <cstdint>
#include <vector>

#include "plan/segments.h"

namespace tapio::plan {

struct DirectRequest {
  Extent file;
  uint64_t mem = 0;  // where its bytes are in the rank's own staging buffer
};

struct DirectPlan {
  bool eligible = false;              // locally: every request large, no two pieces overlap
  std::vector<DirectRequest> requests;  // sorted by file offset
  uint64_t bytes = 0;
};

// The requests of `segments` (a rank's pieces with their memory): pieces that continue each
// other in the file and in memory merge into one request. Eligible when no two pieces
// overlap and every request has at least `min_request` bytes (smaller ones belong in an
// aggregator's large request); gives up early, without listing every piece, otherwise.
DirectPlan plan_direct(const std::vector<MemSegment>& segments, uint64_t min_request);

// Grows `range` (empty: length 0) to cover the pieces of s.
void widen(Extent* range, const Segment& s);

// A mark in a growing segment list (append_piece may extend the last segment), and the range
// of the pieces appended since: what one put or get added.
struct SegmentMark {
  size_t size = 0;
  uint64_t last_count = 0;
};
inline SegmentMark mark_of(const std::vector<MemSegment>& segs) {
  return SegmentMark{segs.size(), segs.empty() ? 0 : segs.back().seg.count};
}
void widen_since(Extent* range, const std::vector<MemSegment>& segs, SegmentMark since);

// The global half: `mine[v]` is the file range this rank touches in variable v (length 0 if
// none), `lower_hi[v]` the highest end any lower rank has there (0 if none): every range of
// mine starts at or after it.
bool in_rank_order(const std::vector<Extent>& mine, const std::vector<uint64_t>& lower_hi);

}  // namespace tapio::plan

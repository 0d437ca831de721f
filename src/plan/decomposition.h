// A rank's selection of a variable as byte pieces, planned once: the segments its runs make
// (relative to the variable's first byte and to the put's or get's first byte), which an
// engine then places at any step's offset without visiting the runs again (engine/plan_cache.h
// keeps them from batch to batch). Pure.
#pragma once
#include <cstdint>
#include <vector>

#include "plan/domains.h"
#include "plan/segments.h"
#include "plan/selection.h"

namespace tapio::plan {

struct Decomposition {
  // seg.offset: bytes from the variable's first byte; mem: bytes from the buffer's first byte
  // of the pieces in visiting order (back to back).
  std::vector<MemSegment> segments;
  uint64_t bytes = 0;  // of every piece
  Extent range;        // the file bytes the pieces span, relative as segments (length 0: none)
  // Whether the runs are visited in the user's memory order (boxes, run lists): then the
  // buffer is one span; otherwise `runs` gives each run's (byte offset in the user's buffer,
  // bytes), in visiting order.
  bool in_order = true;
  std::vector<std::pair<uint64_t, uint64_t>> runs;

  uint64_t memory() const {  // bytes held
    return segments.capacity() * sizeof(MemSegment) + runs.capacity() * sizeof(runs[0]);
  }
};

Decomposition decompose(const Selection& sel, const std::vector<uint64_t>& shape, size_t esize);

// Appends d's pieces to segs, at file offset `base` and memory offset `mem`, exactly as
// append_piece would append them one by one (so a piece may extend the last segment of the
// put before), in O(d's segments).
void append_decomposition(std::vector<MemSegment>* segs, const Decomposition& d, uint64_t base,
                          uint64_t mem);

// Widens *range (length 0: none yet) to take in d's range at file offset `base`.
void widen_by(Extent* range, const Decomposition& d, uint64_t base);

}  // namespace tapio::plan

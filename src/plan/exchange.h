// The two-phase exchange schedule, pure: which bytes of a rank's pieces go to which aggregator
// in which round. Every rank computes its own part from the same global inputs (file range,
// aggregator count, stripe and buffer sizes), so no rank needs any other rank's request list:
// O(pieces · log aggregators) work per rank and no O(P) memory.
#pragma once
#include <cstdint>
#include <vector>

#include "plan/domains.h"

namespace tapio::plan {

// A contiguous piece of a rank's I/O: `length` bytes at `file_offset`, at `mem` in the rank's
// own addressing (an index the caller interprets: a byte offset into a staging buffer, say).
struct Piece {
  uint64_t file_offset = 0;
  uint64_t length = 0;
  uint64_t mem = 0;
};

// The global shape of one collective operation.
struct Layout {
  std::vector<Extent> domains;  // one per aggregator, in aggregator order
  uint64_t round_bytes = 0;     // bytes per aggregator per round (buffer_size)
  uint32_t rounds = 0;          // max over domains of ceil(domain length / round_bytes)

  // The bytes aggregator `agg` handles in round `r` (may be empty).
  Extent window(int agg, uint32_t r) const;
};

// Domains over [lo, hi) aligned to stripe_size, rounds of round_bytes. round_bytes is raised
// if needed so that there are at most max_rounds rounds (MPI tags are finite).
Layout make_layout(uint64_t lo, uint64_t hi, int aggregators, uint64_t stripe_size,
                   uint64_t round_bytes, uint32_t max_rounds = 32000);

struct Routed {
  uint32_t round = 0;
  int agg = 0;
  Piece piece;
};

// Cut `pieces` at domain and round boundaries, one by one: the per-piece reference that
// route_segments (segments.h), which the engine uses, is tested against. Result sorted by
// (round, agg, file_offset); every input byte appears exactly once, inside its aggregator's
// window for its round.
std::vector<Routed> route(const std::vector<Piece>& pieces, const Layout& layout);

}  // namespace tapio::plan

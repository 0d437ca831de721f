// A piece as the blocks of a block-based library (ADIOS 1 and ADIOS 2 write global arrays as
// blocks: boxes, each with its own metadata), shared by the adios1 and adios2 methods.
#pragma once
#include <utility>
#include <vector>

#include "bench.h"

namespace bench {

// One block of a variable this rank writes (or reads): a box and where its elements sit in the
// rank's buffer, as segments (buffer offset, length) in the box's row-major order; a block with
// one segment is used in place, one with several is gathered (written) or scattered (read).
struct Block {
  Dims start, count;
  std::vector<std::pair<uint64_t, uint64_t>> segs;
  uint64_t elements() const {
    uint64_t n = 1;
    for (uint64_t c : count) n *= c;
    return n;
  }
};

// The piece as blocks: each box is one block (back to back in the buffer); the runs of other
// pieces are cut at rows (run_boxes) and row boxes that continue one another down the
// second-to-last dimension (same columns, next row) merge into one block, so a column band
// (matrix) or a level-by-level decomposition (e3sm) is a few blocks rather than one per row.
std::vector<Block> blocks_of(const Var& var, const Piece& pc);

}  // namespace bench

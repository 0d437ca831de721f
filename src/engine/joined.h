// Joined (local) arrays, TAPIO_VAR_JOINED: each rank gives the length of its block along
// dimension 0, and the blocks of one batch of puts follow one another in rank order, as
// ADIOS2's JoinedArray places them. One exscan per batch finds every rank's offsets, for all
// joined variables at once; the engines then store the placed blocks like any other.
#pragma once
#include <cstdint>
#include <vector>

#include "comm/comm.h"
#include "core/model.h"
#include "core/status.h"
#include "engine/joined_blocks.h"

namespace tapio {

struct PutOp;

class JoinedPlacer {
 public:
  // Collective when `io` has joined variables (the same definitions on every rank), else
  // nothing: gives this batch's joined puts their start along dimension 0, after the step's
  // earlier batches. A rank that failed locally (`contribute` false) still takes part, with no
  // blocks. `last` (the step's end) skips the sum that later batches would need.
  Status place(const IoDef& io, const comm::Comm& comm, std::vector<PutOp>& puts,
               bool contribute, bool last);
  // A new step starts at 0.
  void next_step() { placed_.clear(); }
  // Whether place found joined variables (only then did it place anything).
  bool active() const { return !slot_.empty(); }
  // The step's rows are wanted after its last batch too (a NetCDF file stores each step's
  // count, and writes the step after the earlier ones): `last` then still sums them.
  void keep_totals() { keep_totals_ = true; }
  // With keep_totals, after place: the rows of joined variable `var` that the last batch
  // placed, [first, end) within the step (end is then the step's rows so far).
  struct Rows {
    uint64_t first = 0, end = 0;
  };
  Rows batch_rows(int var) const;

 private:
  std::vector<int> slot_;           // variable index -> position among the joined, or -1
  std::vector<uint64_t> placed_;    // per joined variable, in definition order: the step so far
  std::vector<uint64_t> previous_;  // the same before the last batch
  bool keep_totals_ = false;
};

}  // namespace tapio

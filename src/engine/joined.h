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
#include "plan/selection.h"

namespace tapio {

struct PutOp;

// A block of joined variable `v`: a box with the other dimensions whole. As a writer gives it
// (`placed` false) it starts at 0; as stored, anywhere along dimension 0. TAPIO_ERR_SHAPE
// otherwise, naming the dimension.
Status check_joined_block(const VariableDef& v, const plan::Selection& sel, bool placed);

// The length of a joined variable at one step: the end of its last stored block. The blocks
// must tile [0, length) without gaps or overlaps (TAPIO_ERR_FORMAT otherwise).
Result<uint64_t> joined_length(std::vector<plan::Selection> blocks);

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

 private:
  std::vector<uint64_t> placed_;  // per joined variable, in definition order: the step so far
};

}  // namespace tapio

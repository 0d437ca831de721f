// Do the runs of all ranks overlap, and how much of a variable do they cover? Pure.
#pragma once
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "plan/selection.h"

namespace tapio::plan {

struct OwnedRun {
  Run run;
  int rank = 0;
};

// Sorts `runs` by offset. Returns the number of elements covered, or TAPIO_ERR_SHAPE naming
// the two ranks whose runs overlap and where (the same rank twice if it overlaps itself).
Result<uint64_t> covered_elements(std::vector<OwnedRun>& runs);

// The error for two overlapping runs (`first` starts no later), in the words every engine
// uses: TAPIO_ERR_SHAPE "blocks overlap: rank a writes elements [..) and rank b writes [..)".
Status overlap_error(const OwnedRun& first, const OwnedRun& second);

}  // namespace tapio::plan

// An aggregator's rounds as its last batch planned in full left them: what each round wrote
// (and which gaps it filled) or read, relative to the round's window. A repeat batch — every
// rank puts or gets what it did in the previous batch, one record later (so the overlap check
// and the bitmap of what arrives or is wanted would find the same again) — writes and fills,
// or reads, the same without a bitmap, and the ranks on the aggregator's node send no segment
// list: a "same as before" word says their pieces are in the slot, or that they want what
// they wanted (docs/design.md, "A steady step's rounds").
#pragma once
#include <cstdint>
#include <vector>

#include "plan/segments.h"

namespace tapio::collective {

struct KeptRound {
  struct Gap {
    uint64_t offset = 0;  // from the window's start
    uint64_t length = 0;
    uint32_t target = 0;  // the batch's target (variable written) whose fill value goes there
  };
  bool kept = false;
  uint64_t window = 0;               // the window's length
  std::vector<plan::Extent> extents;  // written or read, from the window's start
  std::vector<Gap> gaps;

  // Starts keeping a round of window w whose extents (file offsets) are `at`.
  void keep(const plan::Extent& w, const std::vector<plan::Extent>& at) {
    kept = true;
    window = w.length;
    extents.clear();
    for (const plan::Extent& e : at) extents.push_back({e.offset - w.offset, e.length});
  }
  // Whether it was kept for a window of w's length (a repeat's window is the same, moved).
  bool kept_for(const plan::Extent& w) const { return kept && window == w.length; }
  // The kept extents as file offsets of window w.
  std::vector<plan::Extent> extents_at(const plan::Extent& w) const {
    std::vector<plan::Extent> at = extents;
    for (plan::Extent& e : at) e.offset += w.offset;
    return at;
  }
};

}  // namespace tapio::collective

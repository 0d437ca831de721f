// Where two selections of the same variable meet: the pieces (position in the first's
// buffer, position in the second's buffer, length), in elements. Pure. Used by readers of
// block-structured data (a stored block against a requested selection).
#pragma once
#include <cstdint>
#include <vector>

#include "plan/selection.h"

namespace tapio::plan {

struct Overlap {
  uint64_t a_mem = 0;  // element position in a's buffer (its memory order)
  uint64_t b_mem = 0;  // element position in b's buffer
  uint64_t length = 0;
};

// Box ∩ box is computed directly (O(result)); anything with runs by merging sorted runs.
// Pieces that continue one another in both buffers are one overlap (maximal pieces).
std::vector<Overlap> intersect(const Selection& a, const Selection& b,
                               const std::vector<uint64_t>& shape);

// The interval of the first dimension a selection touches ([0, 1) for 0-d), for indexing.
void first_dim_bounds(const Selection& s, const std::vector<uint64_t>& shape, uint64_t* lo,
                      uint64_t* hi);

// Intervals [lo, hi) with ids; which intersect a query interval, in O(log n + candidates).
class IntervalIndex {
 public:
  void add(uint64_t lo, uint64_t hi, uint32_t id);
  void build();  // call once after the last add
  template <typename F>
  void query(uint64_t lo, uint64_t hi, F&& f) const;
  size_t size() const { return items_.size(); }

 private:
  struct Item {
    uint64_t lo, hi;
    uint32_t id;
  };
  std::vector<Item> items_;      // sorted by lo
  std::vector<uint64_t> max_hi_;  // max hi over items_[0..i]
};

template <typename F>
void IntervalIndex::query(uint64_t lo, uint64_t hi, F&& f) const {
  // Items starting before hi are a prefix; walk it backwards while some item in the rest of
  // the prefix can still reach past lo.
  size_t n = 0, top = items_.size();
  while (n < top) {  // upper bound of lo < hi
    const size_t mid = (n + top) / 2;
    if (items_[mid].lo < hi) n = mid + 1; else top = mid;
  }
  for (size_t i = n; i-- > 0;) {
    if (max_hi_[i] <= lo) break;
    if (items_[i].hi > lo) f(items_[i].id);
  }
}

}  // namespace tapio::plan

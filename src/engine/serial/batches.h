// The serial engine's batches: consecutive items (variables of a write, (variable, step) pairs
// of a read) grouped so that one gather or scatter moves a whole batch, within buffer_size
// bytes. One collective per variable cost 10^5 collectives for 10^5 small variables (issue 29);
// a batch is never split, so an item larger than the limit goes alone.
#pragma once
#include <cstdint>
#include <vector>

namespace tapio {

// The first item of each batch, then items.size() (so batch b is [ends[b], ends[b + 1])), for
// items of `bytes[i]` bytes each and batches of at most `limit` bytes where they fit.
inline std::vector<size_t> batch_bounds(const std::vector<uint64_t>& bytes, uint64_t limit) {
  std::vector<size_t> bounds;
  uint64_t held = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bounds.empty() || held + bytes[i] > limit || held + bytes[i] < held) {
      bounds.push_back(i);
      held = 0;
    }
    held += bytes[i];
  }
  bounds.push_back(bytes.size());
  return bounds;
}

// The largest sum of values[k] over one batch's items k (`bounds` as batch_bounds returns).
inline uint64_t largest_batch(const std::vector<uint64_t>& values,
                              const std::vector<size_t>& bounds) {
  uint64_t largest = 0;
  for (size_t b = 0; b + 1 < bounds.size(); ++b) {
    uint64_t held = 0;
    for (size_t k = bounds[b]; k < bounds[b + 1]; ++k) held += values[k];
    largest = held > largest ? held : largest;
  }
  return largest;
}

// The unit of a batch's gather or scatter: bytes for a batch of several items (their types may
// differ; the batch fits in the limit, at most 1 GiB), the element for one item alone, whose
// counts may pass 2^31 bytes.
inline size_t batch_unit(size_t items, size_t esize) { return items == 1 ? esize : 1; }

}  // namespace tapio

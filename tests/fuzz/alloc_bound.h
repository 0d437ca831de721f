// What a fuzz target may allocate: a hostile input must never make a parser allocate more than
// a constant times its own size plus a bound (issue 14). The sanitizer allocator's hooks count
// the live heap bytes and their peak; a target measures the growth of the peak over one call
// and aborts, naming the input size, when it exceeds the target's limit. libFuzzer's
// -malloc_limit_mb catches a single huge allocation before it happens; this catches many
// moderate ones adding up.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tapio::fuzz {

class AllocationBound {
 public:
  // Starts measuring: the peak is reset to what is live now.
  AllocationBound();
  // Aborts when the peak grew by more than factor × input_size + bound bytes since the start.
  void check(size_t input_size, uint64_t factor, uint64_t bound, const char* what) const;

 private:
  uint64_t start_;
};

}  // namespace tapio::fuzz

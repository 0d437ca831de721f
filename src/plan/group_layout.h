// Where the ranks of a subfile group put one step's bytes in their subfile, and how the step
// is cut into rounds when one rank writes for the group. Pure.
//
// Each member's bytes (its blocks, back to back) form one region; regions follow one another
// in member order, each starting at a multiple of `align`, from the step's base (aligned too).
#pragma once
#include <cstdint>
#include <vector>

namespace tapio::plan {

struct GroupLayout {
  std::vector<uint64_t> offsets;  // member i's region starts here
  std::vector<uint64_t> sizes;    // and holds this many bytes
  uint64_t base = 0;              // the step's first byte (aligned)
  uint64_t end = 0;               // one past the last member's last byte
};

// `start`: the subfile's end after the previous step (unaligned); `sizes`: each member's bytes.
GroupLayout layout_group(uint64_t start, const std::vector<uint64_t>& sizes, uint64_t align);

// A member's part of one round [from, to) of the group's step: `length` bytes from byte
// `stream` of its region, which land at `at` in the round's buffer.
struct RoundPart {
  int member = 0;
  uint64_t stream = 0;
  uint64_t length = 0;
  uint64_t at = 0;
};

// Rounds are [base + k * round, base + (k + 1) * round), the last cut at end.
uint64_t round_count(const GroupLayout& g, uint64_t round);
// The members' parts of round k, in member order (members without bytes in it are absent).
std::vector<RoundPart> round_parts(const GroupLayout& g, uint64_t round, uint64_t k);

}  // namespace tapio::plan

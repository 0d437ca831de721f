#include "plan/group_layout.h"

#include <algorithm>

namespace tapio::plan {
namespace {

uint64_t align_up(uint64_t x, uint64_t a) { return a <= 1 ? x : (x + a - 1) / a * a; }

}  // namespace

GroupLayout layout_group(uint64_t start, const std::vector<uint64_t>& sizes, uint64_t align) {
  GroupLayout g;
  g.sizes = sizes;
  g.base = align_up(start, align);
  uint64_t at = g.base;
  for (uint64_t n : sizes) {
    at = align_up(at, align);
    g.offsets.push_back(at);
    at += n;
  }
  g.end = at;
  return g;
}

uint64_t round_count(const GroupLayout& g, uint64_t round) {
  return (g.end - g.base + round - 1) / round;
}

std::vector<RoundPart> round_parts(const GroupLayout& g, uint64_t round, uint64_t k) {
  const uint64_t from = g.base + k * round, to = std::min(g.end, from + round);
  std::vector<RoundPart> parts;
  // Regions are in order: skip those that end before the round, stop at the first past it.
  auto first = std::upper_bound(g.offsets.begin(), g.offsets.end(), from) - g.offsets.begin();
  for (size_t i = first > 0 ? static_cast<size_t>(first - 1) : 0; i < g.offsets.size(); ++i) {
    if (g.offsets[i] >= to) break;
    const uint64_t lo = std::max(from, g.offsets[i]);
    const uint64_t hi = std::min(to, g.offsets[i] + g.sizes[i]);
    if (lo < hi)
      parts.push_back(RoundPart{static_cast<int>(i), lo - g.offsets[i], hi - lo, lo - from});
  }
  return parts;
}

}  // namespace tapio::plan

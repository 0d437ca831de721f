#include "plan/exchange.h"

#include <algorithm>

namespace tapio::plan {

Extent Layout::window(int agg, uint32_t r) const {
  const Extent& d = domains[agg];
  const uint64_t start = static_cast<uint64_t>(r) * round_bytes;
  if (start >= d.length) return Extent{d.end(), 0};
  return Extent{d.offset + start, std::min(round_bytes, d.length - start)};
}

Layout make_layout(uint64_t lo, uint64_t hi, int aggregators, uint64_t stripe_size,
                   uint64_t round_bytes, uint32_t max_rounds) {
  Layout l;
  l.domains = file_domains(lo, hi, aggregators, stripe_size);
  uint64_t largest = 0;
  for (const Extent& d : l.domains) largest = std::max(largest, d.length);
  l.round_bytes = std::max<uint64_t>(round_bytes, 1);
  if (largest / l.round_bytes >= max_rounds) l.round_bytes = largest / max_rounds + 1;
  l.rounds = static_cast<uint32_t>((largest + l.round_bytes - 1) / l.round_bytes);
  return l;
}

// Pieces are cut in input order, the owner looked up only when a piece leaves the last owner's
// domain. Sorted by file offset (the usual case: a step's runs come in file order, and the
// check is O(n)), the cut pieces come grouped by window in (aggregator, round) order; only the
// groups are then reordered to (round, aggregator). Unsorted input is sorted once by offset.
std::vector<Routed> route(const std::vector<Piece>& pieces, const Layout& layout) {
  std::vector<Routed> out;
  out.reserve(pieces.size());
  int agg = -1;
  for (const Piece& p : pieces) {
    uint64_t off = p.file_offset, left = p.length, mem = p.mem;
    while (left > 0) {
      if (agg < 0 || off < layout.domains[agg].offset || off >= layout.domains[agg].end())
        agg = owner_of(off, layout.domains);
      if (agg < 0) break;  // outside [lo, hi): the caller's range was wrong; tests catch it
      const Extent& d = layout.domains[agg];
      const uint32_t r = static_cast<uint32_t>((off - d.offset) / layout.round_bytes);
      const Extent w = layout.window(agg, r);
      const uint64_t n = std::min(left, w.end() - off);
      out.push_back(Routed{r, agg, Piece{off, n, mem}});
      off += n;
      mem += n;
      left -= n;
    }
  }
  const auto by_offset = [](const Routed& a, const Routed& b) {
    return a.piece.file_offset < b.piece.file_offset;
  };
  if (!std::is_sorted(out.begin(), out.end(), by_offset))
    std::sort(out.begin(), out.end(), by_offset);
  // Groups of one window each, in (aggregator, round) order since windows are in file order.
  struct Group {
    uint32_t round;
    int agg;
    size_t begin, end;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < out.size(); ++i) {
    if (groups.empty() || groups.back().round != out[i].round || groups.back().agg != out[i].agg)
      groups.push_back(Group{out[i].round, out[i].agg, i, i});
    groups.back().end = i + 1;
  }
  const auto by_window = [](const Group& a, const Group& b) {
    return a.round != b.round ? a.round < b.round : a.agg < b.agg;
  };
  if (std::is_sorted(groups.begin(), groups.end(), by_window)) return out;
  std::stable_sort(groups.begin(), groups.end(), by_window);
  std::vector<Routed> sorted;
  sorted.reserve(out.size());
  for (const Group& g : groups)
    sorted.insert(sorted.end(), out.begin() + g.begin, out.begin() + g.end);
  return sorted;
}

}  // namespace tapio::plan

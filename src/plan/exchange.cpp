#include "plan/exchange.h"

#include <algorithm>

namespace tapio::plan {

Extent Layout::window(int agg, uint32_t r) const {
  const Extent& d = domains[agg];
  const uint64_t start = static_cast<uint64_t>(r) * round_bytes;
  if (start >= d.length) return Extent{d.end(), 0};
  return Extent{d.offset + start, std::min(round_bytes, d.length - start)};
}

uint64_t messages_floor(const std::vector<int>& node_of_rank, int nodes) {
  if (nodes <= 1) return 0;
  std::vector<uint64_t> size(static_cast<size_t>(nodes), 0);
  for (int n : node_of_rank) ++size[static_cast<size_t>(n)];
  const uint64_t smallest = *std::min_element(size.begin(), size.end());
  return (node_of_rank.size() - smallest) * kRoundMessageBytes;
}

uint64_t round_size(uint64_t largest, uint64_t stripe_size, uint64_t round_bytes,
                    SmallerRounds smaller) {
  const uint64_t most = std::max<uint64_t>(round_bytes, 1);
  const uint64_t stripe = std::max<uint64_t>(stripe_size, 1);
  if (smaller.min_rounds <= 1 || most <= stripe) return most;
  const uint64_t share = std::max((largest + smaller.min_rounds - 1) / smaller.min_rounds,
                                  smaller.least_bytes);
  const uint64_t stripes = std::max<uint64_t>((share + stripe - 1) / stripe, 1);
  return std::min(most, stripes * stripe);
}

Layout make_layout(uint64_t lo, uint64_t hi, int aggregators, uint64_t stripe_size,
                   uint64_t round_bytes, uint32_t max_rounds, SmallerRounds smaller) {
  Layout l;
  l.domains = file_domains(lo, hi, aggregators, stripe_size);
  uint64_t largest = 0;
  for (const Extent& d : l.domains) largest = std::max(largest, d.length);
  l.round_bytes = round_size(largest, stripe_size, round_bytes, smaller);
  if (largest / l.round_bytes >= max_rounds) l.round_bytes = largest / max_rounds + 1;
  l.round_bytes = std::min(l.round_bytes, kMaxRoundBytes);
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
  return order_by_window(std::move(out), [](const Routed& r) { return r.piece.file_offset; });
}

std::vector<int> collection_order(std::vector<int> aggs, int node, CollectOrder order) {
  if (order == CollectOrder::kTopology && !aggs.empty()) {
    const auto first = static_cast<std::ptrdiff_t>(static_cast<size_t>(node) % aggs.size());
    std::rotate(aggs.begin(), aggs.begin() + first, aggs.end());
  }
  return aggs;
}

}  // namespace tapio::plan

#include "plan/domains.h"

#include <algorithm>
#include <charconv>

#include "core/params.h"

namespace tapio::plan {

std::vector<Extent> coalesce(std::vector<Extent> extents) {
  extents.erase(std::remove_if(extents.begin(), extents.end(),
                               [](const Extent& e) { return e.length == 0; }),
                extents.end());
  std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) {
    return a.offset < b.offset || (a.offset == b.offset && a.length < b.length);
  });
  std::vector<Extent> out;
  for (const Extent& e : extents) {
    if (!out.empty() && e.offset <= out.back().end()) {
      uint64_t end = std::max(out.back().end(), e.end());
      out.back().length = end - out.back().offset;
    } else {
      out.push_back(e);
    }
  }
  return out;
}

std::vector<Extent> file_domains(uint64_t lo, uint64_t hi, int aggregators, uint64_t stripe_size) {
  std::vector<Extent> out;
  if (aggregators <= 0) return out;
  const uint64_t s = stripe_size == 0 ? 1 : stripe_size;
  const uint64_t a = static_cast<uint64_t>(aggregators);
  out.reserve(a);
  if (hi <= lo) {
    out.assign(a, Extent{hi < lo ? lo : hi, 0});
    return out;
  }
  const uint64_t first = lo / s;                          // first stripe touched
  const uint64_t last = hi / s + (hi % s != 0 ? 1 : 0);  // one past the last stripe touched
  const uint64_t n = last - first;
  const uint64_t q = n / a, r = n % a;
  // Boundary after k stripes from `first`; k*S never overflows for k < n since it is < hi.
  auto boundary = [&](uint64_t k) { return k >= n ? hi : std::max(lo, (first + k) * s); };
  uint64_t k = 0;
  for (uint64_t i = 0; i < a; ++i) {
    uint64_t begin = boundary(k);
    k += q + (i < r ? 1 : 0);
    uint64_t end = boundary(k);
    out.push_back(Extent{begin, end - begin});
  }
  return out;
}

int aggregator_count(int ranks, int nodes, std::string_view aggregators, int per_node) {
  int64_t number = 0;
  const char* last = aggregators.data() + aggregators.size();
  const auto [end, ec] = std::from_chars(aggregators.data(), last, number);
  int64_t n = int64_t{nodes} * per_node;  // auto
  if (aggregators == "all") {
    n = ranks;
  } else if (ec == std::errc() && end == last) {
    n = number;
  } else if (const Result<RankRatio> ratio = parse_rank_ratio(aggregators); ratio.ok()) {
    // In 128 bits ranks × m cannot overflow; the quotient is at most ranks, as m <= n.
    const __int128 scaled = __int128{ranks} * ratio->num + ratio->den / 2;
    n = static_cast<int64_t>(scaled / ratio->den);
  }
  return static_cast<int>(std::clamp<int64_t>(n, 1, std::max(ranks, 1)));
}

std::vector<int> place_aggregators(const std::vector<int>& node_of_rank, int nodes, int count,
                                   Placement p) {
  std::vector<int> out;
  const size_t P = node_of_rank.size();
  if (P == 0 || nodes <= 0) return out;
  for (int n : node_of_rank)
    if (n < 0 || n >= nodes) return out;
  const size_t want = std::min(P, static_cast<size_t>(std::max(count, 1)));
  out.reserve(want);

  // Ranks grouped by node, in rank order within a node (counting sort, CSR layout).
  std::vector<size_t> start(static_cast<size_t>(nodes) + 1, 0);
  for (int n : node_of_rank) ++start[static_cast<size_t>(n) + 1];
  for (size_t n = 0; n < static_cast<size_t>(nodes); ++n) start[n + 1] += start[n];

  if (p == Placement::kRankOrder) {
    // level[r] = index of r among its node's ranks; then counting sort by level, stable in rank.
    std::vector<size_t> seen(static_cast<size_t>(nodes), 0);
    std::vector<size_t> level(P);
    size_t levels = 0;
    for (size_t r = 0; r < P; ++r) {
      level[r] = seen[static_cast<size_t>(node_of_rank[r])]++;
      levels = std::max(levels, level[r] + 1);
    }
    std::vector<size_t> lstart(levels + 1, 0);
    for (size_t r = 0; r < P; ++r) ++lstart[level[r] + 1];
    for (size_t l = 0; l < levels; ++l) lstart[l + 1] += lstart[l];
    std::vector<int> order(P);
    for (size_t r = 0; r < P; ++r) order[lstart[level[r]]++] = static_cast<int>(r);
    out.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(want));
    return out;
  }

  // kSpread: deal level by level over the nodes that still have ranks, in node order. The
  // active list shrinks as nodes run out, so the total work is O(P + nodes).
  std::vector<int> members(P);
  {
    std::vector<size_t> fill(start.begin(), start.end() - 1);
    for (size_t r = 0; r < P; ++r)
      members[fill[static_cast<size_t>(node_of_rank[r])]++] = static_cast<int>(r);
  }
  std::vector<int> active;
  for (int n = 0; n < nodes; ++n)
    if (start[n + 1] > start[n]) active.push_back(n);
  for (size_t l = 0; out.size() < want; ++l) {
    size_t keep = 0;
    for (int n : active) {
      if (out.size() == want) break;
      out.push_back(members[start[n] + l]);
      if (start[n + 1] - start[n] > l + 1) active[keep++] = n;
    }
    active.resize(keep);
  }
  return out;
}

int owner_of(uint64_t byte, const std::vector<Extent>& domains) {
  // First domain whose end is past `byte`; ends are non-decreasing for sorted disjoint domains.
  auto it = std::partition_point(domains.begin(), domains.end(),
                                 [&](const Extent& d) { return d.end() <= byte; });
  if (it == domains.end() || it->offset > byte) return -1;
  return static_cast<int>(it - domains.begin());
}

}  // namespace tapio::plan

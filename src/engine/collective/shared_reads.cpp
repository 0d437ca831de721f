#include "engine/collective/shared_reads.h"

#include <algorithm>

#include "engine/collective/parts.h"
#include "plan/segments.h"

namespace tapio::collective {
namespace {

// Shares are cut at multiples of a page of the reads: no two readers copy into one page.
constexpr uint64_t kShareAlign = 4096;

}  // namespace

void SharedReads::publish(const std::vector<plan::Extent>& r, uint64_t share, int most) {
  uint64_t bytes = 0;
  for (const plan::Extent& e : r) bytes += e.length;
  count = 0;
  readers = 0;
  if (r.empty() || r.size() > kMax) return;
  std::copy(r.begin(), r.end(), reads);
  count = r.size();
  readers = static_cast<uint64_t>(plan::sharing_readers(bytes, share, most));
}

std::vector<plan::Extent> SharedReads::share_of(int node_rank, int agg_node_rank,
                                                int node_ranks) const {
  if (readers == 0 || count > kMax) return {};
  const int j = (node_rank - agg_node_rank + node_ranks) % std::max(node_ranks, 1);
  if (static_cast<uint64_t>(j) >= readers) return {};
  return plan::read_share(std::vector<plan::Extent>(reads, reads + count),
                          static_cast<int>(readers), j, kShareAlign);
}

bool shares_round(const Aggregation& agg, uint64_t share, const plan::Layout& layout,
                  uint32_t r) {
  if (!agg.slots || share == 0 || agg.node_readers < 2) return false;
  for (int a : agg.here)
    if (layout.window(a, r).length >= 2 * share) return true;
  return false;
}

}  // namespace tapio::collective

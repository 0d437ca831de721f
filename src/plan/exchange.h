// The two-phase exchange schedule, pure: which bytes of a rank's pieces go to which aggregator
// in which round. Every rank computes its own part from the same global inputs (file range,
// aggregator count, stripe and buffer sizes), so no rank needs any other rank's request list:
// O(pieces · log aggregators) work per rank and no O(P) memory.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "plan/domains.h"

namespace tapio::plan {

// A contiguous piece of a rank's I/O: `length` bytes at `file_offset`, at `mem` in the rank's
// own addressing (an index the caller interprets: a byte offset into a staging buffer, say).
struct Piece {
  uint64_t file_offset = 0;
  uint64_t length = 0;
  uint64_t mem = 0;
};

// The global shape of one collective operation.
struct Layout {
  std::vector<Extent> domains;  // one per aggregator, in aggregator order
  uint64_t round_bytes = 0;     // bytes per aggregator per round (buffer_size)
  uint32_t rounds = 0;          // max over domains of ceil(domain length / round_bytes)

  // The bytes aggregator `agg` handles in round `r` (may be empty).
  Extent window(int agg, uint32_t r) const;
};

// MPI counts are ints: a round's bytes (its window, each piece in it, each data message of
// it) stay below 2^31 because no round is larger than this.
inline constexpr uint64_t kMaxRoundBytes = uint64_t{1} << 30;

// When make_layout may cut a domain into rounds smaller than round_bytes (docs/tuning.md,
// "min_rounds"): a domain under min_rounds x round_bytes gets about min_rounds rounds, of
// whole stripes and at least least_bytes each, so that a small step is pipelined too and its
// two round buffers stay in cache.
struct SmallerRounds {
  uint32_t min_rounds = 1;   // 1: every round is round_bytes
  uint64_t least_bytes = 0;  // no smaller round (messages_floor)
};

// The least a round should be where the ranks of other nodes may each send an aggregator a
// message per round: kRoundMessageBytes from each of them (the ranks outside the smallest
// node), so that a small round does not turn their messages latency-bound. 0 on one node,
// where the node's ranks copy into the aggregator's shared round slot. O(ranks), once.
inline constexpr uint64_t kRoundMessageBytes = 64 << 10;
uint64_t messages_floor(const std::vector<int>& node_of_rank, int nodes);

// Domains over [lo, hi) aligned to stripe_size, rounds of at most round_bytes (smaller ones
// as `smaller` allows). round_bytes is raised if needed so that there are at most max_rounds
// rounds (MPI tags are finite), but never above kMaxRoundBytes: a domain over max_rounds GiB
// (31 TiB by default) has more rounds (then the MPI's MPI_TAG_UB must exceed twice their
// number: 2^31 - 1 in Open MPI and MPICH).
Layout make_layout(uint64_t lo, uint64_t hi, int aggregators, uint64_t stripe_size,
                   uint64_t round_bytes, uint32_t max_rounds = 32000, SmallerRounds smaller = {});

// The round size make_layout gives a largest domain of `largest` bytes, before max_rounds.
uint64_t round_size(uint64_t largest, uint64_t stripe_size, uint64_t round_bytes,
                    SmallerRounds smaller);

struct Routed {
  uint32_t round = 0;
  int agg = 0;
  Piece piece;
};

// Cut `pieces` at domain and round boundaries, one by one: the per-piece reference that
// route_segments (segments.h), which the engine uses, is tested against. Result sorted by
// (round, agg, file_offset); every input byte appears exactly once, inside its aggregator's
// window for its round.
std::vector<Routed> route(const std::vector<Piece>& pieces, const Layout& layout);

enum class CollectOrder {
  // Seed 001's topology-aware order: a rank of node n starts with the (n mod size)-th
  // aggregator of its list and goes round. When the ranks send to the same A >= nodes
  // aggregators (interleaved data), at every position of the order the ranks of different
  // nodes talk to different aggregators: no aggregator drains one node while the rest wait.
  kTopology,
  // Domain order for every rank, as ROMIO sends.
  kRank,
};

// The order in which a rank on `node` sends to `aggs`, the aggregators it has data for in a
// round, in domain order. O(aggs).
std::vector<int> collection_order(std::vector<int> aggs, int node, CollectOrder order);

// Sort routed items (anything with `round` and `agg` fields) by (round, agg, file offset):
// by offset first — skipped when already sorted, the usual case — which groups each window's
// items, then the window groups into (round, agg) order. Shared by route and route_segments.
template <typename T, typename OffsetOf>
std::vector<T> order_by_window(std::vector<T> out, OffsetOf offset_of) {
  const auto by_offset = [&](const T& a, const T& b) { return offset_of(a) < offset_of(b); };
  if (!std::is_sorted(out.begin(), out.end(), by_offset))
    std::stable_sort(out.begin(), out.end(), by_offset);
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
  std::vector<T> sorted;
  sorted.reserve(out.size());
  for (const Group& g : groups)
    sorted.insert(sorted.end(), out.begin() + g.begin, out.begin() + g.end);
  return sorted;
}

}  // namespace tapio::plan

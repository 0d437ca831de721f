// Reads shared by a node's ranks (node_read_share). An aggregator alone copying its round out
// of storage uses one core of its node while the node's other ranks wait for it; on a page
// cache or a parallel file system's client, several readers copy faster. So in a round whose
// window is large enough, every aggregator on the node publishes what it reads (the union of
// its requests, sieved) in a table after its slots in the node's shared window, and each rank
// of the node reads its share of it into the slot: a barrier after publishing, a barrier after
// reading. The requests, replies and takes are unchanged.
#pragma once
#include <cstdint>
#include <vector>

#include "plan/domains.h"
#include "plan/exchange.h"

namespace tapio::collective {

struct Aggregation;

// A round's reads as its aggregator publishes them, in the node's shared window (one per slot).
struct SharedReads {
  // Beyond this many reads (a sparse read of a large window) the aggregator reads alone.
  static constexpr uint64_t kMax = 64;
  uint64_t readers = 0;  // 0: the aggregator reads alone, or has nothing to read
  uint64_t count = 0;
  plan::Extent reads[kMax];

  // What ranks of the node read of `reads`: one per `share` bytes, at most `most`.
  void publish(const std::vector<plan::Extent>& reads, uint64_t share, int most);
  // The share of the rank `node_rank` of a node of `node_ranks`, where the aggregator is
  // `agg_node_rank` (its share is the first, so that one reader is the aggregator).
  std::vector<plan::Extent> share_of(int node_rank, int agg_node_rank, int node_ranks) const;
};

// Whether round r's reads are shared on this node (the same answer on every rank of the node,
// from the layout alone): shared slots, two readers or more allowed (node_readers, at most the
// node's ranks), and an aggregator of the node whose window holds at least two shares.
bool shares_round(const Aggregation& agg, uint64_t share, const plan::Layout& layout, uint32_t r);

}  // namespace tapio::collective

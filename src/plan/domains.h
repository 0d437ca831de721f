// File domains and aggregator placement for two-phase (ROMIO-style) collective I/O. Pure: no
// MPI, no I/O. The node layout comes in as a plain vector (plan must not depend on comm).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace tapio::plan {

// A byte range of the file: [offset, offset + length). offset + length must not overflow.
struct Extent {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t end() const { return offset + length; }
  bool operator==(const Extent& o) const { return offset == o.offset && length == o.length; }
};

// Sorts by offset and merges extents that touch or overlap. Zero-length extents are dropped.
// The result is sorted, disjoint and non-touching. O(n log n).
std::vector<Extent> coalesce(std::vector<Extent> extents);

// Splits [lo, hi) into `aggregators` contiguous domains, in order, that cover it exactly once.
// The file is cut into stripes [k*S, (k+1)*S) of `stripe_size` S; the (possibly partial) stripes
// that [lo, hi) touches are dealt out in whole stripes, the first n % A domains getting one
// more than the others, so the stripe counts of any two domains differ by at most one. Every
// boundary between two domains is a multiple of S; only lo and hi themselves may be unaligned.
//
// If [lo, hi) touches fewer stripes than A (or is empty), the trailing domains are EMPTY:
// length 0, offset hi. Returns an empty vector if aggregators <= 0. stripe_size 0 is treated
// as 1. O(A).
std::vector<Extent> file_domains(uint64_t lo, uint64_t hi, int aggregators, uint64_t stripe_size);

enum class Placement {
  // ROMIO's default: level by level (a rank's level is its index among the ranks of its node,
  // in rank order), and within a level in rank order. With one rank per node wanted, this is
  // the first rank of each node, ordered by rank.
  kRankOrder,
  // Round-robin by node: node 0's first rank, node 1's first rank, ..., then each node's
  // second rank, and so on; nodes out of ranks are skipped. Domain i goes to element i, so
  // consecutive domains land on different nodes whenever count <= nodes, and in general
  // except where only one node has ranks left at that point of the deal.
  kSpread,
};

// How many aggregators `ranks` ranks on `nodes` nodes get, from the `aggregators` parameter
// (its canonical text, as Params::get returns it) and aggregators_per_node:
//   "auto"  nodes × per_node;   "all"  every rank;   "N"  N;
//   "m/n"   a ratio of the ranks, ranks × m / n rounded to nearest (halves up): "1/4" is one
//           aggregator per 4 ranks.
// The result is clamped to [1, ranks]. Both the collective engine (aggregators) and the subfile
// engine (groups, each writing one subfile) use it. Text the registry would reject counts as
// "auto". O(1).
int aggregator_count(int ranks, int nodes, std::string_view aggregators, int per_node);

// Chooses aggregator ranks: element i of the result is the rank that owns domain i.
// node_of_rank[r] is the node (0 .. nodes-1) of rank r. `count` is clamped to
// [1, node_of_rank.size()]; the result has `count` distinct ranks, and when count <= number of
// non-empty nodes it has one rank per node. Returns an empty vector if node_of_rank is empty or
// holds a node id outside [0, nodes).
// O(P + nodes) time and O(P + nodes) memory, P = node_of_rank.size().
std::vector<int> place_aggregators(const std::vector<int>& node_of_rank, int nodes, int count,
                                   Placement p);

// Index of the domain containing `byte`, or -1 if none does. `domains` must be sorted by
// offset and disjoint (as file_domains and coalesce return); empty domains are never owners.
// O(log A).
int owner_of(uint64_t byte, const std::vector<Extent>& domains);

}  // namespace tapio::plan

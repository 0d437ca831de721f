// Folding single messages and writes into RoundLoad totals: which NICs, switch links and
// storage targets a message or a write crosses. Shared by the engines' traffic builders.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/cluster.h"
#include "sim/traffic.h"

namespace tapio::sim {

class LoadBook {
 public:
  LoadBook(const Cluster& c, int nodes, int aggregators, Traffic* t);

  RoundLoad& round(uint32_t r);
  // A message of `bytes` from a rank of node `from` to one of node `to` (the same node: no
  // NIC); `wave`: its place in the sender's order over nic.in_flight; `count` messages of
  // those bytes together (DDIO's one per piece).
  void message(uint32_t r, int from, int to, double bytes, uint32_t wave, double count = 1);
  // `length` bytes written at `offset` of file `file` (striped from target
  // file * stripes mod targets) by node `node`, as one call: on each target it touches, its
  // bytes in requests of at most storage.request_size.
  void write(uint32_t r, int node, uint64_t file, uint64_t offset, uint64_t length);
  // Counts a lock conflict on every stripe that a node other than the last writer of that
  // stripe writes; the write's first and last stripes are the only ones two writers of
  // disjoint contiguous ranges can share, so only they are remembered.
  void claim(uint32_t r, int node, uint64_t file, uint64_t offset, uint64_t length);

 private:
  int target_of(uint64_t file, uint64_t stripe) const;
  int leaf_of(int node) const { return leaf_[node]; }
  void claim_stripe(uint32_t r, int node, uint64_t file, uint64_t stripe);

  const Cluster& c_;
  int nodes_, aggregators_, leaves_;
  std::vector<int> leaf_;  // per node: its leaf switch (fat-tree) or group (dragonfly)
  Traffic* t_;
  std::unordered_map<uint64_t, int> stripe_owner_;  // (file, stripe) -> node
  std::vector<double> share_;  // write(): bytes per stripe of the file's turn
};

}  // namespace tapio::sim

// Memory shared by the ranks of one node (MPI_COMM_TYPE_SHARED). Node-local aggregation: the
// ranks on an aggregator's node copy their pieces straight into its round buffer here, in
// parallel, instead of sending them for the aggregator to copy in one by one — the
// aggregator's own work shrinks to writing. Pieces from other nodes still come as messages.
#pragma once
#include <memory>
#include <vector>

#include "comm/comm.h"
#include "comm/topology.h"
#include "core/status.h"

namespace tapio::comm {

class NodeMemory {
 public:
  // Collective over `comm`: the ranks that share memory with this one and belong to the same
  // node of `topology` (a virtual layout splits a real node into several), and which of
  // comm's ranks they are.
  static Result<std::unique_ptr<NodeMemory>> create(const Comm& comm, const Topology& topology);
  // Whether this was made for `topology` (the same answer on every rank).
  bool made_for(const Topology& topology) const { return node_of_rank_ == topology.node_of_rank; }
  ~NodeMemory();  // collective over the node when a window is allocated
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;

  const Comm& node() const { return *node_; }
  // The node rank of `comm_rank`, or -1 when it is on another node.
  int node_rank_of(int comm_rank) const;

  // Collective over the node, every rank passing the same sizes (bytes per node rank) and the
  // same `key`, a description of them that is the same on every node (so that every rank
  // of the parent communicator knows whether any node reallocated): a shared window of these
  // sizes, kept if it was made for this key already (0 everywhere frees it). *changed tells
  // whether the key was new.
  Status ensure(const std::vector<uint64_t>& bytes_per_node_rank,
                const std::vector<uint64_t>& key, bool* changed);
  // Frees the window and forgets its key, so the next ensure() allocates again. Collective
  // over the node; call it on every rank when an ensure() failed on any node.
  void forget();
  // The shared bytes of a node rank (null if it has none).
  uint8_t* memory_of(int node_rank) const { return window_ ? window_->base(node_rank) : nullptr; }
  // A memory barrier for the window: after writing into another rank's memory and before
  // telling it so (a message), and after hearing it and before reading.
  Status sync() const { return window_ ? window_->sync() : ok_status(); }

 private:
  NodeMemory() = default;

  std::unique_ptr<Comm> node_;
  std::vector<int> node_of_rank_;  // the topology it was made for
  std::vector<int> comm_rank_of_node_rank_;
  std::vector<uint64_t> key_;
  std::unique_ptr<SharedWindow> window_;
};

}  // namespace tapio::comm

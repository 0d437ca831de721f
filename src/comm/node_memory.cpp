#include "comm/node_memory.h"

#include <algorithm>

namespace tapio::comm {

Result<std::unique_ptr<NodeMemory>> NodeMemory::create(const Comm& comm,
                                                       const Topology& topology) {
  std::unique_ptr<NodeMemory> m(new NodeMemory());
  TAPIO_ASSIGN_OR_RETURN(std::unique_ptr<Comm> shared, comm.split_shared());
  TAPIO_ASSIGN_OR_RETURN(m->node_, shared->split(topology.node(comm.rank()), comm.rank()));
  m->node_of_rank_ = topology.node_of_rank;
  // Node size entries, not comm size: each rank knows only its own node's members.
  TAPIO_RETURN_IF_ERROR(m->node_->allgather(comm.rank(), &m->comm_rank_of_node_rank_)
                            .with_context("node ranks"));
  return m;
}

NodeMemory::~NodeMemory() = default;

int NodeMemory::node_rank_of(int comm_rank) const {
  const auto& v = comm_rank_of_node_rank_;
  const auto it = std::find(v.begin(), v.end(), comm_rank);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

void NodeMemory::forget() {
  window_.reset();
  key_.clear();
}

Status NodeMemory::ensure(const std::vector<uint64_t>& bytes_per_node_rank,
                          const std::vector<uint64_t>& key, bool* changed) {
  *changed = key != key_;
  if (!*changed) return ok_status();
  window_.reset();
  key_ = key;
  if (std::all_of(bytes_per_node_rank.begin(), bytes_per_node_rank.end(),
                  [](uint64_t b) { return b == 0; }))
    return ok_status();
  return node_->allocate_shared(bytes_per_node_rank[node_->rank()], &window_);
}

}  // namespace tapio::comm

#include "comm/topology.h"

#include <map>

namespace tapio::comm {

std::string Topology::describe() const {
  return fmt::format("{} ranks on {} node{}{}", node_of_rank.size(), nodes, nodes == 1 ? "" : "s",
                     is_virtual ? " (virtual)" : "");
}

Topology virtual_topology(int ranks, int ranks_per_node, bool cyclic) {
  Topology t;
  t.is_virtual = true;
  t.nodes = (ranks + ranks_per_node - 1) / ranks_per_node;
  t.node_of_rank.resize(ranks);
  for (int r = 0; r < ranks; ++r) t.node_of_rank[r] = cyclic ? r % t.nodes : r / ranks_per_node;
  return t;
}

Result<Topology> detect_topology(const Comm& comm, int ranks_per_node, bool cyclic) {
  if (ranks_per_node < 0)
    return error(TAPIO_ERR_CONFIG, "ranks_per_node must be >= 0 (got {})", ranks_per_node);
  if (ranks_per_node > 0) return virtual_topology(comm.size(), ranks_per_node, cyclic);

  // A node is named by the lowest rank on it (rank 0 of the shared comm, as key = rank).
  uint64_t leader = static_cast<uint64_t>(comm.rank());
  {
    TAPIO_ASSIGN_OR_RETURN(std::unique_ptr<Comm> shared, comm.split_shared());
    TAPIO_RETURN_IF_ERROR(agree(comm, shared->bcast_value(&leader, 0)));
  }
  // Agreed at once (open is rare): a rank whose call failed must not go on alone.
  std::vector<int> leaders;
  TAPIO_RETURN_IF_ERROR(agree(comm, comm.allgather(static_cast<int>(leader), &leaders)));
  Topology t;
  std::map<int, int> index;  // leader rank -> dense node index, in rank order
  t.node_of_rank.resize(comm.size());
  for (int r = 0; r < comm.size(); ++r) {
    auto it = index.emplace(leaders[r], static_cast<int>(index.size())).first;
    t.node_of_rank[r] = it->second;
  }
  t.nodes = static_cast<int>(index.size());
  return t;
}

}  // namespace tapio::comm

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

  MPI_Comm shared;
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Comm_split_type(comm.raw(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &shared),
      "MPI_Comm_split_type"));
  // A node is named by the lowest rank on it (rank 0 of the shared comm, as key = rank).
  int leader = comm.rank();
  MPI_Bcast(&leader, 1, MPI_INT, 0, shared);
  MPI_Comm_free(&shared);
  std::vector<int> leaders(comm.size());
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm.raw()),
      "MPI_Allgather"));
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

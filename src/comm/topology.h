// Which node each rank runs on: detected with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), or a
// virtual layout (ranks_per_node, block or cyclic) so node-aware logic can be tested with many
// nodes on one machine. Costs one allgather of one int per rank: O(P) memory, O(1) messages.
#pragma once
#include <string>
#include <vector>

#include "comm/comm.h"
#include "core/status.h"

namespace tapio::comm {

struct Topology {
  int nodes = 1;
  std::vector<int> node_of_rank;  // dense node index 0..nodes-1 for every rank
  bool is_virtual = false;

  int node(int rank) const { return node_of_rank[rank]; }
  std::string describe() const;  // "8 ranks on 4 nodes (virtual, block)"
};

// Virtual layout, pure: `ranks` ranks, `ranks_per_node` per node, block (0,0,1,1,...) or
// cyclic (0,1,0,1,...) over ceil(ranks / ranks_per_node) nodes.
Topology virtual_topology(int ranks, int ranks_per_node, bool cyclic);

// Collective. ranks_per_node 0 = detect the real nodes.
Result<Topology> detect_topology(const Comm& comm, int ranks_per_node, bool cyclic);

}  // namespace tapio::comm

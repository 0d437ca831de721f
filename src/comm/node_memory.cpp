#include "comm/node_memory.h"

#include <algorithm>

namespace tapio::comm {

Result<std::unique_ptr<NodeMemory>> NodeMemory::create(const Comm& comm,
                                                       const Topology& topology) {
  std::unique_ptr<NodeMemory> m(new NodeMemory());
  TAPIO_ASSIGN_OR_RETURN(Comm shared, Comm::split_shared(comm));
  TAPIO_ASSIGN_OR_RETURN(m->node_, Comm::split(shared, topology.node(comm.rank()), comm.rank()));
  m->node_of_rank_ = topology.node_of_rank;
  // Node size entries, not comm size: each rank knows only its own node's members.
  m->comm_rank_of_node_rank_.resize(m->node_.size());
  int me = comm.rank();
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Allgather(&me, 1, MPI_INT, m->comm_rank_of_node_rank_.data(),
                                                 1, MPI_INT, m->node_.raw()),
                                   "MPI_Allgather (node ranks)"));
  m->bases_.assign(m->node_.size(), nullptr);
  return m;
}

NodeMemory::~NodeMemory() { release(); }

int NodeMemory::node_rank_of(int comm_rank) const {
  const auto& v = comm_rank_of_node_rank_;
  const auto it = std::find(v.begin(), v.end(), comm_rank);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

void NodeMemory::forget() {
  release();
  key_.clear();
}

void NodeMemory::release() {
  if (win_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
  std::fill(bases_.begin(), bases_.end(), nullptr);
}

Status NodeMemory::ensure(const std::vector<uint64_t>& bytes_per_node_rank,
                          const std::vector<uint64_t>& key, bool* changed) {
  *changed = key != key_;
  if (!*changed) return ok_status();
  release();
  key_ = key;
  if (std::all_of(bytes_per_node_rank.begin(), bytes_per_node_rank.end(),
                  [](uint64_t b) { return b == 0; }))
    return ok_status();
  void* mine = nullptr;
  const auto my_bytes = static_cast<MPI_Aint>(bytes_per_node_rank[node_.rank()]);
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Win_allocate_shared(my_bytes, 1, MPI_INFO_NULL, node_.raw(), &mine, &win_),
      "MPI_Win_allocate_shared"));
  for (int r = 0; r < node_.size(); ++r) {
    MPI_Aint size = 0;
    int unit = 0;
    void* base = nullptr;
    MPI_Win_shared_query(win_, r, &size, &unit, &base);
    bases_[r] = size > 0 ? static_cast<uint8_t*>(base) : nullptr;
  }
  // One passive epoch for the window's life: synchronisation is by messages and sync().
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
  return ok_status();
}

void NodeMemory::sync() const {
  if (win_ != MPI_WIN_NULL) MPI_Win_sync(win_);
}

}  // namespace tapio::comm

#include "pio/pio_comm.h"

namespace tapio_pio::comm {

bool duplicate(MPI_Comm comm, MPI_Comm* dup, int* rank, int* size) {
  if (comm == MPI_COMM_NULL || MPI_Comm_dup(comm, dup) != MPI_SUCCESS) return false;
  return MPI_Comm_rank(*dup, rank) == MPI_SUCCESS && MPI_Comm_size(*dup, size) == MPI_SUCCESS;
}

void release(MPI_Comm* comm) {
  if (*comm != MPI_COMM_NULL && mpi_live()) MPI_Comm_free(comm);
  *comm = MPI_COMM_NULL;
}

bool split(MPI_Comm comm, bool member, MPI_Comm* out) {
  *out = MPI_COMM_NULL;
  int rank = 0;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return false;
  return MPI_Comm_split(comm, member ? 0 : MPI_UNDEFINED, rank, out) == MPI_SUCCESS;
}

int rank_in(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

MPI_Comm from_fortran(int f90_comm) { return MPI_Comm_f2c(f90_comm); }

int min_all(MPI_Comm comm, int value, int fallback) {
  int out = fallback;
  if (MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return fallback;
  return out;
}

int64_t max_all(MPI_Comm comm, int64_t value) {
  int64_t out = -1;
  if (MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS) return -1;
  return out;
}

bool max_all(MPI_Comm comm, std::vector<int64_t>* values) {
  return MPI_Allreduce(MPI_IN_PLACE, values->data(), static_cast<int>(values->size()),
                       MPI_INT64_T, MPI_MAX, comm) == MPI_SUCCESS;
}

bool gather(MPI_Comm comm, const std::vector<int64_t>& mine,
            std::vector<std::vector<int64_t>>* all) {
  int rank = 0, size = 1;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return false;
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(rank == 0 ? size : 0), displs(counts.size());
  if (MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm) != MPI_SUCCESS) return false;
  int total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    displs[i] = total;
    total += counts[i];
  }
  std::vector<int64_t> flat(total);
  if (MPI_Gatherv(mine.data(), n, MPI_INT64_T, flat.data(), counts.data(), displs.data(),
                  MPI_INT64_T, 0, comm) != MPI_SUCCESS)
    return false;
  all->clear();
  for (size_t i = 0; i < counts.size(); ++i)
    all->emplace_back(flat.begin() + displs[i], flat.begin() + displs[i] + counts[i]);
  return true;
}

bool all_gather(MPI_Comm comm, const std::vector<int64_t>& mine, std::vector<int64_t>* all) {
  int size = 1;
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) return false;
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  if (MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm) != MPI_SUCCESS) return false;
  int total = 0;
  for (int i = 0; i < size; ++i) {
    displs[i] = total;
    total += counts[i];
  }
  all->assign(total, 0);
  return MPI_Allgatherv(mine.data(), n, MPI_INT64_T, all->data(), counts.data(), displs.data(),
                        MPI_INT64_T, comm) == MPI_SUCCESS;
}

bool sum_all(MPI_Comm comm, std::vector<int64_t>* values) {
  return MPI_Allreduce(MPI_IN_PLACE, values->data(), static_cast<int>(values->size()),
                       MPI_INT64_T, MPI_SUM, comm) == MPI_SUCCESS;
}

bool exchange(MPI_Comm comm, const std::vector<std::vector<int64_t>>& to,
              std::vector<int64_t>* from) {
  const int size = static_cast<int>(to.size());
  std::vector<int> send_counts(size), send_displs(size), recv_counts(size), recv_displs(size);
  std::vector<int64_t> flat;
  for (int t = 0; t < size; ++t) {
    send_displs[t] = static_cast<int>(flat.size());
    send_counts[t] = static_cast<int>(to[t].size());
    flat.insert(flat.end(), to[t].begin(), to[t].end());
  }
  if (MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm) !=
      MPI_SUCCESS)
    return false;
  int total = 0;
  for (int t = 0; t < size; ++t) {
    recv_displs[t] = total;
    total += recv_counts[t];
  }
  from->assign(total, 0);
  return MPI_Alltoallv(flat.data(), send_counts.data(), send_displs.data(), MPI_INT64_T,
                       from->data(), recv_counts.data(), recv_displs.data(), MPI_INT64_T,
                       comm) == MPI_SUCCESS;
}

int world_rank() {
  int rank = 0;
  if (mpi_live()) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

bool mpi_live() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

void abort_all(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

}  // namespace tapio_pio::comm

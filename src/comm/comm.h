// The communicator: a thin layer over MPI with errors as values, 64-bit sizes, and the one
// agreement primitive every collective tapio call ends with.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace tapio::comm {

class Comm {
 public:
  // Duplicates `comm` (tapio's messages never mix with the application's) and makes MPI
  // errors return codes on it instead of aborting.
  static Result<Comm> duplicate(MPI_Comm comm);
  // Collective over `parent`: ranks with the same color form a new communicator (owned).
  static Result<Comm> split(const Comm& parent, int color, int key);
  // Collective over `parent`: the ranks that share memory with this one (MPI_COMM_TYPE_SHARED).
  static Result<Comm> split_shared(const Comm& parent);
  Comm() = default;
  Comm(Comm&& other) noexcept;
  Comm& operator=(Comm&& other) noexcept;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ~Comm();

  MPI_Comm raw() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  Status barrier() const;
  // Root's bytes reach every rank (resized on non-roots).
  Status bcast_bytes(std::vector<uint8_t>& bytes, int root) const;
  // MAX and MIN of uint64 values below 2^63 only: some MPIs (MPICH 4.0) compare MPI_UINT64_T
  // as signed in these operations.
  Status allreduce_max(uint64_t* value) const;
  Status allreduce_max(uint8_t* values, int n) const;  // element-wise, e.g. flags
  Status allreduce_sum(uint64_t* value) const;
  Status allreduce_sum(uint64_t* values, int n) const;  // element-wise
  // Sum of `value` over the ranks before this one (0 on rank 0).
  Status exscan_sum(uint64_t value, uint64_t* before) const;
  Status exscan_max(const std::vector<uint64_t>& values, std::vector<uint64_t>* before) const;
  // Element-wise sum, minimum and maximum over the ranks, in one reduction.
  Status allreduce_sum_min_max(const std::vector<double>& mine, std::vector<double>* sum,
                               std::vector<double>* lo, std::vector<double>* hi) const;
  // Every rank's bytes reach root, concatenated in rank order; *counts gets each rank's
  // length (root only).
  Status gather_bytes(const std::vector<uint8_t>& mine, int root, std::vector<uint8_t>* all,
                      std::vector<uint64_t>* counts) const;
  // gather_bytes for a total the caller knows fits in 2^31 bytes (agreed beforehand, e.g. by a
  // reduction it needed anyway): one MPI_Gather of the sizes and one MPI_Gatherv, nothing else.
  Status gather_fitting_bytes(const std::vector<uint8_t>& mine, int root, std::vector<uint8_t>* all,
                              std::vector<uint64_t>* counts) const;
  // Every rank's value, in rank order, on every rank: O(size) memory, for small communicators
  // such as a node's ranks.
  Status allgather(uint64_t mine, std::vector<uint64_t>* all) const;
  // Every rank's `mine` (the same length on every rank) reaches root, in rank order.
  Status gather_doubles(const std::vector<double>& mine, int root, std::vector<double>* all) const;
  // MPI_Reduce_scatter of uint32 sums: rank r receives recv_counts[r] entries (the r-th slice
  // of the element-wise sum of everyone's `send`, whose length is the sum of recv_counts).
  Status reduce_scatter_sum(const std::vector<uint32_t>& send, const std::vector<int>& recv_counts,
                            std::vector<uint32_t>* mine) const;
  // Gatherv / Scatterv in units of `elem_size`-byte elements (so counts reach 2^31 elements,
  // not 2^31 bytes). counts/displs (elements) are significant at root only.
  Status gatherv(const void* send, uint64_t send_count, void* recv,
                 const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs,
                 size_t elem_size, int root) const;
  Status scatterv(const void* send, const std::vector<uint64_t>& counts,
                  const std::vector<uint64_t>& displs, void* recv, uint64_t recv_count,
                  size_t elem_size, int root) const;

 private:
  // One in-place MPI_Allreduce: every typed reduction above is this with its type and op.
  Status allreduce(void* values, int n, MPI_Datatype type, MPI_Op op) const;
  // Element-wise; rank 0 gets zeros (MPI leaves its result undefined).
  Status exscan(const uint64_t* values, int n, MPI_Op op, uint64_t* before) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

// The error status of an MPI call, naming the call.
Status mpi_status(int rc, const char* call);

// Collective: every rank passes its local status and every rank gets the same answer: OK if all
// were OK, else the error of the lowest failing rank, its message prefixed with "rank N: "
// (unless it was agreed on already). Call it at the end of every collective operation so that
// no rank leaves a collective alone.
Status agree(const Comm& comm, const Status& local);

// Collective: root's status, on every rank (one broadcast of its code, and of its message only
// when it failed).
Status bcast_status(const Comm& comm, int root, const Status& at_root);

}  // namespace tapio::comm

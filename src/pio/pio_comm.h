// The PIO layer's only MPI calls (docs/design.md, "The PIO layer"): PIO hands the layer a
// communicator per iosystem, and a few answers must be the same on every task of it before
// tapio sees anything (an error one task found in its own arguments, a decomposition's size).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace tapio_pio::comm {

// Duplicates `comm` into *dup and gives this task's rank and the size; false if MPI failed.
bool duplicate(MPI_Comm comm, MPI_Comm* dup, int* rank, int* size);
void release(MPI_Comm* comm);
// Collective over `comm`: the communicator of the tasks that pass member = true, in rank
// order (MPI_COMM_NULL on the others); false if MPI failed.
bool split(MPI_Comm comm, bool member, MPI_Comm* out);
int rank_in(MPI_Comm comm);
MPI_Comm from_fortran(int f90_comm);
// The smallest of every task's `value` (PIO's error codes are negative: the worst); on a
// failed MPI call, `fallback`.
int min_all(MPI_Comm comm, int value, int fallback);
// The largest of every task's `value`, or -1 if MPI failed.
int64_t max_all(MPI_Comm comm, int64_t value);
// In place, element by element: the largest over the tasks of `values`; false if MPI failed.
bool max_all(MPI_Comm comm, std::vector<int64_t>* values);
// Rank 0 gets every task's `mine`, in rank order (others: nothing); false if MPI failed.
bool gather(MPI_Comm comm, const std::vector<int64_t>& mine,
            std::vector<std::vector<int64_t>>* all);
// Every task's `mine`, one after the other in rank order, on every task; false if MPI failed.
bool all_gather(MPI_Comm comm, const std::vector<int64_t>& mine, std::vector<int64_t>* all);
// In place, element by element: the sum over the tasks of `values`; false if MPI failed.
bool sum_all(MPI_Comm comm, std::vector<int64_t>* values);
// Each task sends to[t] to task t (to has one entry per task); *from gets what every task
// sent this one, in rank order; false if MPI failed.
bool exchange(MPI_Comm comm, const std::vector<std::vector<int64_t>>& to,
              std::vector<int64_t>* from);
// This task's rank in MPI_COMM_WORLD, for messages before any iosystem exists.
int world_rank();
// Whether MPI is initialized and not yet finalized.
bool mpi_live();
void abort_all(int code);

}  // namespace tapio_pio::comm

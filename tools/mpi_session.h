// MPI for the commands that go through the tapio API (datasets, convert). The NetCDF path of
// `ls` and `dump` never calls MPI. MPI is started on first use (an Open MPI singleton without
// mpiexec) and finalised when the tool exits; ranks other than 0 print nothing.
#pragma once

namespace tapio::cli {

void start_mpi();    // MPI_Init if not yet initialised; silences stdout on ranks other than 0
void finish_mpi();   // MPI_Finalize if start_mpi() initialised MPI
bool is_root();      // rank 0 of MPI_COMM_WORLD, or MPI not started

}  // namespace tapio::cli

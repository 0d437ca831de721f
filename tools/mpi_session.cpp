#include "mpi_session.h"

#include <mpi.h>

#include <cstdio>

namespace tapio::cli {
namespace {
bool g_started = false;
}  // namespace

void start_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  MPI_Init(nullptr, nullptr);
  g_started = true;
  if (!is_root()) std::freopen("/dev/null", "w", stdout);
}

void finish_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_started && !finalized) MPI_Finalize();
  g_started = false;
}

bool is_root() {
  if (!g_started) return true;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}

}  // namespace tapio::cli

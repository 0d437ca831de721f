// tapio_init before MPI_Init, and tapio_init and tapio_finalize after MPI_Finalize, return
// TAPIO_ERR_STATE instead of aborting the process through MPI's error handler (issue 29,
// item 5). Its own program: MPI is finalized halfway. Exits 0 when every check holds.
#include <mpi.h>

#include <cstdio>
#include <cstring>

#include "tapio/tapio.h"

namespace {

int failures = 0;

void expect(int got, int want, const char* says, const char* what) {
  const char* message = tapio_last_error();
  if (got == want && std::strstr(message, says)) return;
  std::fprintf(stderr, "%s: got %d (%s), want %d and a message with '%s'\n", what, got, message,
               want, says);
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  tapio_context* ctx = nullptr;
  expect(tapio_init(MPI_COMM_WORLD, nullptr, &ctx), TAPIO_ERR_STATE,
         "MPI is not initialized: call tapio_init after MPI_Init", "tapio_init before MPI_Init");
  MPI_Init(&argc, &argv);
  if (tapio_init(MPI_COMM_WORLD, nullptr, &ctx) != TAPIO_OK) {
    std::fprintf(stderr, "tapio_init: %s\n", tapio_last_error());
    return 1;
  }
  MPI_Finalize();
  expect(tapio_finalize(ctx), TAPIO_ERR_STATE,
         "MPI is finalized: call tapio_finalize before MPI_Finalize; the context and its files "
         "are left as they were", "tapio_finalize after MPI_Finalize");
  tapio_context* late = nullptr;
  expect(tapio_init(MPI_COMM_WORLD, nullptr, &late), TAPIO_ERR_STATE,
         "MPI is finalized: call tapio_init before MPI_Finalize", "tapio_init after MPI_Finalize");
  expect(tapio_init_f(0, nullptr, &late), TAPIO_ERR_STATE, "MPI is finalized",
         "tapio_init_f after MPI_Finalize");
  return failures ? 1 : 0;
}

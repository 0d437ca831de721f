/* particles: particle output with joined arrays (docs/api.md section 2.6). Each rank owns a
 * number of particles that changes every step, some ranks none; it puts their positions (n x 3)
 * and ids (n) without knowing where they go, and tapio places the ranks' blocks one after
 * another. Then every rank reads each step back (its own share of the step's particles, which
 * crosses the writers' blocks) and checks every value.
 *   mpiexec -n 4 particles DATASET STEPS
 *   tapio convert DATASET particles.nc   # a CF ragged-array NetCDF file xarray reads */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tapio/tapio.h"

#define CHECK(call)                                                                   \
  do {                                                                                \
    if ((call) != TAPIO_OK) {                                                         \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, tapio_last_error());       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
    }                                                                                 \
  } while (0)

/* Rank r's particles at step s: every third rank-step has none. */
static uint64_t count_of(int r, uint64_t s) {
  return (r + s) % 3 == 0 ? 0 : 1000 + 300 * (uint64_t)r + 70 * s;
}

/* Component c of particle i of rank r at step s. */
static double position(int r, uint64_t s, uint64_t i, int c) {
  return r * 1e6 + s * 1e4 + i + c / 4.0;
}

static void write_steps(tapio_context* ctx, const char* path, uint64_t steps, int rank) {
  tapio_io* io;
  tapio_var *pos, *id;
  CHECK(tapio_declare_io(ctx, "particles", &io));
  CHECK(tapio_io_set_engine(io, "subfile"));
  const uint64_t pos_shape[2] = {0, 3}, id_shape[1] = {0};
  const char* pos_dims[2] = {"particle", "xyz"};
  const char* id_dims[1] = {"particle"};
  CHECK(tapio_define_variable(io, "pos", TAPIO_FLOAT64, 2, pos_shape, pos_dims, TAPIO_VAR_JOINED,
                              &pos));
  CHECK(tapio_define_variable(io, "id", TAPIO_INT64, 1, id_shape, id_dims, TAPIO_VAR_JOINED, &id));
  tapio_engine* out;
  CHECK(tapio_open(io, path, TAPIO_MODE_WRITE, &out));
  for (uint64_t s = 0; s < steps; ++s) {
    const uint64_t n = count_of(rank, s);
    double* xyz = malloc((3 * n + 1) * sizeof *xyz);
    int64_t* ids = malloc((n + 1) * sizeof *ids);
    for (uint64_t i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) xyz[3 * i + c] = position(rank, s, i, c);
      ids[i] = (int64_t)(rank * 1000000 + i);
    }
    CHECK(tapio_begin_step(out, NULL));
    CHECK(tapio_var_set_joined_count(pos, n));
    CHECK(tapio_put(out, pos, TAPIO_FLOAT64, xyz));
    CHECK(tapio_var_set_joined_count(id, n));
    CHECK(tapio_put(out, id, TAPIO_INT64, ids));
    CHECK(tapio_end_step(out)); /* one exscan places every rank's block */
    free(xyz);
    free(ids);
  }
  CHECK(tapio_close(out));
}

/* Reads each step: this rank's even share of the step's particles. Returns the wrong values. */
static long read_steps(tapio_context* ctx, const char* path, int rank, int size) {
  tapio_io* io;
  tapio_var* pos;
  tapio_engine* in;
  CHECK(tapio_declare_io(ctx, "particles_read", &io));
  CHECK(tapio_open(io, path, TAPIO_MODE_READ, &in));
  CHECK(tapio_inquire_variable(io, "pos", &pos));
  long wrong = 0;
  for (;;) {
    tapio_step_status status;
    CHECK(tapio_begin_step(in, &status));
    if (status != TAPIO_STEP_OK) break;
    uint64_t s, shape[2];
    CHECK(tapio_current_step(in, &s));
    CHECK(tapio_var_shape(pos, shape)); /* shape[0]: this step's particles, all ranks */
    const uint64_t first = shape[0] * rank / size, last = shape[0] * (rank + 1) / size;
    const uint64_t start[2] = {first, 0}, count[2] = {last - first, 3};
    double* got = malloc((3 * (last - first) + 1) * sizeof *got);
    CHECK(tapio_var_set_selection(pos, start, count));
    CHECK(tapio_get(in, pos, TAPIO_FLOAT64, got));
    CHECK(tapio_end_step(in));
    /* Particle k of the step is particle k - (particles of lower ranks) of its writer. */
    int r = 0;
    uint64_t before = 0;
    for (uint64_t k = first; k < last; ++k) {
      while (k >= before + count_of(r, s)) before += count_of(r++, s);
      for (int c = 0; c < 3; ++c)
        wrong += got[3 * (k - first) + c] != position(r, s, k - before, c);
    }
    free(got);
  }
  CHECK(tapio_close(in));
  return wrong;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: particles DATASET STEPS\n");
    MPI_Finalize();
    return 2;
  }
  const uint64_t steps = strtoull(argv[2], NULL, 10);
  tapio_context* ctx;
  CHECK(tapio_init(MPI_COMM_WORLD, NULL, &ctx));
  write_steps(ctx, argv[1], steps, rank);
  long wrong = read_steps(ctx, argv[1], rank, size);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%llu steps of particles written and read back: %ld wrong values\n",
                        (unsigned long long)steps, wrong);
  CHECK(tapio_finalize(ctx));
  MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}

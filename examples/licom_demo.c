/* A LICOM-like ocean model's history output through tapio's C API.
 *
 * Ranks form a 2-D process grid over (lat, lon); each owns a block of every 3-D
 * (depth x lat x lon) and 2-D (lat x lon) double field. The demo writes several steps, reads
 * the file back with a different decomposition (whole latitude bands), checks every value and
 * prints what it did. The engine comes from the path and TAPIO_CONFIG (collective for .nc).
 *
 *   mpiexec -n 4 licom_demo [output.nc] [steps]
 *
 * Values follow the benchmark contract: element g (global linear index within one record) of
 * the v-th variable at step s holds g + v/4 + s * 2^20. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tapio/tapio.h"

enum { NLON = 144, NLAT = 96, NDEPTH = 30, NVARS3 = 4, NVARS2 = 2 };
static const char* kNames3[NVARS3] = {"temp", "salt", "u", "v"};
static const char* kNames2[NVARS2] = {"ssh", "mld"};
static const char* kUnits3[NVARS3] = {"degC", "psu", "m/s", "m/s"};
static const char* kUnits2[NVARS2] = {"m", "m"};

#define CHECK(call)                                                                 \
  do {                                                                              \
    int rc_ = (call);                                                               \
    if (rc_ != TAPIO_OK) {                                                          \
      fprintf(stderr, "licom_demo: %s failed: %s\n", #call, tapio_last_error());    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                 \
    }                                                                               \
  } while (0)

static double value(int var, uint64_t step, uint64_t g) {
  return (double)g + var / 4.0 + (double)step * 1048576.0;
}

/* A block of rows [r0, r0+nr) and columns [c0, c0+nc) of a (depth x lat x lon) or (lat x lon)
 * field: fill or check. Returns the number of mismatches. */
static long block_values(double* buf, int var, uint64_t step, int ndepth, uint64_t r0,
                         uint64_t nr, uint64_t c0, uint64_t nc, int check) {
  long bad = 0;
  size_t i = 0;
  for (int k = 0; k < ndepth; ++k)
    for (uint64_t j = r0; j < r0 + nr; ++j)
      for (uint64_t c = c0; c < c0 + nc; ++c, ++i) {
        const double want = value(var, step, ((uint64_t)k * NLAT + j) * NLON + c);
        if (check) {
          if (buf[i] != want) ++bad;
        } else {
          buf[i] = want;
        }
      }
  return bad;
}

/* Split n into parts; part p gets [*start, *start + *count). */
static void split(uint64_t n, int parts, int p, uint64_t* start, uint64_t* count) {
  *start = n * p / parts;
  *count = n * (p + 1) / parts - *start;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* path = argc > 1 ? argv[1] : "licom_demo.nc";
  const int steps = argc > 2 ? atoi(argv[2]) : 3;

  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int prow = rank / dims[1], pcol = rank % dims[1];
  uint64_t r0, nr, c0, nc;
  split(NLAT, dims[0], prow, &r0, &nr);
  split(NLON, dims[1], pcol, &c0, &nc);

  tapio_context* ctx;
  tapio_io* io;
  CHECK(tapio_init(MPI_COMM_WORLD, NULL, &ctx));
  CHECK(tapio_declare_io(ctx, "ocean_history", &io));
  CHECK(tapio_define_string_attribute(io, NULL, "title", "LICOM-like ocean history (tapio demo)"));
  CHECK(tapio_define_string_attribute(io, NULL, "Conventions", "CF-1.8"));

  const uint64_t shape3[3] = {NDEPTH, NLAT, NLON};
  const char* dims3[3] = {"depth", "lat", "lon"};
  tapio_var* vars[NVARS3 + NVARS2];
  for (int v = 0; v < NVARS3; ++v) {
    CHECK(tapio_define_variable(io, kNames3[v], TAPIO_FLOAT64, 3, shape3, dims3, 0, &vars[v]));
    CHECK(tapio_define_string_attribute(io, kNames3[v], "units", kUnits3[v]));
  }
  for (int v = 0; v < NVARS2; ++v) {
    tapio_var** var = &vars[NVARS3 + v];
    CHECK(tapio_define_variable(io, kNames2[v], TAPIO_FLOAT64, 2, shape3 + 1, dims3 + 1, 0, var));
    CHECK(tapio_define_string_attribute(io, kNames2[v], "units", kUnits2[v]));
  }
  tapio_var* lat;
  CHECK(tapio_define_variable(io, "lat", TAPIO_FLOAT64, 1, shape3 + 1, dims3 + 1,
                              TAPIO_VAR_FIXED, &lat));
  CHECK(tapio_define_string_attribute(io, "lat", "units", "degrees_north"));

  /* Write. */
  const size_t local3 = NDEPTH * nr * nc;
  double* buf = malloc(sizeof(double) * local3 * (NVARS3 + NVARS2));
  double latv[NLAT];
  for (int j = 0; j < NLAT; ++j) latv[j] = -90.0 + 180.0 * (j + 0.5) / NLAT;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  tapio_engine* out;
  CHECK(tapio_open(io, path, TAPIO_MODE_WRITE, &out));
  for (int s = 0; s < steps; ++s) {
    CHECK(tapio_begin_step(out, NULL));
    for (int v = 0; v < NVARS3 + NVARS2; ++v) {
      const int nd = v < NVARS3 ? NDEPTH : 1;
      double* b = buf + local3 * v;
      block_values(b, v, s, nd, r0, nr, c0, nc, 0);
      const uint64_t start[3] = {0, r0, c0}, count[3] = {NDEPTH, nr, nc};
      const int off = v < NVARS3 ? 0 : 1;
      CHECK(tapio_var_set_selection(vars[v], start + off, count + off));
      CHECK(tapio_put(out, vars[v], TAPIO_FLOAT64, b));
    }
    if (s == 0 && rank == 0) CHECK(tapio_put(out, lat, TAPIO_FLOAT64, latv));
    CHECK(tapio_end_step(out));
  }
  const char* engine_name;
  CHECK(tapio_engine_name(out, &engine_name));
  char engine[64];
  snprintf(engine, sizeof engine, "%s", engine_name);
  CHECK(tapio_close(out));
  const double write_s = MPI_Wtime() - t0;

  /* Read back by latitude bands (a decomposition different from the writer's), all steps in
   * one get per variable. */
  tapio_io* rio;
  CHECK(tapio_declare_io(ctx, "ocean_history_read", &rio));
  tapio_engine* in;
  CHECK(tapio_open(rio, path, TAPIO_MODE_READ, &in));
  uint64_t nsteps;
  CHECK(tapio_steps(in, &nsteps));
  uint64_t b0, nb;
  split(NLAT, size, rank, &b0, &nb);
  double* rbuf = malloc(sizeof(double) * NDEPTH * nb * NLON * nsteps + 1);
  long bad = 0;
  for (int v = 0; v < NVARS3 + NVARS2; ++v) {
    const int is3 = v < NVARS3;
    tapio_var* rv;
    CHECK(tapio_inquire_variable(rio, is3 ? kNames3[v] : kNames2[v - NVARS3], &rv));
    const uint64_t start[3] = {0, b0, 0}, count[3] = {NDEPTH, nb, NLON};
    CHECK(tapio_var_set_selection(rv, start + (is3 ? 0 : 1), count + (is3 ? 0 : 1)));
    CHECK(tapio_var_set_step_selection(rv, 0, nsteps));
    CHECK(tapio_get(in, rv, TAPIO_FLOAT64, rbuf));
    CHECK(tapio_perform_gets(in));
    const size_t per_step = (is3 ? NDEPTH : 1) * nb * NLON;
    for (uint64_t s = 0; s < nsteps; ++s)
      bad += block_values(rbuf + per_step * s, v, s, is3 ? NDEPTH : 1, b0, nb, 0, NLON, 1);
  }
  tapio_var* rlat;
  double latr[NLAT];
  CHECK(tapio_inquire_variable(rio, "lat", &rlat));
  CHECK(tapio_get(in, rlat, TAPIO_FLOAT64, latr));
  CHECK(tapio_perform_gets(in));
  for (int j = 0; j < NLAT; ++j) bad += latr[j] != latv[j];
  CHECK(tapio_close(in));

  long total_bad = 0;
  MPI_Reduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const double mib =
        (double)steps * (NVARS3 * NDEPTH + NVARS2) * NLAT * NLON * sizeof(double) / 1048576.0;
    printf("tapio %s licom demo\n", tapio_version());
    printf("  ranks: %d on a %d x %d process grid (lat x lon); engine: %s\n", size, dims[0],
           dims[1], engine);
    printf("  wrote %s: %d steps of %d 3-D (%dx%dx%d) and %d 2-D double fields + lat, "
           "%.1f MiB in %.3f s (%.1f MiB/s)\n",
           path, steps, NVARS3, NDEPTH, NLAT, NLON, NVARS2, mib, write_s, mib / write_s);
    printf("  read back %llu steps by latitude bands: %s (%ld mismatches)\n",
           (unsigned long long)nsteps, total_bad == 0 ? "all values correct" : "FAILED",
           total_bad);
    printf("  inspect it with: ncdump -h %s   or   tapio ls %s\n", path, path);
  }
  free(buf);
  free(rbuf);
  CHECK(tapio_finalize(ctx));
  MPI_Finalize();
  return total_bad == 0 || rank != 0 ? 0 : 1;
}

/* The same small program in C, C++, Fortran and Python (bands.c, .cpp, .f90, .py): write a
 * file, or read one that any of them wrote and check every value.
 *
 *   mpiexec -n N bands write PATH [ENGINE]     ENGINE: collective, subfile, ... (default: by path)
 *   mpiexec -n M bands read PATH [ENGINE]
 *
 * The file: global attribute title = "tapio bands"; t(time, y=8, x=6) float64 with units = "K",
 * t[s][j][i] = 1000 s + 6 j + i, written by bands of rows and read back by bands of columns;
 * cells(time, cell=12) int32, cells[s][g] = 100 s + g, an irregular map (rank r owns the cells
 * g with g % N == r, listed in descending order). Exit status 0 when every value matches. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tapio/tapio.h"

enum { NY = 8, NX = 6, NCELL = 12, STEPS = 3 };

#define CHECK(call)                                                                  \
  do {                                                                               \
    if ((call) != TAPIO_OK) {                                                        \
      fprintf(stderr, "bands: %s\n", tapio_last_error());                            \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                  \
    }                                                                                \
  } while (0)

static int rank, size;

/* This rank's part [*first, *first + *n) of n_total. */
static void band(uint64_t n_total, uint64_t* first, uint64_t* n) {
  *first = n_total * rank / size;
  *n = n_total * (rank + 1) / size - *first;
}

/* The cells this rank owns: descending when writing, ascending when reading. */
static size_t my_cells(uint64_t* cells, int descending) {
  size_t n = 0;
  for (uint64_t g = 0; g < NCELL; ++g)
    if ((int)(g % size) == rank) cells[n++] = g;
  for (size_t i = 0; descending && i < n / 2; ++i) {
    uint64_t t = cells[i];
    cells[i] = cells[n - 1 - i];
    cells[n - 1 - i] = t;
  }
  return n;
}

static void write_file(tapio_context* ctx, const char* path, const char* engine) {
  tapio_io* io;
  CHECK(tapio_declare_io(ctx, "bands", &io));
  CHECK(tapio_io_set_engine(io, engine));
  CHECK(tapio_define_string_attribute(io, NULL, "title", "tapio bands"));
  const uint64_t tshape[2] = {NY, NX}, cshape[1] = {NCELL};
  const char* tdims[2] = {"y", "x"};
  const char* cdims[1] = {"cell"};
  tapio_var *t, *c;
  CHECK(tapio_define_variable(io, "t", TAPIO_FLOAT64, 2, tshape, tdims, 0, &t));
  CHECK(tapio_define_string_attribute(io, "t", "units", "K"));
  CHECK(tapio_define_variable(io, "cells", TAPIO_INT32, 1, cshape, cdims, 0, &c));

  uint64_t r0, nr, cells[NCELL];
  band(NY, &r0, &nr);
  const size_t ncells = my_cells(cells, 1);
  double rows[NY * NX];
  int32_t values[NCELL];
  tapio_engine* out;
  CHECK(tapio_open(io, path, TAPIO_MODE_WRITE, &out));
  for (int s = 0; s < STEPS; ++s) {
    CHECK(tapio_begin_step(out, NULL));
    for (uint64_t i = 0; i < nr * NX; ++i) rows[i] = 1000.0 * s + (double)(r0 * NX + i);
    for (size_t i = 0; i < ncells; ++i) values[i] = 100 * s + (int32_t)cells[i];
    const uint64_t start[2] = {r0, 0}, count[2] = {nr, NX};
    CHECK(tapio_var_set_selection(t, start, count));
    CHECK(tapio_put(out, t, TAPIO_FLOAT64, rows));
    CHECK(tapio_var_set_offsets(c, ncells, cells));
    CHECK(tapio_put(out, c, TAPIO_INT32, values));
    CHECK(tapio_end_step(out)); /* the puts' buffers are free again after this */
  }
  CHECK(tapio_close(out));
}

static long read_file(tapio_context* ctx, const char* path, const char* engine) {
  tapio_io* io;
  CHECK(tapio_declare_io(ctx, "bands", &io));
  CHECK(tapio_io_set_engine(io, engine));
  tapio_engine* in;
  CHECK(tapio_open(io, path, TAPIO_MODE_READ, &in));
  char text[64] = {0};
  size_t n;
  CHECK(tapio_inquire_attribute(io, NULL, "title", NULL, &n));
  CHECK(tapio_read_attribute(io, NULL, "title", text));
  long bad = n != strlen("tapio bands") || strcmp(text, "tapio bands") != 0;
  CHECK(tapio_inquire_attribute(io, "t", "units", NULL, &n));
  memset(text, 0, sizeof text);
  CHECK(tapio_read_attribute(io, "t", "units", text));
  bad += strcmp(text, "K") != 0;

  tapio_var *t, *c;
  CHECK(tapio_inquire_variable(io, "t", &t));
  CHECK(tapio_inquire_variable(io, "cells", &c));
  uint64_t c0, nc, cells[NCELL], steps;
  band(NX, &c0, &nc);
  const size_t ncells = my_cells(cells, 0);
  const uint64_t start[2] = {0, c0}, count[2] = {NY, nc};
  CHECK(tapio_var_set_selection(t, start, count));
  CHECK(tapio_var_set_offsets(c, ncells, cells));
  double cols[NY * NX];
  int32_t values[NCELL];
  tapio_step_status st;
  for (;;) {
    CHECK(tapio_begin_step(in, &st));
    if (st == TAPIO_STEP_NOT_READY) continue;  /* a subfile writer has not committed it yet */
    if (st == TAPIO_STEP_WRITER_GONE) {        /* its writer was killed: tapio_steps committed */
      fprintf(stderr, "rank %d: the writer did not close the file\n", rank);
      ++bad;
    }
    if (st != TAPIO_STEP_OK) break;
    uint64_t s;
    CHECK(tapio_current_step(in, &s));
    CHECK(tapio_get(in, t, TAPIO_FLOAT64, cols));
    CHECK(tapio_get(in, c, TAPIO_INT32, values));
    CHECK(tapio_end_step(in));
    for (uint64_t j = 0; j < NY; ++j)
      for (uint64_t i = 0; i < nc; ++i) bad += cols[j * nc + i] != 1000.0 * s + j * NX + c0 + i;
    for (size_t i = 0; i < ncells; ++i) bad += values[i] != 100 * (int32_t)s + (int32_t)cells[i];
  }
  CHECK(tapio_steps(in, &steps));
  bad += steps != STEPS;
  CHECK(tapio_close(in));
  return bad;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: bands write|read PATH [ENGINE]\n");
    MPI_Finalize();
    return 2;
  }
  const char* engine = argc > 3 ? argv[3] : "";
  tapio_context* ctx;
  CHECK(tapio_init(MPI_COMM_WORLD, NULL, &ctx));
  long bad = 0;
  if (strcmp(argv[1], "write") == 0) {
    write_file(ctx, argv[2], engine);
  } else {
    bad = read_file(ctx, argv[2], engine);
  }
  CHECK(tapio_finalize(ctx));
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("bands (C): %s %s: %s\n", argv[1], argv[2], bad ? "WRONG VALUES" : "ok");
  MPI_Finalize();
  return bad != 0;
}

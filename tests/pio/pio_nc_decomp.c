/* A decomposition written to a NetCDF decomposition file (PIOc_write_nc_decomp) and read back
 * (PIOc_read_nc_decomp). Global 3 x 4 cells dealt round-robin; task 0 lists its cells in
 * descending order (PIO keeps, and writes, such a map sorted), task 1 has a hole between its
 * cells. The program checks the title, history and order read back, and reads a darray
 * written through the first decomposition through the second: each element is the cell of
 * the sorted map. tests/py/test_pio.py checks the file's layout with netCDF4-python and
 * compares it with the file the real PIO writes from this same program.
 * Usage: pio_nc_decomp DECOMP_PATH DATA_PATH. Prints "pio_nc_decomp OK" on success. */
#include "pio_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCELLS 12

static int ascending(const void* a, const void* b) {
  const PIO_Offset x = *(const PIO_Offset*)a, y = *(const PIO_Offset*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  int rank, ntasks, iosysid, ioid, ioid_back, ncid, dims[2], var;
  start(&argc, &argv, "pio_nc_decomp", 2, "DECOMP_PATH DATA_PATH", &rank, &ntasks);
  int iotype = PIO_IOTYPE_PNETCDF;
  CHECK(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, PIO_REARR_BOX, &iosysid));

  /* 1-based map; 0 is a hole. */
  PIO_Offset map[NCELLS + 1];
  int n = 0;
  for (int c = rank; c < NCELLS; c += ntasks) {
    if (rank == 1 && n == 1) map[n++] = 0;
    map[n++] = c + 1;
  }
  if (rank == 0)
    for (int i = 0; i < n / 2; i++) {
      const PIO_Offset t = map[i];
      map[i] = map[n - 1 - i];
      map[n - 1 - i] = t;
    }
  int gdims[2] = {3, 4};
  CHECK(PIOc_InitDecomp(iosysid, PIO_INT, 2, gdims, n, map, &ioid, NULL, NULL, NULL));
  CHECK(PIOc_write_nc_decomp(iosysid, argv[1], 0, ioid, "decomp title", "decomp history", 0));

  char title[PIO_MAX_NAME + 1] = "", history[PIO_MAX_NAME + 1] = "";
  int fortran_order = -1;
  CHECK(PIOc_read_nc_decomp(iosysid, argv[1], &ioid_back, MPI_COMM_WORLD, PIO_INT, title,
                            history, &fortran_order));
  if (strcmp(title, "decomp title") || strcmp(history, "decomp history") || fortran_order) {
    fprintf(stderr, "read back: title '%s' history '%s' order %d\n", title, history,
            fortran_order);
    failures++;
  }
  if (PIOc_get_local_array_size(ioid_back) != n) {
    fprintf(stderr, "read back: %d elements, not %d\n", PIOc_get_local_array_size(ioid_back), n);
    failures++;
  }

  /* Data written with the program's map reads back in the sorted map's order. */
  int data[NCELLS + 1], back[NCELLS + 1];
  for (int i = 0; i < n; i++) data[i] = map[i] ? (int)(10 * (map[i] - 1)) : -1;
  CHECK(PIOc_createfile(iosysid, &ncid, &iotype, argv[2], PIO_CLOBBER));
  CHECK(PIOc_def_dim(ncid, "y", 3, &dims[0]));
  CHECK(PIOc_def_dim(ncid, "x", 4, &dims[1]));
  CHECK(PIOc_def_var(ncid, "cells", PIO_INT, 2, dims, &var));
  CHECK(PIOc_enddef(ncid));
  CHECK(PIOc_write_darray(ncid, var, ioid, n, data, NULL));
  CHECK(PIOc_closefile(ncid));
  CHECK(PIOc_openfile(iosysid, &ncid, &iotype, argv[2], PIO_NOWRITE));
  CHECK(PIOc_read_darray(ncid, var, ioid_back, n, back));
  CHECK(PIOc_closefile(ncid));
  if (rank == 0) qsort(map, n, sizeof map[0], ascending); /* only task 0's map descends */
  for (int i = 0; i < n; i++)
    if (map[i] && back[i] != 10 * (map[i] - 1)) {
      fprintf(stderr, "task %d element %d: %d, expected %lld\n", rank, i, back[i],
              10 * (long long)(map[i] - 1));
      failures++;
    }
  CHECK(PIOc_freedecomp(iosysid, ioid));
  CHECK(PIOc_freedecomp(iosysid, ioid_back));
  CHECK(PIOc_finalize(iosysid));
  return finish("pio_nc_decomp");
}

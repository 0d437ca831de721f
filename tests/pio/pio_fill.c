/* Fill modes through tapio's PIO layer, as PIO writes them: a 2 x 6 grid dealt round-robin
 * with cells 3 and 8 mapped by no task (decomposition holes, which PIO fills with the fill
 * value in either mode); a record variable written at frames 0 and 2 but not 1; a variable
 * never written; a coordinate written in part with put_vara. With NC_NOFILL (the default at
 * create) the elements nobody wrote stay unwritten (zeros in a new file), with
 * PIOc_set_fill(NC_FILL) they read as fill values. tests/py/test_pio.py reads the files with
 * netCDF4-python and compares them with the real PIO's.
 * Usage: pio_fill PATH FILL(0|1). Prints "pio_fill OK" on success. */
#include "pio_check.h"
#include <stdio.h>
#include <stdlib.h>

#define NY 2
#define NX 6

static int hole(int cell) { return cell == 3 || cell == 8; }

int main(int argc, char** argv) {
  int rank, ntasks, iosysid, ioid, ncid, dims[3], var_a, var_b, var_c;
  start(&argc, &argv, "pio_fill", 2, "PATH FILL(0|1)", &rank, &ntasks);
  const int fill = atoi(argv[2]);
  int iotype = PIO_IOTYPE_PNETCDF;
  CHECK(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, PIO_REARR_BOX, &iosysid));
  int gdims[2] = {NY, NX}, n = 0, cells[NY * NX], data[NY * NX], in[NY * NX];
  PIO_Offset map[NY * NX];
  for (int c = rank; c < NY * NX; c += ntasks) {
    cells[n] = c;
    map[n++] = hole(c) ? 0 : c + 1;
  }
  CHECK(PIOc_InitDecomp(iosysid, PIO_INT, 2, gdims, n, map, &ioid, NULL, NULL, NULL));

  CHECK(PIOc_createfile(iosysid, &ncid, &iotype, argv[1], PIO_CLOBBER | PIO_64BIT_DATA));
  int old_mode = -1;
  CHECK(PIOc_set_fill(ncid, fill ? NC_FILL : NC_NOFILL, &old_mode));
  if (old_mode != NC_NOFILL) {
    fprintf(stderr, "the fill mode at create was %d, not NC_NOFILL\n", old_mode);
    failures++;
  }
  CHECK(PIOc_def_dim(ncid, "time", PIO_UNLIMITED, &dims[0]));
  CHECK(PIOc_def_dim(ncid, "y", NY, &dims[1]));
  CHECK(PIOc_def_dim(ncid, "x", NX, &dims[2]));
  CHECK(PIOc_def_var(ncid, "a", PIO_INT, 3, dims, &var_a));
  CHECK(PIOc_def_var(ncid, "b", PIO_INT, 2, &dims[1], &var_b));
  CHECK(PIOc_def_var(ncid, "c", PIO_DOUBLE, 1, &dims[2], &var_c));
  CHECK(PIOc_enddef(ncid));
  const PIO_Offset start = 0, count = 3;
  const double c[3] = {0.5, 1.5, 2.5};
  CHECK(PIOc_put_vara_double(ncid, var_c, &start, &count, c));
  for (int f = 0; f < 3; f += 2) {
    for (int i = 0; i < n; i++) data[i] = 100 * f + cells[i];
    CHECK(PIOc_setframe(ncid, var_a, f));
    CHECK(PIOc_write_darray(ncid, var_a, ioid, n, data, NULL));
  }
  CHECK(PIOc_closefile(ncid));

  CHECK(PIOc_openfile(iosysid, &ncid, &iotype, argv[1], PIO_NOWRITE));
  for (int f = 0; f < 3; f += 2) {
    CHECK(PIOc_setframe(ncid, var_a, f));
    CHECK(PIOc_read_darray(ncid, var_a, ioid, n, in));
    for (int i = 0; i < n; i++)
      if (!hole(cells[i]) && in[i] != 100 * f + cells[i]) {
        fprintf(stderr, "frame %d cell %d: %d\n", f, cells[i], in[i]);
        failures++;
      }
  }
  CHECK(PIOc_closefile(ncid));
  CHECK(PIOc_freedecomp(iosysid, ioid));
  CHECK(PIOc_finalize(iosysid));
  return finish("pio_fill");
}

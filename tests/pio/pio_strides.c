/* Strided access (PIOc_put_vars_* / get_vars_* with strides other than 1) through tapio's PIO
 * layer: every second row and column of a fixed variable, every second frame and column of a
 * record variable (converted from double memory to int), read back strided and whole (the
 * elements between read as fill values: NC_FILL), and the strides netCDF refuses (0: PIO_ESTRIDE; past
 * the dimension's end: PIO_EEDGE). tests/py/test_pio.py reads the file with netCDF4-python.
 * Usage: pio_strides PATH. Prints "pio_strides OK" on success. */
#include "pio_check.h"
#include <stdio.h>

#define NY 4
#define NX 6

/* The value the program writes at (y, x) of the grid, or at (frame, x) of the record. */
static int value(int y, int x) { return 10 * y + x; }

int main(int argc, char** argv) {
  int rank, iosysid, ncid, dims[3], grid, series;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 2) {
    fprintf(stderr, "usage: pio_strides PATH\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int iotype = PIO_IOTYPE_PNETCDF;
  EXPECT(PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_RETURN_ERROR, NULL), 0);
  EXPECT(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, PIO_REARR_BOX, &iosysid), 0);
  EXPECT(PIOc_createfile(iosysid, &ncid, &iotype, argv[1], PIO_CLOBBER), 0);
  EXPECT(PIOc_set_fill(ncid, NC_FILL, NULL), 0); /* the elements between read as fill values */
  EXPECT(PIOc_def_dim(ncid, "time", PIO_UNLIMITED, &dims[0]), 0);
  EXPECT(PIOc_def_dim(ncid, "y", NY, &dims[1]), 0);
  EXPECT(PIOc_def_dim(ncid, "x", NX, &dims[2]), 0);
  EXPECT(PIOc_def_var(ncid, "grid", PIO_INT, 2, &dims[1], &grid), 0);
  const int series_dims[2] = {dims[0], dims[2]};
  EXPECT(PIOc_def_var(ncid, "series", PIO_INT, 2, series_dims, &series), 0);
  EXPECT(PIOc_enddef(ncid), 0);

  /* Rows 0 and 2, columns 1, 3, 5. */
  const PIO_Offset start[2] = {0, 1}, count[2] = {2, 3}, stride[2] = {2, 2};
  int out[6], in[6];
  for (int i = 0; i < 6; i++) out[i] = value(start[0] + i / 3 * stride[0], start[1] + i % 3 * stride[1]);
  EXPECT(PIOc_put_vars_int(ncid, grid, start, count, stride, out), 0);
  /* Frames 0 and 2, columns 0, 2, 4, from doubles. */
  const PIO_Offset rstart[2] = {0, 0}, rcount[2] = {2, 3}, rstride[2] = {2, 2};
  double rout[6];
  for (int i = 0; i < 6; i++) rout[i] = value(i / 3 * 2, i % 3 * 2);
  EXPECT(PIOc_put_vars_double(ncid, series, rstart, rcount, rstride, rout), 0);
  /* netCDF's refusals: a stride of 0, and a last element past the dimension's end. */
  const PIO_Offset zero[2] = {0, 0}, past[2] = {2, 4};
  EXPECT(PIOc_put_vars_int(ncid, grid, start, count, zero, out), PIO_ESTRIDE);
  EXPECT(PIOc_put_vars_int(ncid, grid, start, count, past, out), PIO_EEDGE);
  EXPECT(PIOc_closefile(ncid), 0);

  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, argv[1], PIO_NOWRITE), 0);
  EXPECT(PIOc_get_vars_int(ncid, grid, start, count, stride, in), 0);
  for (int i = 0; i < 6; i++)
    if (in[i] != out[i]) {
      fprintf(stderr, "grid element %d: %d, expected %d\n", i, in[i], out[i]);
      failures++;
    }
  double rin[6];
  EXPECT(PIOc_get_vars_double(ncid, series, rstart, rcount, rstride, rin), 0);
  for (int i = 0; i < 6; i++)
    if (rin[i] != rout[i]) {
      fprintf(stderr, "series element %d: %g, expected %g\n", i, rin[i], rout[i]);
      failures++;
    }
  int whole[NY * NX];
  EXPECT(PIOc_get_var_int(ncid, grid, whole), 0);
  for (int y = 0; y < NY; y++)
    for (int x = 0; x < NX; x++) {
      const int written = y % 2 == 0 && x % 2 == 1;
      const int want = written ? value(y, x) : NC_FILL_INT;
      if (whole[y * NX + x] != want) {
        fprintf(stderr, "grid (%d, %d): %d, expected %d\n", y, x, whole[y * NX + x], want);
        failures++;
      }
    }
  EXPECT(PIOc_get_vars_int(ncid, grid, start, count, zero, in), PIO_ESTRIDE);
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_finalize(iosysid), 0);
  return finish("pio_strides");
}

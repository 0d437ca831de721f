/* Dimension ids through tapio's PIO layer, as netCDF numbers them: in the order def_dim
 * defined them, not the order variables use them, with a dimension no variable uses and the
 * unlimited one last. The program writes frame 0, reopens the file for writing and checks
 * every id, name and length, appends frame 1 there, and reads both back through the ids it
 * kept. tests/py/test_pio.py reads the file with netCDF4-python and ncdump.
 * Usage: pio_dims PATH. Prints "pio_dims OK" on success. */
#include "pio_check.h"
#include <stdio.h>
#include <string.h>

#define NLAT 2
#define NLON 4
#define NDIMS 4

/* The definitions: ids 0..3 in this order. */
static const char* names[NDIMS] = {"lon", "unused", "lat", "time"};
static const PIO_Offset lengths[NDIMS] = {NLON, 3, NLAT, PIO_UNLIMITED};

static float value(int frame, int cell) { return 10.0f * frame + cell; }

/* Every dimension id of the open file names the dimension the program defined with it. */
static void check_dims(int ncid, PIO_Offset frames) {
  int ndims = -1, unlim = -1, var = -1, dimids[3] = {-1, -1, -1};
  CHECK(PIOc_inq_ndims(ncid, &ndims));
  if (ndims != NDIMS) {
    fprintf(stderr, "%d dimensions, expected %d\n", ndims, NDIMS);
    failures++;
    return;
  }
  for (int d = 0; d < NDIMS; d++) {
    char name[PIO_MAX_NAME + 1] = "";
    PIO_Offset len = -1;
    CHECK(PIOc_inq_dim(ncid, d, name, &len));
    const PIO_Offset want = d == 3 ? frames : lengths[d];
    if (strcmp(name, names[d]) || len != want) {
      fprintf(stderr, "dimension %d is '%s' (%lld), expected '%s' (%lld)\n", d, name,
              (long long)len, names[d], (long long)want);
      failures++;
    }
  }
  CHECK(PIOc_inq_unlimdim(ncid, &unlim));
  CHECK(PIOc_inq_varid(ncid, "temp", &var));
  CHECK(PIOc_inq_vardimid(ncid, var, dimids));
  if (unlim != 3 || dimids[0] != 3 || dimids[1] != 2 || dimids[2] != 0) {
    fprintf(stderr, "unlimited %d, temp's dimids %d %d %d\n", unlim, dimids[0], dimids[1],
            dimids[2]);
    failures++;
  }
}

static void write_frame(int ncid, int var, int ioid, int frame, int n, const int* cells) {
  float temp[NLAT * NLON];
  for (int i = 0; i < n; i++) temp[i] = value(frame, cells[i]);
  CHECK(PIOc_setframe(ncid, var, frame));
  CHECK(PIOc_write_darray(ncid, var, ioid, n, temp, NULL));
}

int main(int argc, char** argv) {
  int rank, ntasks, iosysid, ioid, ncid, dims[NDIMS], var_temp, var_lon;
  start(&argc, &argv, "pio_dims", 1, "PATH", &rank, &ntasks);
  const char* path = argv[1];
  int iotype = PIO_IOTYPE_PNETCDF;
  CHECK(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, PIO_REARR_BOX, &iosysid));
  int gdims[2] = {NLAT, NLON}, n = 0, cells[NLAT * NLON];
  PIO_Offset map[NLAT * NLON];
  for (int c = rank; c < NLAT * NLON; c += ntasks) {
    cells[n] = c;
    map[n++] = c + 1;
  }
  CHECK(PIOc_InitDecomp(iosysid, PIO_FLOAT, 2, gdims, n, map, &ioid, NULL, NULL, NULL));

  CHECK(PIOc_createfile(iosysid, &ncid, &iotype, path, PIO_CLOBBER | PIO_64BIT_DATA));
  for (int d = 0; d < NDIMS; d++) CHECK(PIOc_def_dim(ncid, names[d], lengths[d], &dims[d]));
  const int temp_dims[3] = {dims[3], dims[2], dims[0]};
  CHECK(PIOc_def_var(ncid, "temp", PIO_FLOAT, 3, temp_dims, &var_temp));
  CHECK(PIOc_def_var(ncid, "lon", PIO_DOUBLE, 1, &dims[0], &var_lon));
  CHECK(PIOc_enddef(ncid));
  double lon[NLON];
  for (int i = 0; i < NLON; i++) lon[i] = 90.0 * i;
  CHECK(PIOc_put_var_double(ncid, var_lon, lon));
  write_frame(ncid, var_temp, ioid, 0, n, cells);
  CHECK(PIOc_closefile(ncid));

  /* Appending: the ids the program kept still name its dimensions. */
  CHECK(PIOc_openfile(iosysid, &ncid, &iotype, path, PIO_WRITE));
  check_dims(ncid, 1);
  write_frame(ncid, var_temp, ioid, 1, n, cells);
  CHECK(PIOc_closefile(ncid));

  CHECK(PIOc_openfile(iosysid, &ncid, &iotype, path, PIO_NOWRITE));
  check_dims(ncid, 2);
  for (int f = 0; f < 2; f++) {
    float temp[NLAT * NLON];
    CHECK(PIOc_setframe(ncid, var_temp, f));
    CHECK(PIOc_read_darray(ncid, var_temp, ioid, n, temp));
    for (int i = 0; i < n; i++)
      if (temp[i] != value(f, cells[i])) {
        fprintf(stderr, "frame %d cell %d: %g\n", f, cells[i], temp[i]);
        failures++;
      }
  }
  CHECK(PIOc_closefile(ncid));
  CHECK(PIOc_freedecomp(iosysid, ioid));
  CHECK(PIOc_finalize(iosysid));
  return finish("pio_dims");
}

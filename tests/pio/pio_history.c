/* A history file written and read back through tapio's PIO layer, as CESM components write
 * them: a 2-D grid decomposed round-robin over the tasks, with land cells no task holds
 * (holes), three record variables (one converted from double memory to float), a fixed
 * coordinate written with put_vara, a sync per frame, a read of the file while it is open
 * for writing, a fixed variable written after it (when every frame is on disk), a global
 * attribute added then (PIOc_redef), then every frame read back with read_darray (temp and
 * salt through one decomposition: read ahead together). tests/py/test_pio.py reads the file
 * with netCDF4-python and ncdump.
 * Usage: pio_history PATH FORMAT(1|2|5) [IOTYPE]. Prints "pio_history OK" on success. */
#include "pio_check.h"

#define NLAT 6
#define NLON 8
#define FRAMES 3

/* Land cells: nobody writes them, they read back as the fill value. */
static int land(int cell) { return (cell / NLON + cell % NLON) % 5 == 0; }

/* The values of frame f at cell c (exact in float). */
static double value(int f, int c) { return 100.0 * f + c + 0.5; }

int main(int argc, char** argv) {
  int rank, ntasks, iosysid, ioid_f, ioid_d, ioid_i, ncid, dims[3], var_temp, var_salt,
      var_mask, var_lat, var_area;
  start(&argc, &argv, "pio_history", 2, "PATH FORMAT [IOTYPE]", &rank, &ntasks);
  const char* path = argv[1];
  const int format = atoi(argv[2]);
  int iotype = argc > 3 ? atoi(argv[3]) : PIO_IOTYPE_PNETCDF;
  const int mode = PIO_CLOBBER | (format == 5 ? PIO_64BIT_DATA : format == 2 ? PIO_64BIT_OFFSET : 0);
  CHECK(PIOc_Init_Intracomm(MPI_COMM_WORLD, (ntasks + 1) / 2, 2, 0, PIO_REARR_BOX, &iosysid));

  /* Round-robin cells, land cells as holes (0 in InitDecomp's 1-based map). */
  int gdims[2] = {NLAT, NLON}, n = 0;
  PIO_Offset map[NLAT * NLON];
  float temp[NLAT * NLON], salt_in[NLAT * NLON];
  double salt[NLAT * NLON];
  int mask[NLAT * NLON];
  for (int c = rank; c < NLAT * NLON; c += ntasks) map[n++] = land(c) ? 0 : c + 1;
  CHECK(PIOc_InitDecomp(iosysid, PIO_FLOAT, 2, gdims, n, map, &ioid_f, NULL, NULL, NULL));
  CHECK(PIOc_InitDecomp(iosysid, PIO_DOUBLE, 2, gdims, n, map, &ioid_d, NULL, NULL, NULL));
  CHECK(PIOc_InitDecomp(iosysid, PIO_INT, 2, gdims, n, map, &ioid_i, NULL, NULL, NULL));

  CHECK(PIOc_createfile(iosysid, &ncid, &iotype, path, mode));
  CHECK(PIOc_def_dim(ncid, "ocean_time", PIO_UNLIMITED, &dims[0]));
  CHECK(PIOc_def_dim(ncid, "lat", NLAT, &dims[1]));
  CHECK(PIOc_def_dim(ncid, "lon", NLON, &dims[2]));
  CHECK(PIOc_def_var(ncid, "temp", PIO_FLOAT, 3, dims, &var_temp));
  CHECK(PIOc_def_var(ncid, "salt", PIO_FLOAT, 3, dims, &var_salt));
  CHECK(PIOc_def_var(ncid, "mask", PIO_INT, 3, dims, &var_mask));
  CHECK(PIOc_def_var(ncid, "lat", PIO_DOUBLE, 1, &dims[1], &var_lat));
  CHECK(PIOc_def_var(ncid, "area", PIO_DOUBLE, 2, &dims[1], &var_area));
  float temp_fill = -1.0e30f;
  CHECK(PIOc_def_var_fill(ncid, var_temp, NC_FILL, &temp_fill));
  CHECK(PIOc_put_att_text(ncid, var_temp, "units", 4, "degC"));
  CHECK(PIOc_put_att_text(ncid, PIO_GLOBAL, "title", 11, "pio_history"));
  CHECK(PIOc_enddef(ncid));
  double lat[NLAT];
  for (int i = 0; i < NLAT; i++) lat[i] = -75.0 + 30.0 * i;
  PIO_Offset start = 0, count = NLAT;
  CHECK(PIOc_put_vara_double(ncid, var_lat, &start, &count, lat));

  for (int f = 0; f < FRAMES; f++) {
    for (int i = 0; i < n; i++) {
      const int c = rank + i * ntasks;
      temp[i] = (float)value(f, c);
      salt[i] = value(f, c) / 4;
      mask[i] = f * 1000 + c;
    }
    CHECK(PIOc_setframe(ncid, var_temp, f));
    CHECK(PIOc_setframe(ncid, var_salt, f));
    CHECK(PIOc_setframe(ncid, var_mask, f));
    CHECK(PIOc_write_darray(ncid, var_temp, ioid_f, n, temp, &temp_fill));
    CHECK(PIOc_write_darray(ncid, var_salt, ioid_d, n, salt, NULL)); /* double -> float */
    CHECK(PIOc_write_darray(ncid, var_mask, ioid_i, n, mask, NULL));
    CHECK(PIOc_sync(ncid));
  }
  /* Read the last frame while writing (every frame is then written), then a fixed variable. */
  float last_temp[NLAT * NLON];
  CHECK(PIOc_read_darray(ncid, var_temp, ioid_f, n, last_temp));
  for (int i = 0; i < n; i++)
    if (!land(rank + i * ntasks) && last_temp[i] != temp[i]) failures++;
  double area[NLAT * NLON];
  for (int c = 0; c < NLAT * NLON; c++) area[c] = 1.0 + c / 4.0;
  PIO_Offset astart[2] = {0, 0}, acount[2] = {NLAT, NLON};
  CHECK(PIOc_put_vara_double(ncid, var_area, astart, acount, area));
  /* An attribute added after the frames went to disk: the file is made again. */
  CHECK(PIOc_redef(ncid));
  CHECK(PIOc_put_att_text(ncid, PIO_GLOBAL, "history", 4, "late"));
  CHECK(PIOc_enddef(ncid));
  CHECK(PIOc_closefile(ncid));

  /* Read every frame back through the same decompositions. */
  CHECK(PIOc_openfile(iosysid, &ncid, &iotype, path, PIO_NOWRITE));
  PIO_Offset frames = 0;
  int unlim = -1;
  CHECK(PIOc_inq_unlimdim(ncid, &unlim));
  CHECK(PIOc_inq_dimlen(ncid, unlim, &frames));
  /* A subfile dataset takes the late fixed variable in a step of its own (docs/pio.md). */
  const int dataset = !strstr(path, ".nc");
  char unlim_name[PIO_MAX_NAME + 1] = "";
  CHECK(PIOc_inq_dimname(ncid, unlim, unlim_name));
  /* Declared first, in a NetCDF file and a subfile dataset alike (which stores declarations). */
  if (strcmp(unlim_name, "ocean_time") || unlim != 0) {
    fprintf(stderr, "the unlimited dimension is '%s' (id %d), not ocean_time (id 0)\n",
            unlim_name, unlim);
    failures++;
  }
  if (frames != FRAMES + dataset) {
    fprintf(stderr, "%lld frames, expected %d\n", (long long)frames, FRAMES + dataset);
    failures++;
  }
  for (int f = 0; f < FRAMES; f++) {
    CHECK(PIOc_setframe(ncid, var_temp, f));
    CHECK(PIOc_setframe(ncid, var_mask, f));
    CHECK(PIOc_setframe(ncid, var_salt, f));
    CHECK(PIOc_read_darray(ncid, var_temp, ioid_f, n, temp));
    CHECK(PIOc_read_darray(ncid, var_salt, ioid_f, n, salt_in));
    CHECK(PIOc_read_darray(ncid, var_mask, ioid_i, n, mask));
    for (int i = 0; i < n; i++) {
      const int c = rank + i * ntasks;
      if (land(c)) continue;
      if (temp[i] != (float)value(f, c) || salt_in[i] != (float)(value(f, c) / 4) ||
          mask[i] != f * 1000 + c) {
        fprintf(stderr, "frame %d cell %d: temp %g mask %d\n", f, c, temp[i], mask[i]);
        failures++;
      }
    }
  }
  char title[32] = "";
  CHECK(PIOc_get_att_text(ncid, PIO_GLOBAL, "title", title));
  if (strcmp(title, "pio_history")) failures++;
  CHECK(PIOc_closefile(ncid));
  CHECK(PIOc_freedecomp(iosysid, ioid_f));
  CHECK(PIOc_freedecomp(iosysid, ioid_d));
  CHECK(PIOc_freedecomp(iosysid, ioid_i));
  CHECK(PIOc_finalize(iosysid));
  return finish("pio_history");
}

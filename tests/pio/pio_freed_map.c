/* A decomposition's map in every role the layer gives it a tapio decomposition for, and the
 * paths that must not use one (src/pio/pio_maps.cpp): a record variable and a fixed variable
 * of one more dimension (indexed by the frame: frame 0 the map itself, frame 1 shifted
 * offsets) written through one map; the decomposition freed while its darrays are still held;
 * a new decomposition with another map made after the free and written before the flush.
 * Each task maps two cells of every four, in reverse order (the others are holes, filled).
 * Read back whole, every cell holds its value or the fill. Usage: pio_freed_map PATH.
 * Prints "pio_freed_map OK" on success. */
#include "pio_check.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, ntasks, iosysid, first, second, ncid, dims[3], rec, fixed;
  start(&argc, &argv, "pio_freed_map", 1, "PATH", &rank, &ntasks);
  int iotype = PIO_IOTYPE_PNETCDF, gdim = 4 * ntasks;
  CHECK(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, PIO_REARR_BOX, &iosysid));
  /* 1-based: cells 4 * rank + 2 and 4 * rank (the first map), 4 * rank + 3 and + 1 (the
   * second); each leaves the other two cells of its four as holes. */
  PIO_Offset map1[2] = {4 * rank + 3, 4 * rank + 1}, map2[2] = {4 * rank + 4, 4 * rank + 2};
  CHECK(PIOc_InitDecomp(iosysid, PIO_INT, 1, &gdim, 2, map1, &first, NULL, NULL, NULL));
  CHECK(PIOc_createfile(iosysid, &ncid, &iotype, argv[1], PIO_CLOBBER | PIO_64BIT_DATA));
  CHECK(PIOc_def_dim(ncid, "frame", PIO_UNLIMITED, &dims[0]));
  CHECK(PIOc_def_dim(ncid, "level", 2, &dims[1]));
  CHECK(PIOc_def_dim(ncid, "cell", gdim, &dims[2]));
  int rec_dims[2] = {dims[0], dims[2]}, fixed_dims[2] = {dims[1], dims[2]};
  CHECK(PIOc_def_var(ncid, "rec", PIO_INT, 2, rec_dims, &rec));
  CHECK(PIOc_def_var(ncid, "fixed", PIO_INT, 2, fixed_dims, &fixed));
  CHECK(PIOc_enddef(ncid));
  for (int frame = 0; frame < 2; frame++) {
    int values[2] = {1000 * frame + 4 * rank + 2, 1000 * frame + 4 * rank};
    CHECK(PIOc_setframe(ncid, rec, frame));
    CHECK(PIOc_write_darray(ncid, rec, first, 2, values, NULL));
    int levels[2] = {-values[0], -values[1]};
    CHECK(PIOc_setframe(ncid, fixed, frame));  /* level `frame` of the fixed variable */
    CHECK(PIOc_write_darray(ncid, fixed, first, 2, levels, NULL));
  }
  CHECK(PIOc_freedecomp(iosysid, first));  /* its darrays are still held */
  CHECK(PIOc_InitDecomp(iosysid, PIO_INT, 1, &gdim, 2, map2, &second, NULL, NULL, NULL));
  int values[2] = {2000 + 4 * rank + 3, 2000 + 4 * rank + 1};
  CHECK(PIOc_setframe(ncid, rec, 2));
  CHECK(PIOc_write_darray(ncid, rec, second, 2, values, NULL));
  CHECK(PIOc_closefile(ncid));

  int* all = malloc(sizeof(int) * gdim);
  PIO_Offset start[2] = {0, 0}, count[2] = {1, gdim};
  CHECK(PIOc_openfile(iosysid, &ncid, &iotype, argv[1], PIO_NOWRITE));
  for (int frame = 0; frame < 3; frame++) {
    start[0] = frame;
    CHECK(PIOc_get_vara_int(ncid, rec, start, count, all));
    for (int c = 0; c < gdim; c++) {
      const int mapped = frame < 2 ? c % 2 == 0 : c % 2 == 1;
      const int want = mapped ? 1000 * frame + c : PIO_FILL_INT;
      if (all[c] != want) {
        fprintf(stderr, "rec frame %d cell %d holds %d, expected %d\n", frame, c, all[c], want);
        failures++;
      }
    }
  }
  for (int level = 0; level < 2; level++) {
    start[0] = level;
    CHECK(PIOc_get_vara_int(ncid, fixed, start, count, all));
    for (int c = 0; c < gdim; c++) {
      const int want = c % 2 == 0 ? -(1000 * level + c) : PIO_FILL_INT;
      if (all[c] != want) {
        fprintf(stderr, "fixed level %d cell %d holds %d, expected %d\n", level, c, all[c], want);
        failures++;
      }
    }
  }
  CHECK(PIOc_closefile(ncid));
  free(all);
  CHECK(PIOc_freedecomp(iosysid, second));
  CHECK(PIOc_finalize(iosysid));
  return finish("pio_freed_map");
}

/* The fill values written for decomposition holes count against the buffer limit
 * (PIOc_set_buffer_size_limit), as the darrays do: each task maps one cell of four, so a darray
 * holds 4 bytes and the fill of its holes 12 more on some task. Under a limit of 10 bytes,
 * two frames (8 bytes of data alone) are over it: the second write_darray syncs, so a reader
 * sees frame 0 on disk before close. Read back, every frame holds the data in the mapped cells
 * and the fill value in the holes (NC_NOFILL, the default at create, as PIO fills holes).
 * Usage: pio_hole_limit PATH. Prints "pio_hole_limit OK" on success. */
#include "pio_check.h"
#include <stdio.h>
#include <stdlib.h>

#define FRAMES 2

int main(int argc, char** argv) {
  int rank, ntasks, iosysid, ioid, ncid, reader, dims[2], varid;
  start(&argc, &argv, "pio_hole_limit", 1, "PATH", &rank, &ntasks);
  int iotype = PIO_IOTYPE_PNETCDF, gdim = 4 * ntasks;
  CHECK(PIOc_Init_Intracomm(MPI_COMM_WORLD, 1, 1, 0, PIO_REARR_BOX, &iosysid));
  PIO_Offset map = 4 * rank + 1; /* 1-based: cell 4 * rank; the other three are holes */
  CHECK(PIOc_InitDecomp(iosysid, PIO_INT, 1, &gdim, 1, &map, &ioid, NULL, NULL, NULL));
  const PIO_Offset old_limit = PIOc_set_buffer_size_limit(10);

  CHECK(PIOc_createfile(iosysid, &ncid, &iotype, argv[1], PIO_CLOBBER | PIO_64BIT_DATA));
  CHECK(PIOc_def_dim(ncid, "frame", PIO_UNLIMITED, &dims[0]));
  CHECK(PIOc_def_dim(ncid, "cell", gdim, &dims[1]));
  CHECK(PIOc_def_var(ncid, "v", PIO_INT, 2, dims, &varid));
  CHECK(PIOc_enddef(ncid));
  for (int frame = 0; frame < FRAMES; frame++) {
    int value = 100 * frame + rank;
    CHECK(PIOc_setframe(ncid, varid, frame));
    CHECK(PIOc_write_darray(ncid, varid, ioid, 1, &value, NULL));
  }
  PIO_Offset frames = -1;
  CHECK(PIOc_openfile(iosysid, &reader, &iotype, argv[1], PIO_NOWRITE));
  CHECK(PIOc_inq_dimlen(reader, 0, &frames));
  if (frames != 1) {
    fprintf(stderr, "the holes' fill over the buffer limit: %lld frames on disk, expected 1\n",
            (long long)frames);
    failures++;
  }
  CHECK(PIOc_closefile(reader));
  CHECK(PIOc_closefile(ncid));
  PIOc_set_buffer_size_limit(old_limit);

  int* all = malloc(sizeof(int) * gdim);
  PIO_Offset start[2] = {0, 0}, count[2] = {1, gdim};
  CHECK(PIOc_openfile(iosysid, &ncid, &iotype, argv[1], PIO_NOWRITE));
  for (int frame = 0; frame < FRAMES; frame++) {
    start[0] = frame;
    CHECK(PIOc_get_vara_int(ncid, varid, start, count, all));
    for (int c = 0; c < gdim; c++) {
      const int want = c % 4 ? PIO_FILL_INT : 100 * frame + c / 4;
      if (all[c] != want) {
        fprintf(stderr, "frame %d cell %d holds %d, expected %d\n", frame, c, all[c], want);
        failures++;
      }
    }
  }
  CHECK(PIOc_closefile(ncid));
  free(all);
  CHECK(PIOc_freedecomp(iosysid, ioid));
  CHECK(PIOc_finalize(iosysid));
  return finish("pio_hole_limit");
}

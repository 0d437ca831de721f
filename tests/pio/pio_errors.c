/* Bad input through tapio's PIO layer: PIO's error codes on every task, a message naming the
 * file, variable and decomposition, no hang, and the frames written stay readable (one of
 * them written again after a sync).
 * Usage: pio_errors [return|bcast|abort]: the error-handling mode (return: PIO_RETURN_ERROR,
 * the default; bcast: PIO_BCAST_ERROR, the same codes; abort: PIO_INTERNAL_ERROR, where the
 * first bad call prints its message and aborts the job). Run at 1, 2 and 4 tasks; prints
 * "pio_errors OK" on success. */
#include "pio_check.h"

/* The last error's text names `what`. */
static void expect_message(int code, const char* what) {
  char text[PIO_MAX_NAME + 1];
  PIOc_strerror(code, text);
  if (!strstr(text, what)) {
    fprintf(stderr, "error %d: '%s' does not name '%s'\n", code, text, what);
    failures++;
  }
}

/* One frame of 4 ints per task, written and closed: the file the error cases write into. */
/* A file of one record variable; with `fill`, NC_FILL (else PIO's NC_NOFILL at create). */
static void make_file(int iosysid, int ioid, int ntasks, const char* path, int fill, int* ncid,
                      int* varid) {
  int iotype = PIO_IOTYPE_PNETCDF, dims[2];
  EXPECT(PIOc_createfile(iosysid, ncid, &iotype, path, PIO_CLOBBER | PIO_64BIT_DATA), 0);
  if (fill) EXPECT(PIOc_set_fill(*ncid, PIO_FILL, NULL), 0);
  EXPECT(PIOc_def_dim(*ncid, "step", PIO_UNLIMITED, &dims[0]), 0);
  EXPECT(PIOc_def_dim(*ncid, "cell", 4 * ntasks, &dims[1]), 0);
  EXPECT(PIOc_def_var(*ncid, "heat", PIO_INT, 2, dims, varid), 0);
  EXPECT(PIOc_enddef(*ncid), 0);
}

int main(int argc, char** argv) {
  int rank, ntasks, iosysid, ioid, ncid, varid, data[4], in[4], gdim;
  PIO_Offset map[4];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ntasks);
  const char* mode = argc > 1 ? argv[1] : "return";
  EXPECT(PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_RETURN_ERROR, NULL), 0);
  EXPECT(PIOc_Init_Intracomm(MPI_COMM_WORLD, ntasks, 1, 0, PIO_REARR_SUBSET, &iosysid), 0);
  EXPECT(PIOc_set_iosystem_error_handling(
             iosysid, !strcmp(mode, "abort") ? PIO_INTERNAL_ERROR
                      : !strcmp(mode, "bcast") ? PIO_BCAST_ERROR : PIO_RETURN_ERROR, NULL), 0);
  gdim = 4 * ntasks;
  for (int i = 0; i < 4; i++) {
    map[i] = rank * 4 + i + 1;
    data[i] = rank * 10 + i;
  }
  EXPECT(PIOc_InitDecomp(iosysid, PIO_INT, 1, &gdim, 4, map, &ioid, NULL, NULL, NULL), 0);

  /* Iotypes: unknown, NetCDF-4 (not written by tapio). */
  int bad = 99, nc4 = PIO_IOTYPE_NETCDF4P;
  EXPECT(PIOc_createfile(iosysid, &ncid, &bad, "pio_errors_bad.nc", PIO_CLOBBER), PIO_EBADIOTYPE);
  EXPECT(PIOc_createfile(iosysid, &ncid, &nc4, "pio_errors_nc4.nc", PIO_CLOBBER), PIO_EBADIOTYPE);
  expect_message(PIO_EBADIOTYPE, "pio_errors_nc4.nc");

  make_file(iosysid, ioid, ntasks, "pio_errors.nc", 0, &ncid, &varid);
  EXPECT(PIOc_setframe(ncid, varid, 0), 0);
  EXPECT(PIOc_write_darray(ncid, varid, ioid, 4, data, NULL), 0);
  /* A darray shorter than the decomposition. */
  EXPECT(PIOc_write_darray(ncid, varid, ioid, 3, data, NULL), PIO_EINVAL);
  expect_message(PIO_EINVAL, "pio_errors.nc");
  expect_message(PIO_EINVAL, "decomposition");
  /* Stale or wrong ids. */
  EXPECT(PIOc_write_darray(ncid + 1000, varid, ioid, 4, data, NULL), PIO_EBADID);
  EXPECT(PIOc_write_darray(ncid, varid, ioid + 1000, 4, data, NULL), PIO_EBADID);
  EXPECT(PIOc_write_darray(ncid, varid + 7, ioid, 4, data, NULL), PIO_ENOTVAR);
  /* A value that does not fit the variable's type (netCDF's NC_ERANGE). */
  int byte_var, dim_one;
  EXPECT(PIOc_redef(ncid), 0);
  EXPECT(PIOc_def_dim(ncid, "one", 1, &dim_one), 0);
  EXPECT(PIOc_def_var(ncid, "small", PIO_BYTE, 1, &dim_one, &byte_var), 0);
  EXPECT(PIOc_enddef(ncid), 0);
  PIO_Offset index = 0;
  int too_big = 300;
  EXPECT(PIOc_put_var1_int(ncid, byte_var, &index, &too_big), PIO_ERANGE);
  /* Frame 0 is written at the sync that follows frame 1, then written again: in place. */
  int again[4];
  for (int i = 0; i < 4; i++) again[i] = -data[i] - 1;
  EXPECT(PIOc_setframe(ncid, varid, 1), 0);
  EXPECT(PIOc_write_darray(ncid, varid, ioid, 4, data, NULL), 0);
  EXPECT(PIOc_sync(ncid), 0);
  EXPECT(PIOc_setframe(ncid, varid, 0), 0);
  EXPECT(PIOc_write_darray(ncid, varid, ioid, 4, again, NULL), 0);
  EXPECT(PIOc_sync(ncid), 0);
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_closefile(ncid), PIO_EBADID); /* stale ncid */

  /* The frames written stay readable; a read-only file refuses writes. */
  int iotype = PIO_IOTYPE_PNETCDF;
  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, "pio_errors.nc", PIO_NOWRITE), 0);
  PIO_Offset frames = 0;
  EXPECT(PIOc_inq_dimlen(ncid, 0, &frames), 0);
  if (frames != 2) {
    fprintf(stderr, "pio_errors.nc has %lld frames, expected 2\n", (long long)frames);
    failures++;
  }
  for (int frame = 0; frame < 2; frame++) {
    EXPECT(PIOc_setframe(ncid, varid, frame), 0);
    EXPECT(PIOc_read_darray(ncid, varid, ioid, 4, in), 0);
    for (int i = 0; i < 4; i++)
      if (in[i] != (frame ? data[i] : again[i])) {
        fprintf(stderr, "frame %d element %d: %d\n", frame, i, in[i]);
        failures++;
      }
  }
  EXPECT(PIOc_write_darray(ncid, varid, ioid, 4, data, NULL), PIO_EPERM);
  EXPECT(PIOc_closefile(ncid), 0);

  /* Duplicate entries in a write decomposition: within a task, refused by write_darray;
   * across tasks (each maps element 1), the frame fails at the flush on every task. Either
   * way the frame written before stays readable. */
  int dup_ioid, shared_ioid;
  PIO_Offset dup_map[4] = {1, 1, 2, 3};
  PIO_Offset shared_map[4] = {1, rank * 4 + 2, rank * 4 + 3, rank * 4 + 4};
  EXPECT(PIOc_InitDecomp(iosysid, PIO_INT, 1, &gdim, 4, dup_map, &dup_ioid, NULL, NULL, NULL), 0);
  EXPECT(PIOc_InitDecomp(iosysid, PIO_INT, 1, &gdim, 4, shared_map, &shared_ioid, NULL, NULL,
                         NULL), 0);
  make_file(iosysid, ioid, ntasks, "pio_errors_dup.nc", 0, &ncid, &varid);
  EXPECT(PIOc_setframe(ncid, varid, 0), 0);
  EXPECT(PIOc_write_darray(ncid, varid, ioid, 4, data, NULL), 0);
  EXPECT(PIOc_setframe(ncid, varid, 1), 0);
  EXPECT(PIOc_write_darray(ncid, varid, dup_ioid, 4, data, NULL), PIO_EINVAL);
  expect_message(PIO_EINVAL, "maps an element twice");
  EXPECT(PIOc_write_darray(ncid, varid, shared_ioid, 4, data, NULL), 0);
  EXPECT(PIOc_sync(ncid), 0); /* frame 0 */
  const int closed = PIOc_closefile(ncid);
  if ((ntasks > 1) != (closed != 0)) {
    fprintf(stderr, "closing with a decomposition shared by %d tasks gave %d\n", ntasks, closed);
    failures++;
  }
  if (ntasks > 1) expect_message(closed, "pio_errors_dup.nc");
  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, "pio_errors_dup.nc", PIO_NOWRITE), 0);
  EXPECT(PIOc_inq_dimlen(ncid, 0, &frames), 0);
  EXPECT(PIOc_setframe(ncid, varid, 0), 0);
  EXPECT(PIOc_read_darray(ncid, varid, ioid, 4, in), 0);
  /* A short array on the last task only: that task gets PIO_EINVAL and the others are not
   * left waiting in the collective read (ctest's timeout catches a hang). */
  if (rank == ntasks - 1)
    EXPECT(PIOc_read_darray(ncid, varid, ioid, 3, in), PIO_EINVAL);
  else
    PIOc_read_darray(ncid, varid, ioid, 4, in);
  EXPECT(PIOc_read_darray(ncid, varid, ioid, 4, in), 0);
  if (frames != (ntasks > 1 ? 1 : 2) || memcmp(in, data, sizeof data)) {
    fprintf(stderr, "pio_errors_dup.nc: %lld frames, frame 0 not as written\n", (long long)frames);
    failures++;
  }
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_freedecomp(iosysid, dup_ioid), 0);
  EXPECT(PIOc_freedecomp(iosysid, shared_ioid), 0);

  /* A short array on the last task only, in a file of its own: that task gets PIO_EINVAL,
   * and the others are not left waiting in the write's agreement on the buffer limit. */
  int short_ncid, short_var;
  make_file(iosysid, ioid, ntasks, "pio_errors_short.nc", 0, &short_ncid, &short_var);
  EXPECT(PIOc_setframe(short_ncid, short_var, 0), 0);
  EXPECT(PIOc_write_darray(short_ncid, short_var, ioid, rank == ntasks - 1 ? 3 : 4, data, NULL),
         rank == ntasks - 1 ? PIO_EINVAL : 0);
  EXPECT(PIOc_closefile(short_ncid), 0);

  /* Extending an unlimited variable of a file opened for writing, then reading it while it is
   * open (box puts are held by the first task only: every task must still flush). */
  int unlim_var, unlim_dim, all_in[8], ext[8] = {1, 2, 3, 4, 5, 101, 102, 103};
  PIO_Offset first = 0, five = 5, next = 5, three = 3, eight = 8;
  EXPECT(PIOc_createfile(iosysid, &ncid, &iotype, "pio_errors_extend.nc", PIO_CLOBBER), 0);
  EXPECT(PIOc_def_dim(ncid, "unlim_dim", PIO_UNLIMITED, &unlim_dim), 0);
  EXPECT(PIOc_def_var(ncid, "unlim_var", PIO_INT, 1, &unlim_dim, &unlim_var), 0);
  EXPECT(PIOc_enddef(ncid), 0);
  EXPECT(PIOc_put_vara_int(ncid, unlim_var, &first, &five, ext), 0);
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, "pio_errors_extend.nc", PIO_WRITE), 0);
  EXPECT(PIOc_put_vara_int(ncid, unlim_var, &next, &three, ext + 5), 0);
  EXPECT(PIOc_sync(ncid), 0);
  EXPECT(PIOc_get_vara_int(ncid, unlim_var, &first, &eight, all_in), 0);
  if (memcmp(all_in, ext, sizeof ext)) {
    fprintf(stderr, "pio_errors_extend.nc does not hold the 8 values written\n");
    failures++;
  }
  EXPECT(PIOc_closefile(ncid), 0);

  /* A variable added to the opened file (redef, def_dim, def_var): it is made again, the old
   * data kept, and a frame of the old variable written again on top. */
  int x_dim, new_var, new_out[4] = {7, 8, 9, 10}, new_in[4], again_in[8];
  int nine = 9;
  PIO_Offset x_start = 0, x_count = 4, two = 2, one = 1;
  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, "pio_errors_extend.nc", PIO_WRITE), 0);
  EXPECT(PIOc_redef(ncid), 0);
  EXPECT(PIOc_def_dim(ncid, "x", 4, &x_dim), 0);
  EXPECT(PIOc_def_var(ncid, "new", PIO_INT, 1, &x_dim, &new_var), 0);
  EXPECT(PIOc_enddef(ncid), 0);
  EXPECT(PIOc_put_vara_int(ncid, new_var, &x_start, &x_count, new_out), 0);
  EXPECT(PIOc_put_vara_int(ncid, unlim_var, &two, &one, &nine), 0);
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, "pio_errors_extend.nc", PIO_NOWRITE), 0);
  EXPECT(PIOc_get_vara_int(ncid, new_var, &x_start, &x_count, new_in), 0);
  EXPECT(PIOc_get_vara_int(ncid, unlim_var, &first, &eight, again_in), 0);
  ext[2] = 9;
  if (memcmp(new_in, new_out, sizeof new_in) || memcmp(again_in, ext, sizeof ext)) {
    fprintf(stderr, "pio_errors_extend.nc made again does not hold what was written\n");
    failures++;
  }
  EXPECT(PIOc_closefile(ncid), 0);

  /* Over the buffer limit, write_darray syncs: frames before the newest are on disk before
   * any sync, seen by a reader of the path while the writer is open. */
  const PIO_Offset old_limit = PIOc_set_buffer_size_limit(1);
  make_file(iosysid, ioid, ntasks, "pio_errors_limit.nc", 0, &ncid, &varid);
  for (int frame = 0; frame < 3; frame++) {
    EXPECT(PIOc_setframe(ncid, varid, frame), 0);
    EXPECT(PIOc_write_darray(ncid, varid, ioid, 4, data, NULL), 0);
  }
  int reader;
  EXPECT(PIOc_openfile(iosysid, &reader, &iotype, "pio_errors_limit.nc", PIO_NOWRITE), 0);
  EXPECT(PIOc_inq_dimlen(reader, 0, &frames), 0);
  if (frames != 2) {
    fprintf(stderr, "over the buffer limit, %lld frames on disk, expected 2\n", (long long)frames);
    failures++;
  }
  EXPECT(PIOc_closefile(reader), 0);
  EXPECT(PIOc_closefile(ncid), 0);

  /* Over the limit with a darray the last task refused: every task counts it (one darray is
   * under the limit, two over), so every task syncs at the same call and none waits for the
   * others; then every frame is complete on disk, the refused one holding fill values where
   * the last task would have written (the file is in NC_FILL mode). */
  EXPECT(PIOc_set_buffer_size_limit(sizeof data + 4), 1);
  make_file(iosysid, ioid, ntasks, "pio_errors_limit_refused.nc", 1, &ncid, &varid);
  for (int frame = 0; frame < 3; frame++) {
    const int refused = frame == 1 && rank == ntasks - 1;
    EXPECT(PIOc_setframe(ncid, varid, frame), 0);
    EXPECT(PIOc_write_darray(ncid, varid, ioid, refused ? 3 : 4, data, NULL),
           refused ? PIO_EINVAL : 0);
    if (frame == 1) { /* every task synced frame 0 at this call */
      EXPECT(PIOc_openfile(iosysid, &reader, &iotype, "pio_errors_limit_refused.nc",
                           PIO_NOWRITE), 0);
      EXPECT(PIOc_inq_dimlen(reader, 0, &frames), 0);
      if (frames != 1) {
        fprintf(stderr, "a darray refused over the limit: %lld frames on disk, expected 1\n",
                (long long)frames);
        failures++;
      }
      EXPECT(PIOc_closefile(reader), 0);
    }
  }
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_set_buffer_size_limit(old_limit), sizeof data + 4);
  /* Read frame after frame: frame 0 alone, then frames 1 and 2 in one read ahead. */
  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, "pio_errors_limit_refused.nc", PIO_NOWRITE), 0);
  EXPECT(PIOc_inq_dimlen(ncid, 0, &frames), 0);
  for (int frame = 0; frame < 3; frame++) {
    EXPECT(PIOc_setframe(ncid, varid, frame), 0);
    EXPECT(PIOc_read_darray(ncid, varid, ioid, 4, in), 0);
    for (int i = 0; i < 4; i++)
      if (in[i] != (frame == 1 && rank == ntasks - 1 ? PIO_FILL_INT : data[i])) {
        fprintf(stderr, "pio_errors_limit_refused.nc: frame %d element %d is %d\n", frame, i,
                in[i]);
        failures++;
        break;
      }
  }
  if (frames != 3) {
    fprintf(stderr, "pio_errors_limit_refused.nc: %lld frames, expected 3\n", (long long)frames);
    failures++;
  }
  EXPECT(PIOc_closefile(ncid), 0);

  /* A sync over the limit that fails (task 0's values do not fit the variable's type) fails
   * that write_darray on every task, not only on task 0. */
  int dims[2], tiny_var, wide[4];
  for (int i = 0; i < 4; i++) wide[i] = rank == 0 ? 1000 : i;
  EXPECT(PIOc_set_buffer_size_limit(sizeof data + 4), old_limit);
  EXPECT(PIOc_createfile(iosysid, &ncid, &iotype, "pio_errors_limit_range.nc",
                         PIO_CLOBBER | PIO_64BIT_DATA), 0);
  EXPECT(PIOc_def_dim(ncid, "step", PIO_UNLIMITED, &dims[0]), 0);
  EXPECT(PIOc_def_dim(ncid, "cell", 4 * ntasks, &dims[1]), 0);
  EXPECT(PIOc_def_var(ncid, "tiny", PIO_BYTE, 2, dims, &tiny_var), 0);
  EXPECT(PIOc_enddef(ncid), 0);
  EXPECT(PIOc_setframe(ncid, tiny_var, 0), 0);
  EXPECT(PIOc_write_darray(ncid, tiny_var, ioid, 4, wide, NULL), 0);
  EXPECT(PIOc_setframe(ncid, tiny_var, 1), 0);
  EXPECT(PIOc_write_darray(ncid, tiny_var, ioid, 4, data, NULL), PIO_ERANGE);
  /* The failed step is not committed, and what was held with it is dropped (docs/pio.md). */
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, "pio_errors_limit_range.nc", PIO_NOWRITE), 0);
  EXPECT(PIOc_inq_dimlen(ncid, 0, &frames), 0);
  if (frames != 0) {
    fprintf(stderr, "pio_errors_limit_range.nc: %lld frames after a failed sync\n",
            (long long)frames);
    failures++;
  }
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_set_buffer_size_limit(old_limit), sizeof data + 4);

  /* Read-ahead in a read-only file: reading `small` through the int decomposition also reads
   * `huge` (same dimensions and type), whose values no int holds; that batch fails, so
   * `small` is read alone and comes back whole, and `huge` then gets PIO_ERANGE on every
   * task. */
  int small_var, huge_var;
  double huge[64];
  PIO_Offset origin[2] = {0, 0}, whole[2] = {1, 4 * ntasks};
  for (int i = 0; i < 4 * ntasks && i < 64; i++) huge[i] = 1e300;
  EXPECT(PIOc_createfile(iosysid, &ncid, &iotype, "pio_errors_read_ahead.nc",
                         PIO_CLOBBER | PIO_64BIT_DATA), 0);
  EXPECT(PIOc_def_dim(ncid, "step", PIO_UNLIMITED, &dims[0]), 0);
  EXPECT(PIOc_def_dim(ncid, "cell", 4 * ntasks, &dims[1]), 0);
  EXPECT(PIOc_def_var(ncid, "small", PIO_DOUBLE, 2, dims, &small_var), 0);
  EXPECT(PIOc_def_var(ncid, "huge", PIO_DOUBLE, 2, dims, &huge_var), 0);
  EXPECT(PIOc_enddef(ncid), 0);
  EXPECT(PIOc_setframe(ncid, small_var, 0), 0);
  EXPECT(PIOc_write_darray(ncid, small_var, ioid, 4, data, NULL), 0);
  EXPECT(PIOc_put_vara_double(ncid, huge_var, origin, whole, huge), 0);
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, "pio_errors_read_ahead.nc", PIO_NOWRITE), 0);
  EXPECT(PIOc_setframe(ncid, small_var, 0), 0);
  EXPECT(PIOc_setframe(ncid, huge_var, 0), 0);
  memset(in, 0, sizeof in);
  EXPECT(PIOc_read_darray(ncid, small_var, ioid, 4, in), 0);
  if (memcmp(in, data, sizeof data)) {
    fprintf(stderr, "pio_errors_read_ahead.nc: small not as written\n");
    failures++;
  }
  EXPECT(PIOc_read_darray(ncid, huge_var, ioid, 4, in), PIO_ERANGE);
  EXPECT(PIOc_closefile(ncid), 0);

  /* A map entry beyond the global size wraps around it, as PIO places it: accepted onto an
   * element no other entry maps (the last task gives its last cell as gdim more, and it is
   * written there), refused on every task onto one another entry maps (element 0: PIO would
   * let the tasks race for it). */
  int wrap_ioid = -1;
  PIO_Offset wrap_map[4];
  for (int i = 0; i < 4; i++) wrap_map[i] = map[i];
  if (rank == ntasks - 1) wrap_map[3] = map[3] + gdim;
  EXPECT(PIOc_InitDecomp(iosysid, PIO_INT, 1, &gdim, 4, wrap_map, &wrap_ioid, NULL, NULL, NULL),
         0);
  make_file(iosysid, ioid, ntasks, "pio_errors_wrap.nc", 0, &ncid, &varid);
  EXPECT(PIOc_write_darray(ncid, varid, wrap_ioid, 4, data, NULL), 0);
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_openfile(iosysid, &ncid, &iotype, "pio_errors_wrap.nc", PIO_NOWRITE), 0);
  EXPECT(PIOc_read_darray(ncid, varid, ioid, 4, in), 0);
  for (int i = 0; i < 4; i++)
    if (in[i] != data[i]) {
      fprintf(stderr, "wrapped map, element %d: %d, expected %d\n", i, in[i], data[i]);
      failures++;
    }
  EXPECT(PIOc_closefile(ncid), 0);
  EXPECT(PIOc_freedecomp(iosysid, wrap_ioid), 0);
  if (rank == ntasks - 1) wrap_map[3] = gdim + 1; /* element 0, task 0's */
  EXPECT(PIOc_InitDecomp(iosysid, PIO_INT, 1, &gdim, 4, wrap_map, &wrap_ioid, NULL, NULL, NULL),
         PIO_EINVAL);
  expect_message(PIO_EINVAL, "beyond the global size wraps around it onto element 0");

  EXPECT(PIOc_freedecomp(iosysid, ioid), 0);
  EXPECT(PIOc_freedecomp(iosysid, ioid), PIO_EBADID); /* stale ioid */
  EXPECT(PIOc_finalize(iosysid), 0);
  return finish("pio_errors");
}

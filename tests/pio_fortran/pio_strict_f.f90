! Where tapio's `use pio` is stricter than PIO's: an array too short for what C would write or
! read gets an error status on every rank, never a write past its end. (PIO passes the array
! unchecked, so this program is not built against PIO's own Fortran library.) And a darray
! write of two variables at once (PIO 2.7's own Fortran binds it to an older C signature).
! Usage: pio_strict_f FILE
program pio_strict_f
  use mpi
  use pio
  implicit none
  integer, parameter :: einval = -36, ests = -31
  type(iosystem_desc_t) :: ios
  type(file_desc_t) :: file
  type(var_desc_t) :: depth, title, pair(2)
  type(io_desc_t) :: cells
  double precision :: got(3)
  integer(pio_offset_kind) :: mine(3)
  character(len=256) :: path
  character(len=3) :: short_name
  character(len=4) :: short_text
  character(len=16) :: text
  double precision :: two(2)
  integer :: rank, nranks, ierr, dim, strdim, celldim, total, errors, dimids(0), levels(2), i
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nranks, ierr)
  call get_command_argument(1, path)
  errors = 0
  call pio_init(rank, mpi_comm_world, 1, 0, 1, pio_rearr_subset, ios)
  call pio_seterrorhandling(ios, pio_return_error)
  call check(pio_createfile(ios, file, pio_iotype_pnetcdf, path, pio_clobber), 0, 'createfile')
  call check(pio_def_dim(file, 'levels', 3, dim), 0, 'def_dim')
  call check(pio_def_dim(file, 'strlen', 12, strdim), 0, 'def_dim strlen')
  call check(pio_def_var(file, 'depth', pio_double, [dim], depth), 0, 'def_var depth')
  call check(pio_def_var(file, 'title', pio_char, [strdim], title), 0, 'def_var title')
  call check(pio_put_att(file, depth, 'valid', [1, 2, 3]), 0, 'put_att valid')
  call check(pio_def_dim(file, 'cells', 3 * nranks, celldim), 0, 'def_dim cells')
  call check(pio_def_var(file, 'a', pio_double, [celldim], pair(1)), 0, 'def_var a')
  call check(pio_def_var(file, 'b', pio_double, [celldim], pair(2)), 0, 'def_var b')
  call check(pio_enddef(file), 0, 'enddef')
  ! Too few values for the whole variable, or for the box asked for.
  call check(pio_put_var(file, depth, [1d0, 2d0]), einval, 'put_var of 2 values into 3')
  call check(pio_put_var(file, depth, [1], [3], [1d0, 2d0]), einval, 'put_var box of 3 from 2')
  call check(pio_put_var(file, depth, [1d0, 2d0, 3d0]), 0, 'put_var depth')
  ! Text shorter than its variable is NUL-padded (it reads back as the text).
  call check(pio_put_var(file, title, 'abc'), 0, 'put_var of a short text')
  ! Puts may be held until a sync (PIO's PnetCDF iotype does), so sync before reading back.
  call pio_syncfile(file)
  call check(pio_get_var(file, depth, two), einval, 'get_var of 3 values into 2')
  call check(pio_get_var(file, title, short_text), ests, 'get_var of 12 chars into 4')
  call check(pio_get_var(file, title, text), 0, 'get_var title')
  if (text /= 'abc') call wrong('title read back: "' // trim(text) // '"')
  call check(pio_get_att(file, depth, 'valid', levels), einval, 'get_att of 3 into 2')
  call check(pio_inq_dimname(file, strdim, short_name), ests, 'inq_dimname into 3 chars')
  call check(pio_inq_vardimid(file, depth, dimids), einval, 'inq_vardimid into 0 ids')
  ! Two variables in one write: a's part, then b's.
  mine = [(int(3 * rank + i, pio_offset_kind), i = 1, 3)]
  call pio_initdecomp(ios, pio_double, [3 * nranks], mine, cells)
  call pio_write_darray(file, pair, cells, [100 + dble(mine), 200 + dble(mine)], ierr)
  call check(ierr, 0, 'write_darray of a and b')
  call pio_write_darray(file, pair, cells, [1d0, 2d0, 3d0, 4d0, 5d0], ierr)
  call check(ierr, einval, 'write_darray of 5 values for 2 variables')
  call pio_syncfile(file)
  call pio_read_darray(file, pair(2), cells, got, ierr)
  call check(ierr, 0, 'read_darray b')
  if (any(got /= 200 + dble(mine))) call wrong('b as written with a')
  call pio_freedecomp(ios, cells)
  call pio_closefile(file)
  call pio_finalize(ios, ierr)
  call mpi_allreduce(errors, total, 1, mpi_integer, mpi_sum, mpi_comm_world, ierr)
  if (rank == 0 .and. total == 0) print '(a)', 'pio_strict_f ok'
  call mpi_finalize(ierr)
  if (total /= 0) error stop 1
contains
  include 'pio_checks.inc'
end program pio_strict_f

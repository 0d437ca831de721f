! A NetCDF decomposition file from Fortran: PIO_write_nc_dof writes a 2-D decomposition with a
! hole; PIO_read_nc_dof reads it back (title, history, array order) into a new iodesc, through
! which the data written with the first one reads back, as doubles and, with basepiotype, as
! ints. (PIO 2.7's own PIO_read_nc_dof passes arguments its C call does not take, so this program
! is built with tapio's module only: over tapio_pio, or over the real PIO's C library.)
! Usage: pio_nc_dof_f DECOMPFILE DATAFILE
program pio_nc_dof_f
  use mpi
  use pio
  implicit none
  integer, parameter :: nx = 4, ny = 3, ests = -31
  type(iosystem_desc_t) :: ios
  type(file_desc_t) :: file
  type(var_desc_t) :: v
  type(io_desc_t) :: written, as_double, as_int
  integer(pio_offset_kind), allocatable :: dof(:)
  double precision, allocatable :: values(:), got(:)
  integer, allocatable :: got_int(:)
  character(len=256) :: decomp_path, data_path
  character(len=pio_max_name) :: title, history
  character(len=4) :: short
  logical :: fortran_order
  integer :: rank, nranks, ierr, ret, dims(2), errors, total, i
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nranks, ierr)
  call get_command_argument(1, decomp_path)
  call get_command_argument(2, data_path)
  errors = 0
  call pio_init(rank, mpi_comm_world, 1, 0, 1, pio_rearr_subset, ios)
  call pio_seterrorhandling(ios, pio_return_error)
  ! Rank r maps cells r+1, r+1+nranks, ... (1-based, Fortran order); rank 1's second is a hole.
  dof = [(int(i, pio_offset_kind), i = rank + 1, nx * ny, nranks)]
  if (rank == 1) dof(2) = 0
  values = 10d0 * dof
  call pio_initdecomp(ios, pio_double, [nx, ny], dof, written)

  call pio_write_nc_dof(ios, decomp_path, pio_clobber, written, ret, title='decomp title', &
                        history='decomp history', fortran_order=.true.)
  call check(ret, 0, 'write_nc_dof')
  call pio_read_nc_dof(ios, decomp_path, as_double, ret, title=title, history=history, &
                       fortran_order=fortran_order)
  call check(ret, 0, 'read_nc_dof')
  if (title /= 'decomp title' .or. history /= 'decomp history' .or. .not. fortran_order) &
    call wrong('read_nc_dof: title "' // trim(title) // '", history "' // trim(history) // '"')
  call pio_read_nc_dof(ios, decomp_path, as_int, ret, title=short, basepiotype=pio_int)
  call check(ret, ests, 'read_nc_dof with a title longer than its variable')

  call check(pio_createfile(ios, file, pio_iotype_pnetcdf, data_path, pio_clobber), 0, 'create')
  call check(pio_def_dim(file, 'x', nx, dims(1)), 0, 'def_dim x')
  call check(pio_def_dim(file, 'y', ny, dims(2)), 0, 'def_dim y')
  call check(pio_def_var(file, 'v', pio_double, dims, v), 0, 'def_var v')
  call check(pio_enddef(file), 0, 'enddef')
  call pio_write_darray(file, v, written, values, ierr)
  call check(ierr, 0, 'write_darray')
  call pio_closefile(file)

  allocate(got(size(dof)), got_int(size(dof)))
  call check(pio_openfile(ios, file, pio_iotype_pnetcdf, data_path, pio_nowrite), 0, 'open')
  call check(pio_inq_varid(file, 'v', v), 0, 'inq_varid v')
  call pio_read_darray(file, v, as_double, got, ierr)
  call check(ierr, 0, 'read_darray through the decomposition read back')
  if (any(got /= values)) call wrong('values read through the decomposition read back')
  call pio_read_darray(file, v, as_int, got_int, ierr)
  call check(ierr, 0, 'read_darray as ints')
  if (any(got_int /= nint(values))) call wrong('ints read through the decomposition read back')
  call pio_closefile(file)
  call pio_freedecomp(ios, written)
  call pio_freedecomp(ios, as_double)
  call pio_freedecomp(ios, as_int)
  call pio_finalize(ios, ierr)
  ! A main program's allocatables are saved, never freed on exit: LeakSanitizer would see them.
  deallocate(dof, values, got, got_int)
  call mpi_allreduce(errors, total, 1, mpi_integer, mpi_sum, mpi_comm_world, ierr)
  if (rank == 0 .and. total == 0) print '(a,i0,a)', 'pio_nc_dof_f ok on ', nranks, ' ranks'
  call mpi_finalize(ierr)
  if (total /= 0) error stop 1
contains
  include 'pio_checks.inc'
end program pio_nc_dof_f

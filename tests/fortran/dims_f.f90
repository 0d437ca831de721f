! Declared dimensions through the Fortran module, as netCDF-Fortran numbers them: x, an unused
! one, y and the unlimited t, in an order no variable uses them in; rank 0 writes temp(x, y)
! in one step; read back, the file's dimensions are the same list (1-based ids), and a
! dimension id out of range is TAPIO_ERR_NOT_FOUND. Prints each call's status on rank 0,
! then "dims ok"; exits non-zero on anything wrong.
!   mpiexec -n N dims_f FILE
program dims_f
  use mpi
  use tapio
  use test_checks
  implicit none
  character(len=6), parameter :: names(4) = [character(len=6) :: "x", "unused", "y", "t"]
  integer, parameter :: lengths(4) = [4, 3, 2, TAPIO_UNLIMITED]
  type(tapio_context) :: ctx
  type(tapio_io) :: io, in
  type(tapio_var) :: temp
  type(tapio_file) :: f
  real(8), target :: values(4, 2)
  character(len=:), allocatable :: name
  character(len=256) :: path
  integer :: ierr, ndims, length, d

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, path)
  call expect("init", tapio_init(MPI_COMM_WORLD, ctx=ctx), TAPIO_OK)
  call expect("declare_io", tapio_declare_io(ctx, "dims", io), TAPIO_OK)
  do d = 1, 4
    call expect("def_dim " // trim(names(d)), tapio_def_dim(io, trim(names(d)), lengths(d)), &
                TAPIO_OK)
  end do
  call expect("define temp", tapio_def_var(io, "temp", TAPIO_DOUBLE, [4, 2], ["x", "y"], temp), &
              TAPIO_OK)
  call expect("open", tapio_open(io, trim(path), TAPIO_WRITE, f), TAPIO_OK)
  values = 1.5d0
  call expect("begin_step", tapio_begin_step(f), TAPIO_OK)
  if (rank == 0) call expect("put temp", tapio_put(f, temp, values), TAPIO_OK)
  call expect("end_step", tapio_end_step(f), TAPIO_OK)
  call expect("close", tapio_close(f), TAPIO_OK)

  call expect("declare_io in", tapio_declare_io(ctx, "dims_in", in), TAPIO_OK)
  call expect("open in", tapio_open(in, trim(path), TAPIO_READ, f), TAPIO_OK)
  call expect("inq_ndims", tapio_inq_ndims(in, ndims), TAPIO_OK)
  if (ndims /= 4) call fail("ndims", ndims)
  do d = 1, min(ndims, 4)
    call expect("inq_dim", tapio_inq_dim(in, d, name, length), TAPIO_OK)
    if (name /= trim(names(d))) call fail("name of dimension " // name, d)
    if (length /= lengths(d)) call fail("length of dimension " // name, length)
  end do
  call expect("inq_dim 5", tapio_inq_dim(in, 5, name, length), TAPIO_ERR_NOT_FOUND)
  call expect("close in", tapio_close(f), TAPIO_OK)
  deallocate(name)  ! a main program's allocatables are never freed: LeakSanitizer would see it
  call expect("finalize", tapio_finalize(ctx), TAPIO_OK)
  call MPI_Allreduce(MPI_IN_PLACE, wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. wrong == 0) print '(a)', "dims ok"
  call MPI_Finalize(ierr)
  if (wrong /= 0) error stop 1
end program

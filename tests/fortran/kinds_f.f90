! integer(2) and character variables through the Fortran module, as netCDF-Fortran stores them
! (NF90_SHORT, NF90_CHAR with the string length as the first dimension): each rank writes its
! block of both with start=/count=, then every rank reads the whole file back and checks it.
! Prints each call's status on rank 0, then "kinds ok", or a line per wrong value; exits
! non-zero on any.
!   mpiexec -n N kinds_f FILE
program kinds_f
  use mpi
  use tapio
  use test_checks
  implicit none
  type(tapio_context) :: ctx
  type(tapio_io) :: io
  type(tapio_var) :: depth, names
  type(tapio_file) :: f
  integer(2), target :: mine(3)
  integer(2), allocatable, target :: all_depths(:)
  character(len=5), target :: label(2)
  character(len=5), allocatable, target :: all_labels(:)
  character(len=256) :: path
  integer :: ierr, nproc, i

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call get_command_argument(1, path)
  call expect("init", tapio_init(MPI_COMM_WORLD, ctx=ctx), TAPIO_OK)
  call expect("declare_io", tapio_declare_io(ctx, "kinds", io), TAPIO_OK)
  call expect("define depth", tapio_def_var(io, "depth", TAPIO_SHORT, [3 * nproc], ["z"], &
              depth), TAPIO_OK)
  call expect("define names", tapio_def_var(io, "names", TAPIO_CHAR, [5, 2 * nproc], &
              ["nchar", "label"], names, fixed=.true.), TAPIO_OK)
  call expect("open", tapio_open(io, trim(path), TAPIO_WRITE, f), TAPIO_OK)
  mine = int([(-32000 + 1000 * rank + i, i = 1, 3)], 2)
  write (label(1), '(a, i0)') "a", rank
  write (label(2), '(a, i0)') "bb", rank
  call expect("begin_step", tapio_begin_step(f), TAPIO_OK)
  call expect("put depth", tapio_put(f, depth, mine, start=[3 * rank + 1], count=[3]), TAPIO_OK)
  call expect("put names", tapio_put(f, names, label, start=[1, 2 * rank + 1], &
              count=[5, 2]), TAPIO_OK)
  call expect("end_step", tapio_end_step(f), TAPIO_OK)
  call expect("close", tapio_close(f), TAPIO_OK)

  allocate(all_depths(3 * nproc), all_labels(2 * nproc))
  call expect("open", tapio_open(io, trim(path), TAPIO_READ, f), TAPIO_OK)
  call expect("begin_step", tapio_begin_step(f), TAPIO_OK)
  call expect("get depth", tapio_get(f, depth, all_depths, start=[1], count=[3 * nproc]), TAPIO_OK)
  call expect("get names", tapio_get(f, names, all_labels, start=[1, 1], &
              count=[5, 2 * nproc]), TAPIO_OK)
  call expect("end_step", tapio_end_step(f), TAPIO_OK)
  call expect("close", tapio_close(f), TAPIO_OK)
  do i = 0, nproc - 1
    if (any(all_depths(3 * i + 1:3 * i + 3) /= int([-31999, -31998, -31997] + 1000 * i, 2))) &
      call fail("depth", i)
    write (label(1), '(a, i0)') "a", i
    write (label(2), '(a, i0)') "bb", i
    if (any(all_labels(2 * i + 1:2 * i + 2) /= label)) call fail("names", i)
  end do
  ! A main program's allocatables are saved, never freed on exit: LeakSanitizer reports them.
  deallocate(all_depths, all_labels)
  call expect("finalize", tapio_finalize(ctx), TAPIO_OK)
  if (rank == 0 .and. wrong == 0) print '(a)', "kinds ok"
  call MPI_Finalize(ierr)
  if (wrong /= 0) error stop 1

end program

! integer(2) and character variables through the Fortran module, as netCDF-Fortran stores them
! (NF90_SHORT, NF90_CHAR with the string length as the first dimension): each rank writes its
! block of both with start=/count=, then every rank reads the whole file back and checks it.
! Prints "kinds ok" on rank 0, or one line per wrong value; exits non-zero on any.
!   mpiexec -n N kinds_f FILE
program kinds_f
  use mpi
  use tapio
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
  integer :: ierr, rank, nproc, i, wrong

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call get_command_argument(1, path)
  wrong = 0
  call check(tapio_init(MPI_COMM_WORLD, ctx=ctx))
  call check(tapio_declare_io(ctx, "kinds", io))
  call check(tapio_def_var(io, "depth", TAPIO_SHORT, [3 * nproc], ["z"], depth))
  call check(tapio_def_var(io, "names", TAPIO_CHAR, [5, 2 * nproc], ["nchar", "label"], names, &
                           fixed=.true.))
  call check(tapio_open(io, trim(path), TAPIO_WRITE, f))
  mine = int([(-32000 + 1000 * rank + i, i = 1, 3)], 2)
  write (label(1), '(a, i0)') "a", rank
  write (label(2), '(a, i0)') "bb", rank
  call check(tapio_begin_step(f))
  call check(tapio_put(f, depth, mine, start=[3 * rank + 1], count=[3]))
  call check(tapio_put(f, names, label, start=[1, 2 * rank + 1], count=[5, 2]))
  call check(tapio_end_step(f))
  call check(tapio_close(f))

  allocate(all_depths(3 * nproc), all_labels(2 * nproc))
  call check(tapio_open(io, trim(path), TAPIO_READ, f))
  call check(tapio_begin_step(f))
  call check(tapio_get(f, depth, all_depths, start=[1], count=[3 * nproc]))
  call check(tapio_get(f, names, all_labels, start=[1, 1], count=[5, 2 * nproc]))
  call check(tapio_end_step(f))
  call check(tapio_close(f))
  do i = 0, nproc - 1
    if (any(all_depths(3 * i + 1:3 * i + 3) /= int([-31999, -31998, -31997] + 1000 * i, 2))) &
      call fail("depth", i)
    write (label(1), '(a, i0)') "a", i
    write (label(2), '(a, i0)') "bb", i
    if (any(all_labels(2 * i + 1:2 * i + 2) /= label)) call fail("names", i)
  end do
  call check(tapio_finalize(ctx))
  if (rank == 0 .and. wrong == 0) print '(a)', "kinds ok"
  call MPI_Finalize(ierr)
  if (wrong /= 0) error stop 1

contains

  subroutine check(status)
    integer, intent(in) :: status
    if (status /= TAPIO_OK) then
      print '(a, i0, 2a)', "rank ", rank, ": ", tapio_last_error()
      error stop 2
    end if
  end subroutine

  subroutine fail(what, block)
    character(len=*), intent(in) :: what
    integer, intent(in) :: block
    wrong = wrong + 1
    print '(a, i0, 3a, i0)', "rank ", rank, ": WRONG ", what, " of rank ", block
  end subroutine
end program

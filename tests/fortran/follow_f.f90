! A live reader in Fortran (tests/py/test_dead_writer.py): reads a dataset tests/crash's
! crash_writer wrote, step by step, until its writer closed it or is gone, checking every value
! of temp. Rank 0 prints "step S" after each step, then "end of stream N" or "writer gone N"
! (N: the committed steps); exits non-zero on a wrong value or a failed call.
!   mpiexec -n N follow_f DATASET WRITER_TIMEOUT
program follow_f
  use mpi
  use tapio
  implicit none
  integer, parameter :: nx = 256, ny = 256, nz = 8   ! temp(depth, lat, lon) in C order
  type(tapio_context) :: ctx
  type(tapio_io) :: io
  type(tapio_var) :: temp
  type(tapio_file) :: f
  real(8), target :: a(nx, ny, nz)
  real(8) :: ramp(nx, ny, nz)
  character(len=256) :: path, timeout
  integer :: ierr, rank, st, s, n, g, bad

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, path)
  call get_command_argument(2, timeout)
  ramp = reshape([(real(g, 8), g = 0, nx * ny * nz - 1)], [nx, ny, nz])  ! element g holds g
  call check(tapio_init(MPI_COMM_WORLD, ctx=ctx))
  call check(tapio_declare_io(ctx, "follow", io))
  call check(tapio_set_engine(io, "subfile"))
  call check(tapio_set_parameter(io, "writer_timeout", trim(timeout)))
  call check(tapio_open(io, trim(path), TAPIO_READ, f))
  bad = 0
  s = 0
  do
    call check(tapio_begin_step(f, st))
    if (st == TAPIO_STEP_NOT_READY) cycle  ! the writer has not committed it yet: ask again
    if (st /= TAPIO_STEP_OK) exit          ! END_OF_STREAM, or WRITER_GONE
    if (s == 0) call check(tapio_inq_var(io, "temp", temp))
    call check(tapio_get(f, temp, a))      ! the whole variable, this step
    call check(tapio_end_step(f))
    bad = bad + count(a /= ramp + s * 2d0**20)
    if (rank == 0) print '(a, i0)', "step ", s
    s = s + 1
  end do
  call check(tapio_steps(f, n))
  if (rank == 0 .and. st == TAPIO_STEP_WRITER_GONE) print '(a, i0)', "writer gone ", n
  if (rank == 0 .and. st == TAPIO_STEP_END_OF_STREAM) print '(a, i0)', "end of stream ", n
  call check(tapio_close(f))
  call check(tapio_finalize(ctx))
  call MPI_Finalize(ierr)
  if (bad > 0 .or. n /= s) then
    print '(a, i0, a)', "bad: ", bad, " wrong values"
    error stop 1
  end if

contains

  subroutine check(status)
    integer, intent(in) :: status
    if (status == TAPIO_OK) return
    print '(a)', "error: " // tapio_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end subroutine
end program

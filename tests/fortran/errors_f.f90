! Bad input to the Fortran module gives a status and a clear message, and no rank hangs: a
! value its variable's type cannot hold, a shape mismatch, a strided (non-contiguous) section,
! a closed file; a joined array's negative count, and an array that does not match its count;
! a start=/count= box outside the shape on one rank, which fails the step on every rank.
! Prints one line per case, "case: status message"; exits non-zero if a status is not the
! expected one.
!   mpiexec -n N errors_f DIR
program errors_f
  use mpi
  use tapio
  use test_checks
  implicit none
  type(tapio_context) :: ctx
  type(tapio_io) :: io, pio, bio
  type(tapio_var) :: x, p, y
  type(tapio_file) :: f, pf, bf
  real(8), target :: double(4), wide(8), grid(4, 2), pair(2), back(2)
  character(len=256) :: dir
  integer :: ierr, nproc, nsteps

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call get_command_argument(1, dir)
  wrong = 0
  call expect("init", tapio_init(MPI_COMM_WORLD, ctx=ctx), TAPIO_OK)
  call expect("declare", tapio_declare_io(ctx, "errors", io), TAPIO_OK)
  call expect("define", tapio_def_var(io, "x", TAPIO_INT, [4], ["n"], x), TAPIO_OK)
  call expect("open", tapio_open(io, trim(dir) // "/errors.nc", TAPIO_WRITE, f), TAPIO_OK)
  call expect("begin_step", tapio_begin_step(f), TAPIO_OK)
  double = 2
  double(3) = 1.0d10  ! every kind converts to x's integer type, but 1e10 does not fit it
  call expect("out of range", tapio_put(f, x, double), TAPIO_ERR_RANGE)
  call expect("shape mismatch", tapio_put(f, x, wide), TAPIO_ERR_SHAPE)
  grid = 3
  call expect("strided section", tapio_put(f, x, grid(1, :)), TAPIO_ERR_ARG)
  ! the failed put fails the step on every rank, which all reach end_step
  call expect("end_step after a failed put", tapio_end_step(f), TAPIO_ERR_RANGE)
  call expect("close", tapio_close(f), TAPIO_OK)
  call expect("closed file", tapio_begin_step(f), TAPIO_ERR_ARG)
  ! A joined array of positions p(3, n): each rank's n, 2 here; the file's first dimension.
  call expect("declare particles", tapio_declare_io(ctx, "particles", pio), TAPIO_OK)
  call expect("define joined", tapio_def_var(pio, "p", TAPIO_DOUBLE, [3, 0], &
              ["xyz     ", "particle"], p, joined=.true.), TAPIO_OK)
  call expect("open particles", tapio_open(pio, trim(dir) // "/particles", TAPIO_WRITE, pf), &
              TAPIO_OK)
  call expect("begin particles", tapio_begin_step(pf), TAPIO_OK)
  call expect("negative count", tapio_set_joined_count(p, -2_8), TAPIO_ERR_ARG)
  call expect("joined count", tapio_set_joined_count(p, 2_8), TAPIO_OK)
  call expect("joined mismatch", tapio_put(pf, p, wide), TAPIO_ERR_SHAPE)
  call expect("joined too short", tapio_put(pf, p, grid(1:3, 1)), TAPIO_ERR_SHAPE)
  ! the module refused those puts before they reached tapio, and failed the step with them
  call expect("end particles", tapio_end_step(pf), TAPIO_ERR_SHAPE)
  call expect("close particles", tapio_close(pf), TAPIO_OK)
  ! start= and count= (1-based, Fortran order) are the box of one put alone. The last rank's
  ! box lies outside the shape: the step fails on every rank, and the next one commits.
  call expect("declare boxes", tapio_declare_io(ctx, "boxes", bio), TAPIO_OK)
  call expect("define y", tapio_def_var(bio, "y", TAPIO_DOUBLE, [2 * nproc], ["n"], y), TAPIO_OK)
  call expect("open boxes", tapio_open(bio, trim(dir) // "/boxes.nc", TAPIO_WRITE, bf), TAPIO_OK)
  pair = rank
  call expect("begin boxes", tapio_begin_step(bf), TAPIO_OK)
  if (rank == nproc - 1) then
    call expect("box outside", tapio_put(bf, y, pair, start=[2 * nproc], count=[2]), &
                TAPIO_ERR_SHAPE)
  else
    call expect("box", tapio_put(bf, y, pair, start=[2 * rank + 1], count=[2]), TAPIO_OK)
  end if
  call expect("end after a box outside", tapio_end_step(bf), TAPIO_ERR_SHAPE)
  call expect("begin boxes again", tapio_begin_step(bf), TAPIO_OK)
  call expect("box", tapio_put(bf, y, pair, start=[2 * rank + 1], count=[2]), TAPIO_OK)
  call expect("end boxes", tapio_end_step(bf), TAPIO_OK)
  call expect("close boxes", tapio_close(bf), TAPIO_OK)
  call expect("open boxes to read", tapio_open(bio, trim(dir) // "/boxes.nc", TAPIO_READ, bf), &
              TAPIO_OK)
  call expect("steps", tapio_steps(bf, nsteps), TAPIO_OK)
  call expect("begin read", tapio_begin_step(bf), TAPIO_OK)
  back = -1
  call expect("get box", tapio_get(bf, y, back, start=[2 * rank + 1], count=[2]), TAPIO_OK)
  call expect("end read", tapio_end_step(bf), TAPIO_OK)
  call expect("close read", tapio_close(bf), TAPIO_OK)
  if (nsteps /= 1 .or. any(back /= rank)) then
    wrong = wrong + 1
    print '(a, i0, a, i0, a, 2f6.1)', "rank ", rank, ": boxes read back ", nsteps, &
      " steps, values ", back
  end if
  call expect("finalize", tapio_finalize(ctx), TAPIO_OK)
  call MPI_Finalize(ierr)
  if (wrong /= 0) error stop 1

end program

! Kinds other than the variable's type convert, as netCDF-Fortran converts: a real(4) array to a
! double variable and real(8) values to an integer one (truncated toward zero), read back into
! real(8), real(4) and integer(8) arrays; a value out of range fails its put and the step on
! every rank (nothing committed), and a get into an integer array too small for a stored value
! fails on every rank. Prints "convert ok" on rank 0; exits non-zero on a wrong status or value.
!   mpiexec -n N convert_f DIR      (writes DIR/convert.nc: t(time, n), k(time, n), n = 4 N)
program convert_f
  use mpi
  use tapio
  use test_checks
  implicit none
  type(tapio_context) :: ctx
  type(tapio_io) :: io, rio
  type(tapio_var) :: t, k
  type(tapio_file) :: f
  real(4), target :: single(4), single_back(4)
  real(8), target :: wide(4), double_back(4)
  integer(8), target :: k_back(4)
  integer(4), target :: narrow(4)
  character(len=256) :: dir
  integer :: ierr, nranks, n

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, dir)
  wrong = 0
  call expect("init", tapio_init(MPI_COMM_WORLD, ctx=ctx), TAPIO_OK)
  call expect("declare", tapio_declare_io(ctx, "convert", io), TAPIO_OK)
  call expect("define t", tapio_def_var(io, "t", TAPIO_DOUBLE, [4 * nranks], ["n"], t), TAPIO_OK)
  call expect("define k", tapio_def_var(io, "k", TAPIO_INT, [4 * nranks], ["n"], k), TAPIO_OK)
  call expect("open", tapio_open(io, trim(dir) // "/convert.nc", TAPIO_WRITE, f), TAPIO_OK)
  single = [0.1, -2.5, 3.75, 3.0e9] + rank
  wide = [1.9d0, -1.9d0, 2147483647.4d0, -2147483648.9d0]
  call expect("begin 1", tapio_begin_step(f), TAPIO_OK)
  call expect("select t", tapio_set_selection(t, [4 * rank + 1], [4]), TAPIO_OK)
  call expect("select k", tapio_set_selection(k, [4 * rank + 1], [4]), TAPIO_OK)
  call expect("real(4) to double", tapio_put(f, t, single), TAPIO_OK)
  call expect("real(8) to int", tapio_put(f, k, wide), TAPIO_OK)
  call expect("end 1", tapio_end_step(f), TAPIO_OK)
  ! Step 2: the last rank puts 1e10 into k; every rank's end_step fails and nothing is kept.
  call expect("begin 2", tapio_begin_step(f), TAPIO_OK)
  call expect("real(4) to double again", tapio_put(f, t, single), TAPIO_OK)
  if (rank == nranks - 1) then
    wide(3) = 1.0d10
    call expect("out of range", tapio_put(f, k, wide), TAPIO_ERR_RANGE)
  else
    call expect("in range", tapio_put(f, k, wide), TAPIO_OK)
  end if
  call expect("end 2 after a value out of range", tapio_end_step(f), TAPIO_ERR_RANGE)
  call expect("steps", tapio_steps(f, n), TAPIO_OK)
  if (n /= 1) call fail("steps after the failed step", n)
  call expect("close", tapio_close(f), TAPIO_OK)

  call expect("declare read", tapio_declare_io(ctx, "convert_read", rio), TAPIO_OK)
  call expect("open read", tapio_open(rio, trim(dir) // "/convert.nc", TAPIO_READ, f), TAPIO_OK)
  call expect("inq t", tapio_inq_var(rio, "t", t), TAPIO_OK)
  call expect("inq k", tapio_inq_var(rio, "k", k), TAPIO_OK)
  call expect("select t", tapio_set_selection(t, [4 * rank + 1], [4]), TAPIO_OK)
  call expect("select k", tapio_set_selection(k, [4 * rank + 1], [4]), TAPIO_OK)
  call expect("steps t", tapio_set_steps(t, 1, 1), TAPIO_OK)
  call expect("steps k", tapio_set_steps(k, 1, 1), TAPIO_OK)
  call expect("get t as real(8)", tapio_get(f, t, double_back), TAPIO_OK)
  call expect("get t as real(4)", tapio_get(f, t, single_back), TAPIO_OK)
  call expect("get k as integer(8)", tapio_get(f, k, k_back), TAPIO_OK)
  call expect("perform gets", tapio_perform_gets(f), TAPIO_OK)
  if (any(double_back /= real(single, 8))) call fail("t as real(8)", 0)
  if (any(single_back /= single)) call fail("t as real(4)", 0)
  if (any(k_back /= [1_8, -1_8, 2147483647_8, -2147483648_8])) call fail("k as integer(8)", 0)
  ! 3e9 (+ rank) does not fit integer(4): the get fails on every rank.
  call expect("get t as integer(4)", tapio_get(f, t, narrow), TAPIO_OK)
  call expect("a stored value out of range", tapio_perform_gets(f), TAPIO_ERR_RANGE)
  call expect("close read", tapio_close(f), TAPIO_OK)
  call expect("finalize", tapio_finalize(ctx), TAPIO_OK)
  if (rank == 0 .and. wrong == 0) print '(a)', "convert ok"
  call MPI_Finalize(ierr)
  if (wrong /= 0) error stop 1
end program

! A decomposition through the Fortran module: one compdof (every rank's columns of a 2-D
! field, dealt cyclically) made once with tapio_init_decomp and given to two variables over two
! steps; rank 0 reads each step whole and checks every value. A variable of another shape is
! refused (TAPIO_ERR_SHAPE). Prints each call's status on rank 0, then "decomp ok", or a line
! per wrong value; exits non-zero on any.
!   mpiexec -n N decomp_f FILE
program decomp_f
  use mpi
  use tapio
  use test_checks
  use, intrinsic :: iso_c_binding, only: c_int64_t
  implicit none
  integer, parameter :: nx = 7, ny = 5, steps = 2
  type(tapio_context) :: ctx
  type(tapio_io) :: io
  type(tapio_var) :: u, v, wide
  type(tapio_file) :: f
  type(tapio_decomp) :: cols
  integer(c_int64_t), allocatable :: compdof(:)
  real(8), allocatable, target :: mine(:), whole(:, :)
  character(len=256) :: path
  integer :: ierr, nproc, i, j, s, n, var

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call get_command_argument(1, path)
  ! Column j (1-based, Fortran order a(nx, ny)) is rank mod(j - 1, nproc)'s: its ny elements.
  n = 0
  do j = 1, nx
    if (mod(j - 1, nproc) == rank) n = n + ny
  end do
  allocate(compdof(n), mine(n))
  n = 0
  do j = 1, nx
    if (mod(j - 1, nproc) /= rank) cycle
    do i = 1, ny
      n = n + 1
      compdof(n) = int(j + (i - 1) * nx, c_int64_t)  ! a(j, i) of a(nx, ny), 1-based
    end do
  end do
  call expect("init", tapio_init(MPI_COMM_WORLD, ctx=ctx), TAPIO_OK)
  call expect("declare_io", tapio_declare_io(ctx, "decomp", io), TAPIO_OK)
  call expect("define u", tapio_def_var(io, "u", TAPIO_DOUBLE, [nx, ny], ["x", "y"], u), TAPIO_OK)
  call expect("define v", tapio_def_var(io, "v", TAPIO_DOUBLE, [nx, ny], ["x", "y"], v), TAPIO_OK)
  call expect("define wide", tapio_def_var(io, "wide", TAPIO_DOUBLE, [nx + 1, ny], &
              ["xw", "y "], wide), TAPIO_OK)
  call expect("init_decomp", tapio_init_decomp(ctx, [nx, ny], compdof, cols), TAPIO_OK)
  call expect("set_decomp wide", tapio_set_decomp(wide, cols), TAPIO_ERR_SHAPE)
  call expect("set_decomp u", tapio_set_decomp(u, cols), TAPIO_OK)
  call expect("set_decomp v", tapio_set_decomp(v, cols), TAPIO_OK)
  call expect("free_decomp", tapio_free_decomp(cols), TAPIO_OK)  ! u and v keep it
  call expect("open", tapio_open(io, trim(path), TAPIO_WRITE, f), TAPIO_OK)
  do s = 1, steps
    call expect("begin_step", tapio_begin_step(f), TAPIO_OK)
    mine = real(compdof, 8) + 100 * s
    call expect("put u", tapio_put(f, u, mine), TAPIO_OK)
    call expect("perform_puts", tapio_perform_puts(f), TAPIO_OK)
    mine = -mine
    call expect("put v", tapio_put(f, v, mine), TAPIO_OK)
    call expect("end_step", tapio_end_step(f), TAPIO_OK)
  end do
  call expect("close", tapio_close(f), TAPIO_OK)

  call expect("open read", tapio_open(io, trim(path), TAPIO_READ, f), TAPIO_OK)
  allocate(whole(nx, ny))
  do var = 1, 2
    do s = 1, steps
      call expect("set_steps", tapio_set_steps(merge(u, v, var == 1), s, 1), TAPIO_OK)
      call expect("get", tapio_get(f, merge(u, v, var == 1), whole, start=[1, 1], &
                  count=[nx, ny]), TAPIO_OK)
      call expect("perform_gets", tapio_perform_gets(f), TAPIO_OK)
      do i = 1, ny
        do j = 1, nx
          if (whole(j, i) /= merge(1, -1, var == 1) * (j + (i - 1) * nx + 100 * s)) &
            call fail("value", j + (i - 1) * nx)
        end do
      end do
    end do
  end do
  call expect("close read", tapio_close(f), TAPIO_OK)
  call expect("finalize", tapio_finalize(ctx), TAPIO_OK)
  if (rank == 0 .and. wrong == 0) print '(a)', "decomp ok"
  deallocate(compdof, mine, whole)
  call MPI_Finalize(ierr)
  if (wrong /= 0) error stop 1
end program

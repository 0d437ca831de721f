! bands in Fortran (use tapio): the program of bands.c — write a file, or read one that the C,
! C++, Fortran or Python version wrote and check every value.
!   mpiexec -n N bands_f write|read PATH [ENGINE]
! The Fortran array t(nx, ny) is the file's t(time, y, x): dimensions are given in Fortran
! order, as with netCDF-Fortran, and start is 1-based.
program bands
  use mpi
  use tapio
  implicit none
  integer, parameter :: ny = 8, nx = 6, ncell = 12, nsteps = 3
  integer :: rank, nproc, ierr, bad, total
  character(len=256) :: mode, path, engine
  type(tapio_context) :: ctx

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call get_command_argument(1, mode)
  call get_command_argument(2, path)
  call get_command_argument(3, engine)
  if ((mode /= "write" .and. mode /= "read") .or. len_trim(path) == 0) then
    if (rank == 0) write (0, '(a)') "usage: bands_f write|read PATH [ENGINE]"
    call MPI_Finalize(ierr)
    stop 2
  end if
  call check(tapio_init(MPI_COMM_WORLD, ctx=ctx))
  bad = 0
  if (mode == "write") then
    call write_file()
  else
    call read_file()
  end if
  call check(tapio_finalize(ctx))
  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(5a)', "bands (Fortran): ", trim(mode), " ", trim(path), ": ok"
    else
      print '(5a)', "bands (Fortran): ", trim(mode), " ", trim(path), ": WRONG VALUES"
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine check(status)
    integer, intent(in) :: status
    if (status /= TAPIO_OK) then
      write (0, '(2a)') "bands_f: ", tapio_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine

  ! This rank's part first .. first+n-1 (1-based) of total.
  subroutine band(ntotal, first, n)
    integer, intent(in) :: ntotal
    integer, intent(out) :: first, n
    first = ntotal * rank / nproc + 1
    n = ntotal * (rank + 1) / nproc - (first - 1)
  end subroutine

  ! The cells this rank owns as a compdof (1-based): descending when writing.
  function my_cells(descending) result(cells)
    logical, intent(in) :: descending
    integer(8), allocatable :: cells(:)
    integer :: g
    cells = [(int(g, 8), g = 1, ncell)]
    cells = pack(cells, mod(cells - 1, int(nproc, 8)) == rank)
    if (descending) cells = cells(size(cells):1:-1)
  end function

  subroutine write_file()
    type(tapio_io) :: io
    type(tapio_var) :: t, c
    type(tapio_file) :: out
    real(8), allocatable, target :: rows(:, :)
    integer(4), allocatable, target :: values(:)
    integer(8), allocatable :: cells(:)
    integer :: r0, nr, s, i, j
    call check(tapio_declare_io(ctx, "bands", io))
    call check(tapio_set_engine(io, engine))
    call check(tapio_put_att(io, "", "title", "tapio bands"))
    call check(tapio_def_var(io, "t", TAPIO_DOUBLE, [nx, ny], ["x", "y"], t))
    call check(tapio_put_att(io, "t", "units", "K"))
    call check(tapio_def_var(io, "cells", TAPIO_INT, [ncell], ["cell"], c))
    call band(ny, r0, nr)
    cells = my_cells(.true.)
    allocate(rows(nx, nr), values(size(cells)))
    call check(tapio_open(io, path, TAPIO_WRITE, out))
    do s = 0, nsteps - 1
      call check(tapio_begin_step(out))
      do j = 1, nr
        do i = 1, nx
          rows(i, j) = 1000d0 * s + (r0 + j - 2) * nx + (i - 1)
        end do
      end do
      values = int(100 * s + cells - 1, 4)
      call check(tapio_set_selection(t, [1, r0], [nx, nr]))
      call check(tapio_put(out, t, rows))       ! deferred: rows must not change before end_step
      call check(tapio_set_compdof(c, cells))
      call check(tapio_put(out, c, values))
      call check(tapio_end_step(out))
    end do
    call check(tapio_close(out))
  end subroutine

  subroutine read_file()
    type(tapio_io) :: io
    type(tapio_var) :: t, c
    type(tapio_file) :: in
    real(8), allocatable, target :: cols(:, :)
    integer(4), allocatable, target :: values(:)
    integer(8), allocatable :: cells(:)
    character(len=32) :: text
    integer :: c0, nc, s, i, j, st, steps
    call check(tapio_declare_io(ctx, "bands", io))
    call check(tapio_set_engine(io, engine))
    call check(tapio_open(io, path, TAPIO_READ, in))
    call check(tapio_get_att(io, "", "title", text))
    if (text /= "tapio bands") bad = bad + 1
    call check(tapio_get_att(io, "t", "units", text))
    if (text /= "K") bad = bad + 1
    call check(tapio_inq_var(io, "t", t))
    call check(tapio_inq_var(io, "cells", c))
    call band(nx, c0, nc)
    cells = my_cells(.false.)
    allocate(cols(nc, ny), values(size(cells)))
    call check(tapio_set_selection(t, [c0, 1], [nc, ny]))
    call check(tapio_set_compdof(c, cells))
    s = 0
    do
      call check(tapio_begin_step(in, st))
      if (st == TAPIO_STEP_NOT_READY) cycle  ! a subfile writer has not committed it yet: ask again
      if (st == TAPIO_STEP_WRITER_GONE) then  ! its writer was killed: s steps were committed
        print '(a, i0, a)', "the writer did not close the file; ", s, " steps committed"
        bad = bad + 1
        exit
      end if
      if (st == TAPIO_STEP_END_OF_STREAM) exit
      call check(tapio_get(in, t, cols))
      call check(tapio_get(in, c, values))
      call check(tapio_end_step(in))
      do j = 1, ny
        do i = 1, nc
          if (cols(i, j) /= 1000d0 * s + (j - 1) * nx + (c0 + i - 2)) bad = bad + 1
        end do
      end do
      if (any(values /= 100 * s + cells - 1)) bad = bad + 1
      s = s + 1
    end do
    call check(tapio_steps(in, steps))
    if (steps /= nsteps) bad = bad + 1
    call check(tapio_close(in))
  end subroutine
end program
